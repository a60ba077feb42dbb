import type { Locator, Page } from '@playwright/test';
import { api, createPost, publish } from './support/api';
import { expect, openEditor, signIn, test } from './support/console';
import { scan } from './support/axe';
import { tokenOf } from './support/state';

/**
 * The editor's action bar, at a phone's width and a desktop's: the save state, Save and Publish
 * stay on screen wherever the writer has scrolled; "What changes" opens the publish diff inside
 * the Publish dialog, so the writer reads it and publishes without leaving it; and the
 * "Published" message is gone once the text is edited again.
 */
async function onScreen(page: Page, control: Locator): Promise<void> {
  const box = await control.boundingBox();
  const viewport = page.viewportSize()!;
  expect(box, 'the control has a box').not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(viewport.height);
}

for (const width of [390, 1400]) {
  test(`the action bar stays on screen and Publish holds its diff at ${width} px`, async ({ page }, testInfo) => {
    const token = tokenOf('keeper');
    const post = await createPost(token, { title: `Lighthouse log ${width}`, markdown: 'The lamp was lit at dusk.' });
    await publish(token, post.id);
    const patched = await api(token, 'PATCH', `/posts/${post.id}`, {
      markdown: 'The lamp was lit at dusk.\n\nA ship passed at midnight.',
    });
    expect(patched.status).toBe(200);

    await page.setViewportSize({ width, height: 800 });
    await signIn(page, token);
    await openEditor(page, post.id);
    const save = page.getByRole('button', { name: 'Save', exact: true });
    const publishButton = page.getByRole('button', { name: 'Publish', exact: true });
    const whatChanges = page.getByRole('button', { name: 'What changes', exact: true });
    await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();

    // Scrolled to the end of the page (the history), and back in the middle: the bar is still there.
    await page.getByRole('heading', { name: 'History' }).scrollIntoViewIfNeeded();
    for (const control of [save, publishButton, whatChanges]) await onScreen(page, control);
    await page
      .getByLabel('Markdown')
      .fill('The lamp was lit at dusk.\n\nA ship passed at midnight.\n\nFog by morning.');
    await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
    await expect(page.getByText('14 words · 1 min read', { exact: true })).toBeVisible();
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await onScreen(page, save);
    await save.click();
    await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();
    await expect(page.getByText(/· saved (just now|\d+ s ago)/)).toBeVisible();

    // "What changes" opens Publish's dialog with the diff in it; Publish is right there.
    await whatChanges.click();
    const dialog = page.getByRole('dialog', { name: 'Publish the working version?' });
    await expect(dialog).toBeVisible();
    const frame = dialog.frameLocator('iframe[title="Changes on publish, in the dialog"]');
    await expect(frame.getByText('Fog by morning.')).toBeVisible();
    await scan(page, testInfo, `publish-dialog-with-diff-${width}`);
    await dialog.getByRole('button', { name: 'Publish', exact: true }).click();
    const published = page.getByText('Published: readers now see this version.');
    await expect(published).toBeVisible();
    await onScreen(page, published);

    // Once the text changes again the message is no longer true, and it is gone.
    await page.getByLabel('Markdown').fill('The lamp was lit at dusk.\n\nClear skies.');
    await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
    await expect(published).toHaveCount(0);
  });
}
