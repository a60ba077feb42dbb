import { api, createPost, type ApiPost } from './support/api';
import { expect, markdownText, signIn, test } from './support/console';
import { tokenOf } from './support/state';

/**
 * An article past the sizes the editor treats apart (server/console/editor-fields.ts): over
 * DEFERRED_MARKDOWN_CHARS its text is not in the page but loaded once the page shows; over
 * LIVE_PREVIEW_MAX_CHARS the unsaved text is not posted to the live preview on every pause
 * (reading a megabyte form would hold the server for everyone), and the saved version is
 * previewed once saved. Everything else works as for a short article.
 */

/** Prose sections up to `chars` characters, each ending with its own number. */
function prose(chars: number): string {
  const sections: string[] = [];
  let length = 0;
  for (let n = 1; length < chars; n++) {
    const block = `## Section ${n}\n\nThe boats left the harbour at dawn, when the water was still, on day ${n}.`;
    sections.push(block);
    length += block.length + 2;
  }
  return sections.join('\n\n');
}

test('a 1 MB article loads its text after the page, previews the saved version, and saves without a live preview', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const token = tokenOf('author');
  const markdown = prose(1_050_000);
  const post = await createPost(token, { title: 'A very long article', markdown });
  await signIn(page, token);

  const livePosts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().includes('/console/preview/live')) livePosts.push(request.url());
  });
  const answer = await page.goto(`/console/articles/${post.id}`);
  // The page itself carries none of the text: it comes afterwards, as plain text.
  expect((await answer!.text()).length).toBeLessThan(200_000);
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeEnabled();
  const field = markdownText(page);
  await expect.poll(() => field.evaluate((el) => (el as HTMLTextAreaElement).value.length)).toBe(markdown.length);
  expect(await field.evaluate((el, expected) => (el as HTMLTextAreaElement).value === expected, markdown)).toBe(true);

  // The saved version is previewed, to its last section.
  const lastSection = /## (Section \d+)\n\n[^\n]*$/.exec(markdown)![1]!;
  const preview = page.frameLocator('iframe[title="Article preview"]');
  await expect(preview.getByRole('heading', { name: lastSection, exact: true })).toBeAttached({ timeout: 30_000 });

  // Typing past the live preview's size: nothing is posted, the panel says why.
  await page.getByLabel('Markdown').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n\nA closing line typed in the console.');
  await expect(page.getByText(/too long to preview while typing: save to see it/)).toBeVisible();
  await page.waitForTimeout(1_500);
  expect(livePosts).toEqual([]);

  // A megabyte takes a few seconds to convert on a small machine.
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible({ timeout: 60_000 });
  const stored = await api<ApiPost & { html: string }>(token, 'GET', `/posts/${post.id}`);
  expect(stored.body.html).toContain('<p>A closing line typed in the console.</p>');
  await expect(preview.getByText('A closing line typed in the console.')).toBeAttached({ timeout: 30_000 });
  expect(livePosts).toEqual([]);
});
