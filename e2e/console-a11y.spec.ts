import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { api, createPost, publish } from './support/api';
import { expect, signIn, signOut, test, openEditor, markdownText } from './support/console';
import { tokenOf } from './support/state';
import { scan } from './support/axe';

/**
 * An axe-core scan of every console page, with content on it (an article with unpublished
 * changes, so the publish diff is there too): no serious or critical violation. Each page's
 * summary is printed and attached to the report. The article frames are separate sandboxed
 * documents (reader content, not console UI), so the scan stops at the frame element.
 */

test('every console page passes an axe scan without serious or critical violations', async ({ page }, testInfo) => {
  await page.goto('/console');
  await scan(page, testInfo, 'sign-in');

  const token = tokenOf('admin');
  const post = await createPost(token, { title: 'Accessible article', tags: ['a11y'], markdown: 'First version.' });
  await publish(token, post.id);
  // Every kind of Markdown the editor colours, so the scan checks each colour's contrast.
  const second = [
    '## Second version',
    '',
    'With **strong**, *emphasis*, ~~struck~~, `code` and [a link](https://example.org).',
    '',
    '> A quote.',
    '',
    '- a list',
    '',
    '<details><summary>An island</summary>Hidden.</details>',
    '',
    '<!-- a comment -->',
  ].join('\n');
  expect((await api(token, 'PATCH', `/posts/${post.id}`, { markdown: second })).status).toBe(200);
  await signIn(page, token);
  await scan(page, testInfo, 'articles');
  await page.goto('/console?q=accessible&sort=updated');
  await expect(page.locator('.article-row')).toHaveCount(1);
  await scan(page, testInfo, 'articles-search');

  await openEditor(page, post.id);
  await expect(page.getByRole('region', { name: 'What changes on publish' })).toBeVisible();
  // The readers panel opened, so its counters and chart are scanned too.
  const readers = page.getByRole('region', { name: 'Readers' });
  await readers.getByText('Readers', { exact: true }).click();
  await expect(readers.getByRole('img')).toBeVisible();
  await scan(page, testInfo, 'article-editor');
  await page.getByRole('button', { name: 'Insert island…' }).click();
  await expect(page.getByRole('group', { name: 'Insert an island' })).toBeVisible();
  await scan(page, testInfo, 'article-editor-insert-menu');
  await page.keyboard.press('Escape');
  const history = page.getByRole('region', { name: 'History' });
  await history.getByRole('button', { name: 'Show changes' }).click();
  await expect(page.locator('iframe[title="Changes between the two saves"]')).toBeVisible();
  await scan(page, testInfo, 'article-editor-history');

  // Something waiting in the moderation queue, with markup the sanitizer removed.
  const moderated = tokenOf('moderated');
  const waiting = await createPost(moderated, {
    title: 'Waiting for the scan',
    markdown: 'Text.\n\n<script>alert(1)</script>\n\n<iframe src="https://tracker.example/x"></iframe>',
  });
  await publish(moderated, waiting.id);
  for (const [path, name] of [
    ['/console/articles/new', 'new-article'],
    ['/console/media', 'media'],
    ['/console/account', 'account'],
    ['/console/moderation', 'moderation'],
    ['/console/api-guide', 'api-guide'],
    ['/console/api-reference', 'api-reference'],
  ] as const) {
    await page.goto(path);
    if (name === 'moderation')
      await expect(page.getByRole('heading', { name: 'Removed from what readers see' })).toBeVisible();
    await scan(page, testInfo, name);
  }
  // The queue as it was for the other specs.
  await page.goto('/console/moderation');
  const item = page.locator('.queue__item', { hasText: 'Waiting for the scan' });
  await item.getByLabel('Reason for rejecting').fill('Scanned.');
  await item.getByRole('button', { name: 'Reject' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
  await expect(page.getByText('Rejected: the article is back to draft')).toBeVisible();
  // A non-admin's moderation page: the console's own 404.
  await signOut(page);
  await signIn(page, tokenOf('author'));
  await page.goto('/console/moderation');
  await scan(page, testInfo, 'moderation-not-admin');
});

test('a public page with code blocks passes axe, its long code reachable by keyboard, in a main landmark', async ({
  page,
}, testInfo) => {
  const token = tokenOf('author');
  const long = `const line = '${'x'.repeat(300)}';`;
  const post = await createPost(token, {
    title: 'Code on the public page',
    markdown: `Some code:\n\n\`\`\`js\n${long}\nconsole.log(line);\n\`\`\`\n\nAnd \`inline\` code.\n\n    indented code ${'y'.repeat(200)}\n`,
  });
  await publish(token, post.id);
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(post.canonical_path);
  await expect(page.getByRole('main')).toBeVisible();
  await scan(page, testInfo, 'public-page-with-code');
  const results = await new AxeBuilder({ page })
    .withRules(['scrollable-region-focusable', 'landmark-one-main'])
    .analyze();
  expect(results.violations.map((v) => v.id)).toEqual([]);
  await page.keyboard.press('Tab');
  await expect(page.locator('pre').first()).toBeFocused();
});

/** Tabs forward until the focused element matches, checking each stop shows a focus ring. */
async function tabTo(page: Page, matches: (el: { id: string; text: string }) => boolean): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const style = getComputedStyle(el);
      return {
        id: el.id,
        text: (el.textContent ?? '').trim(),
        tag: el.tagName.toLowerCase(),
        ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
      };
    });
    if (!focused || focused.tag === 'iframe') continue; // frames draw their own focus
    expect(focused.ring, `focus ring on <${focused.tag}> ${focused.id || focused.text.slice(0, 40)}`).toBe(true);
    if (matches(focused)) return;
  }
  throw new Error('element not reached by Tab');
}

test('the editor is usable from the keyboard alone, with a visible focus ring at every stop', async ({ page }) => {
  const token = tokenOf('admin');
  const post = await createPost(token, { title: 'Keyboard only', markdown: 'Typed with keys.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await expect(markdownText(page)).toHaveValue('Typed with keys.');
  await page.locator('body').click({ position: { x: 1, y: 1 } });

  await tabTo(page, (el) => el.id === 'markdown');
  await page.keyboard.press('End');
  await page.keyboard.type(' And more keys.');
  await tabTo(page, (el) => el.text === 'Save');
  await page.keyboard.press('Enter');
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();
  expect((await api<{ html: string }>(token, 'GET', `/posts/${post.id}`)).body.html).toContain('And more keys.');
});
