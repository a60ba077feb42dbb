import { api, createPost } from './support/api';
import { expect, openEditor, signIn, test } from './support/console';
import { scan } from './support/axe';
import { tokenOf } from './support/state';

/**
 * Scheduled publishing from the editor, at a phone's width and a desktop's: "Schedule…" asks for
 * a time (UTC, with the writer's own zone beside it), the page and the list then show the
 * schedule, it can be moved and cancelled, and the REST API still sees a draft. Publishing at
 * the time itself, on one or several instances, is tests/integration/scheduled-publishing.test.ts's.
 */
for (const width of [390, 1400]) {
  test(`a writer schedules, moves and cancels a publication at ${width} px`, async ({ page }, testInfo) => {
    const token = tokenOf('author');
    const post = await createPost(token, { title: `Harbour notes ${width}`, markdown: 'Boats at dawn.' });
    await page.setViewportSize({ width, height: 900 });
    await signIn(page, token);
    await openEditor(page, post.id);

    await page.getByRole('button', { name: 'Schedule…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish later' });
    await expect(dialog).toBeVisible();
    const field = dialog.getByLabel('Publish at (UTC)');
    const at = new Date(Date.now() + 2 * 86_400_000);
    at.setUTCSeconds(0, 0);
    const value = at.toISOString().slice(0, 16);
    await field.fill(value);
    // The writer's own zone is said beside the UTC field once the page's script runs.
    await expect(dialog.getByText(/^In your time zone \(.+\):/)).toBeVisible();
    await scan(page, testInfo, `schedule-dialog-${width}`);
    await dialog.getByRole('button', { name: 'Schedule', exact: true }).click();
    await expect(dialog).toBeHidden();

    const shown = `${value.replace('T', ' ')} UTC`;
    await expect(page.getByText(/^Scheduled: the saved working version is published at/)).toContainText(shown);
    await expect(page.getByRole('status').filter({ hasText: 'Scheduled to publish at' })).toContainText(shown);
    // To the API it is a draft, as before, with no field of the console's.
    const read = await api<Record<string, unknown>>(token, 'GET', `/posts/${post.id}`);
    expect(read.body.status).toBe('draft');
    expect(Object.keys(read.body).filter((k) => k.includes('schedul'))).toEqual([]);

    await page.goto('/console');
    const row = page.getByRole('listitem').filter({ hasText: `Harbour notes ${width}` });
    await expect(row.getByText(`Scheduled ${shown}`)).toBeVisible();

    // Moved by a day, then cancelled.
    await openEditor(page, post.id);
    await page.getByRole('button', { name: 'Scheduled…' }).click();
    const later = new Date(at.getTime() + 86_400_000).toISOString().slice(0, 16);
    await dialog.getByLabel('Publish at (UTC)').fill(later);
    await dialog.getByRole('button', { name: 'Change the schedule' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Scheduled to publish at' })).toContainText(
      `${later.replace('T', ' ')} UTC`,
    );
    await page.getByRole('button', { name: 'Scheduled…' }).click();
    await dialog.getByRole('button', { name: 'Cancel the schedule' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText('Schedule cancelled: nothing is published unless you publish it.')).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Scheduled to publish at' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Schedule…' })).toBeVisible();
  });
}

test('a time that has passed is refused with the reason, and nothing is scheduled', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Yesterday’s tide', markdown: 'Too late.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await page.getByRole('button', { name: 'Schedule…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Publish later' });
  await dialog.getByLabel('Publish at (UTC)').fill(new Date(Date.now() - 86_400_000).toISOString().slice(0, 16));
  await dialog.getByRole('button', { name: 'Schedule', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'the time has passed' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('status').filter({ hasText: 'Scheduled to publish at' })).toHaveCount(0);
});
