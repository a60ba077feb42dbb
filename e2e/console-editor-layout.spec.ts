import { api, createPost, type ApiPost } from './support/api';
import { confirm, expect, screenshot, signIn, test, openEditor, markdownText } from './support/console';
import { tokenOf } from './support/state';

/**
 * The editor's layout at 1440 px and at 390 px: the preview follows the cursor instead of
 * jumping to the top, wide reader widths are scaled to fit the panel, the header's buttons stay
 * put after Publish, Publish and Unpublish differ in colour, and on a phone the island menu
 * stays on screen and an Edit/Preview switch shows one panel at a time.
 */

const LONG = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} of a long article.`).join('\n\n');

test('the live preview opens where the cursor is, not at the top', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'A long read', markdown: LONG });
  await signIn(page, token);
  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  await expect(markdownText(page)).toHaveValue(LONG);
  await markdown.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' Edited at the end.');
  await expect(page.getByText('Live preview of your unsaved text')).toBeVisible();
  const preview = page.frameLocator('iframe[title="Article preview"]');
  const edited = preview.getByText('Paragraph 60 of a long article. Edited at the end.');
  await expect(edited).toBeVisible();
  await expect(edited).toBeInViewport();
  await expect(preview.getByText('Paragraph 1 of a long article.', { exact: true })).not.toBeInViewport();

  // Typing near the top brings the preview back there.
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < 'Paragraph'.length; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.type('X');
  const top = preview.getByText('ParagraphX 1 of a long article.');
  await expect(top).toBeVisible();
  await expect(top).toBeInViewport();
});

test('Tablet and Desktop widths are scaled to fit the panel, not cut off', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Widths', markdown: 'Some text to lay out.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const section = page.getByRole('region', { name: 'Preview' });
  const panel = section.locator('.reader-widths__frames');
  const frame = page.locator('iframe[title="Article preview"]');
  for (const label of ['Tablet (768 px)', 'Desktop (1280 px)']) {
    await section.getByLabel(label).check();
    // Nothing to scroll sideways: the frame is not cut off.
    await expect.poll(() => panel.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
    const box = (await panel.boundingBox())!;
    const shown = (await frame.boundingBox())!;
    expect(shown.x).toBeGreaterThanOrEqual(box.x - 0.5);
    expect(shown.x + shown.width).toBeLessThanOrEqual(box.x + box.width + 1);
    expect(shown.width).toBeGreaterThan(box.width * 0.95); // fills its panel
    await expect(section.getByText(/shown at \d+ %/)).toBeVisible();
    // The document inside still has the reader's width.
    expect(
      await frame.evaluate((el: HTMLIFrameElement) => el.getBoundingClientRect().width / el.offsetWidth),
    ).toBeLessThan(1);
    expect(await frame.evaluate((el: HTMLIFrameElement) => el.clientWidth)).toBe(
      label.startsWith('Tablet') ? 768 : 1280,
    );
  }
  await screenshot(page, 'reader-widths-scaled');
});

test('Publish stays put after it publishes, and Publish and Unpublish are different colours', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const token = tokenOf('author');
  // A title long enough that the buttons wrap under it, where they used to drift to the middle.
  const post = await createPost(token, {
    title: 'A steady header under a rather long article title that fills most of the width of the page',
    markdown: 'Body.',
  });
  await signIn(page, token);
  await openEditor(page, post.id);
  const publish = page.getByRole('button', { name: 'Publish', exact: true }).first();
  const unpublish = page.getByRole('button', { name: 'Unpublish', exact: true });
  const before = (await publish.boundingBox())!;
  await confirm(page, 'Publish');
  await expect(page.getByText('Published: readers now see this version.')).toBeVisible();
  await expect(unpublish).toBeEnabled();
  const after = (await publish.boundingBox())!;
  expect(Math.abs(after.x - before.x)).toBeLessThanOrEqual(1);
  expect(Math.abs(after.y - before.y)).toBeLessThanOrEqual(1);
  expect((await api<ApiPost>(token, 'GET', `/posts/${post.id}`)).body.status).toBe('published');

  const colour = (el: typeof publish) => el.evaluate((b) => getComputedStyle(b).backgroundColor);
  expect(await colour(unpublish)).not.toBe(await colour(publish));
  await screenshot(page, 'header-after-publish');
});

test('on a phone: the island menu stays on screen, and Edit/Preview switch the panels', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Pocket edit', markdown: 'Small screen text.' });
  await signIn(page, token);
  await openEditor(page, post.id);

  await page.getByRole('button', { name: 'Insert island…' }).click();
  const panel = page.getByRole('group', { name: 'Insert an island' });
  await expect(panel).toBeVisible();
  const box = (await panel.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(8);
  expect(box.x + box.width).toBeLessThanOrEqual(390 - 8);
  await panel.getByRole('button', { name: 'Cancel' }).click();

  const markdown = page.getByLabel('Markdown');
  const frame = page.locator('iframe[title="Article preview"]');
  await expect(page.getByRole('button', { name: 'Edit', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(markdown).toBeVisible();
  await expect(frame).toBeHidden();
  await page.getByRole('button', { name: 'Preview', exact: true }).click();
  await expect(frame).toBeVisible();
  await expect(markdown).toBeHidden();
  await expect(page.frameLocator('iframe[title="Article preview"]').getByText('Small screen text.')).toBeVisible();
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await expect(markdown).toBeVisible();
  await screenshot(page, 'phone-editor');

  // At desktop width both panels show and the switch does not.
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(page.getByRole('button', { name: 'Preview', exact: true })).toBeHidden();
  await expect(frame).toBeVisible();
  await expect(markdown).toBeVisible();
});

/**
 * The readers panel used to stand above the editor with all its counters and the 30-day chart,
 * pushing the editor below the fold. It is one line now (the main counts), opening in place to
 * the counters and the chart, by mouse or keyboard.
 */
for (const [width, height] of [
  [1400, 900],
  [390, 844],
] as const) {
  test(`the editor is above the fold, the readers panel a line above it that opens (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const token = tokenOf('author');
    const post = await createPost(token, { title: `Editor first ${width}`, markdown: 'Words to edit.' });
    expect((await api<ApiPost>(token, 'POST', `/posts/${post.id}/publish`)).status).toBe(200);
    await signIn(page, token);
    await openEditor(page, post.id);

    const readers = page.getByRole('region', { name: 'Readers' });
    await expect(readers).toBeInViewport();
    await expect(readers).toContainText('0 opens · 0 reads · 0 full reads · read ratio —');
    // The editor starts on the first screen: its title field whole, and the Markdown's top edge
    // with its tools above it (on a phone too, where the page used to start it 290 px below the fold).
    await expect(page.getByLabel('Title', { exact: true })).toBeInViewport({ ratio: 1 });
    await expect(page.getByRole('button', { name: 'Insert island…' })).toBeInViewport({ ratio: 1 });
    const markdownTop = await page.getByLabel('Markdown').evaluate((el) => el.getBoundingClientRect().top);
    expect(markdownTop).toBeGreaterThanOrEqual(0);
    expect(markdownTop).toBeLessThan(height - 24);
    if (width < 600) await expect(page.getByRole('button', { name: 'Edit', exact: true })).toBeInViewport({ ratio: 1 });
    const counters = readers.getByRole('definition');
    await expect(counters.first()).toBeHidden();
    await screenshot(page, `editor-first-${width}`);

    // Opened with the mouse: the counters and the chart, as before.
    await readers.getByText('Readers', { exact: true }).click();
    await expect(counters).toHaveCount(9);
    await expect(counters.first()).toBeVisible();
    await expect(readers.getByRole('img')).toHaveAttribute(
      'aria-label',
      'Last 30 days: 0 opens, 0 reads, 0 full reads.',
    );
    // Popularity is not a bare number: the panel says what it is, and the number is described by it.
    const popularityHelp = /^Popularity: likes, twice the saves, three times the comments, plus the reads, divided by/;
    await expect(readers.getByText(popularityHelp)).toBeVisible();
    await expect(counters.last()).toHaveAccessibleDescription(popularityHelp);
    // Closed and opened again from the keyboard (the disclosure is a focus stop with a ring).
    const disclosure = readers.locator('summary');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    await expect(disclosure).toBeFocused();
    expect(await disclosure.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Enter');
    await expect(counters.first()).toBeHidden();
    await page.keyboard.press('Space');
    await expect(counters.first()).toBeVisible();
  });
}
