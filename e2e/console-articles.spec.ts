import { api, createPost } from './support/api';
import {
  confirm,
  editorReady,
  expect,
  saveEditor,
  screenshot,
  signIn,
  test,
  openEditor,
  markdownText,
} from './support/console';
import { tokenOf } from './support/state';

/**
 * The author's path through the console: sign in, list, open, preview, edit with live
 * preview, publish, see the public page, change the working text (readers keep the
 * published version), unpublish (the public page is gone).
 */
test('sign in, list, open, preview, edit with live preview, publish, public page, unpublish', async ({
  page,
  request,
}) => {
  const token = tokenOf('author');
  const post = await createPost(token, {
    title: 'Field notes from the harbour',
    subtitle: 'Three mornings of fog',
    tags: ['travel', 'notes'],
    markdown: 'The boats left before dawn.\n\n## Second morning\n\n- rope\n- tar\n\n<script>alert(1)</script>',
  });

  await page.goto('/console');
  await screenshot(page, 'sign-in');
  await signIn(page, token);

  // List: the article with its status badge and counters.
  const row = page.getByRole('listitem').filter({ hasText: 'Field notes from the harbour' });
  await expect(row).toBeVisible();
  await expect(row.getByText('Draft', { exact: true })).toBeVisible();
  await expect(row.getByText('Likes')).toBeVisible();
  await screenshot(page, 'articles-list');

  // Open: Markdown on one side, the sandboxed preview of the working version on the other.
  await row.getByRole('link', { name: 'Field notes from the harbour' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Field notes from the harbour' })).toBeVisible();
  await expect(markdownText(page)).toHaveValue(/The boats left before dawn/);
  const frameElement = page.locator('iframe[title="Article preview"]');
  await expect(frameElement).toHaveAttribute('sandbox', '');
  const preview = page.frameLocator('iframe[title="Article preview"]');
  await expect(preview.getByRole('heading', { level: 2, name: 'Second morning' })).toBeVisible();
  await expect(preview.getByText('Three mornings of fog')).toBeVisible();

  // The preview route answers with the sandboxing CSP header itself.
  const previewResponse = await request.get(`/console/preview/${post.id}`);
  expect(previewResponse.status()).toBe(401); // no session cookie in this request context
  const csp = previewResponse.headers()['content-security-policy'] ?? '';
  expect(csp).toContain('sandbox');
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("img-src 'self'");
  expect(csp).toMatch(/frame-src [^;]*https:\/\/www\.youtube\.com/);
  await screenshot(page, 'article-editor');

  // Live preview: typing re-renders on the server after a pause, without saving.
  const markdown = page.getByLabel('Markdown');
  await markdown.fill('The boats left before dawn.\n\n## A new section typed live\n\nStill foggy.');
  await expect(preview.getByRole('heading', { name: 'A new section typed live' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Live preview of your unsaved text' })).toBeVisible();
  await screenshot(page, 'article-live-preview');

  // Save goes through PATCH's rules: an external image is reported in rehost_failed.
  await markdown.fill('The boats left before dawn.\n\n## Published section\n\n![gull](http://203.0.113.9/gull.png)');
  await saveEditor(page);
  await expect(page.getByText('could not be copied into storage')).toBeVisible();
  await expect(page.getByText('http://203.0.113.9/gull.png').first()).toBeVisible();
  await expect(preview.getByRole('heading', { name: 'Published section' })).toBeVisible();

  // Publish (with confirmation).
  await confirm(page, 'Publish');
  await expect(page.getByText('Published: readers now see this version.')).toBeVisible();
  await expect(page.locator('.article-row__meta').getByText('Published', { exact: true })).toBeVisible();
  const publicLink = page.getByRole('link', { name: /^\/field-notes-from-the-harbour-/ });
  await expect(publicLink).toBeVisible();
  const publicPath = (await publicLink.getAttribute('href'))!;
  expect(publicPath).toBe(post.canonical_path);

  // The public page shows the published version, with its metadata.
  const reader = await page.context().newPage();
  await reader.goto(publicPath);
  await expect(reader.getByRole('heading', { level: 1, name: 'Field notes from the harbour' })).toBeVisible();
  await expect(reader.getByRole('heading', { name: 'Published section' })).toBeVisible();
  await expect(reader).toHaveTitle('Field notes from the harbour');
  await expect(reader.locator('meta[name="description"]')).toHaveAttribute('content', 'Three mornings of fog');
  await expect(reader.locator('meta[property="og:title"]')).toHaveAttribute('content', 'Field notes from the harbour');
  await expect(reader.locator('meta[property="og:type"]')).toHaveAttribute('content', 'article');
  await expect(reader.getByText('travel')).toBeVisible();
  await expect(reader.getByText(/Likes|Impressions|Opens/)).toHaveCount(0);
  await screenshot(reader, 'public-article');

  // A later working change is visible in the console but not to readers.
  await markdown.fill('The boats left before dawn.\n\n## Unpublished rewrite\n\nNot yet public.');
  await saveEditor(page);
  await expect(page.locator('.article-row__meta').getByText('Unpublished changes')).toBeVisible();
  // The two versions side by side, in one frame.
  const versions = page.frameLocator('iframe[title="Published and working versions, side by side"]');
  const published = versions.getByRole('region', { name: 'Published version', exact: true });
  await expect(published.getByRole('heading', { name: 'Published section' })).toBeVisible();
  await expect(
    versions.getByRole('region', { name: 'Working version', exact: true }).getByRole('heading', {
      name: 'Unpublished rewrite',
    }),
  ).toBeVisible();
  await screenshot(page, 'article-versions');
  await reader.reload();
  await expect(reader.getByRole('heading', { name: 'Published section' })).toBeVisible();
  await expect(reader.getByText('Unpublished rewrite')).toHaveCount(0);

  // A stale slug before the right public_id redirects to the canonical path.
  const stale = await request.get(`/old-slug-${post.public_id}`, { maxRedirects: 0 });
  expect(stale.status()).toBe(308);
  expect(stale.headers()['location']).toBe(publicPath);

  // Unpublish hides it.
  await confirm(page, 'Unpublish');
  await expect(page.getByText('Unpublished: the public page is gone')).toBeVisible();
  const gone = await reader.goto(publicPath);
  expect(gone!.status()).toBe(404);
});

test('save follows the same write rules as the API and never overwrites a change made elsewhere', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Edited in two places', markdown: 'First text.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await expect(markdownText(page)).toHaveValue('First text.');
  const problem = page.locator('p.error[role="alert"]');

  // The domain's rule and wording, as PATCH /posts/{id} answers it.
  await page.getByLabel('Title', { exact: true }).fill('x'.repeat(301));
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(problem).toHaveText('Not saved. Title: at most 300 characters.');
  await page.getByLabel('Title', { exact: true }).fill('Edited in two places');

  // Subtitle, tags and Markdown: the console refuses what the API refuses, with the API's words.
  const refusals: [label: string, typed: string, json: Record<string, unknown>][] = [
    ['Subtitle', 's'.repeat(501), { subtitle: 's'.repeat(501) }],
    ['Tags', 't'.repeat(51), { tags: ['t'.repeat(51)] }],
    [
      'Tags',
      Array.from({ length: 21 }, (_, i) => `tag${i}`).join(', '),
      { tags: Array.from({ length: 21 }, (_, i) => `tag${i}`) },
    ],
    ['Markdown', '   ', { markdown: '   ' }],
  ];
  for (const [label, typed, json] of refusals) {
    const rest = await api<{ error: string }>(token, 'PATCH', `/posts/${post.id}`, json);
    expect(rest.status, label).toBe(400);
    const field = page.getByLabel(label, { exact: true });
    // The Markdown editor's text is read from the form's copy (support/console.ts markdownText).
    const before = await (label === 'Markdown' ? markdownText(page) : field).inputValue();
    await field.fill(typed);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const words = rest.body.error.charAt(0).toUpperCase() + rest.body.error.slice(1);
    await expect(problem).toHaveText(`Not saved. ${/[.!?]$/.test(words) ? words : `${words}.`}`);
    await field.fill(before);
  }

  // Meanwhile an integration changes the article through the API.
  expect((await api(token, 'PATCH', `/posts/${post.id}`, { markdown: 'Changed by the API.' })).status).toBe(200);
  await page.getByLabel('Markdown').fill('Typed in the console.');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const conflict = page.locator('.conflict[role="alert"]');
  await expect(conflict).toContainText('This article was changed elsewhere');
  await expect(conflict).toContainText('reload the page');
  await screenshot(page, 'article-changed-elsewhere');
  const stored = await api<{ html: string }>(token, 'GET', `/posts/${post.id}`);
  expect(stored.body.html).toContain('Changed by the API.');
  expect(stored.body.html).not.toContain('Typed in the console.');

  // Reloaded through the offered button, the editor starts from the current version and saves normally.
  await conflict.getByRole('button', { name: 'Reload the current version' }).click();
  await editorReady(page); // the reloaded page's editor, not the text box it replaces
  await expect(markdownText(page)).toHaveValue('Changed by the API.');
  await page.getByLabel('Markdown').fill('Changed by the API, then in the console.');
  await saveEditor(page);
  expect((await api<{ html: string }>(token, 'GET', `/posts/${post.id}`)).body.html).toContain('then in the console');
});

test('status filter, cursor paging and the 404s of the public path', async ({ page, request }) => {
  const token = tokenOf('pager');
  for (let i = 1; i <= 23; i++)
    await createPost(token, { title: `Paged article ${String(i).padStart(2, '0')}`, markdown: `Body ${i}` });
  await signIn(page, token);
  await expect(page.getByRole('link', { name: /All\s*23/ })).toBeVisible();
  await expect(page.locator('.article-row')).toHaveCount(20);
  await expect(page.locator('.article-row').first()).toContainText('Paged article 23');
  await page.getByRole('link', { name: 'Next page →' }).click();
  await expect(page.locator('.article-row')).toHaveCount(3);
  await expect(page.locator('.article-row').last()).toContainText('Paged article 01');
  await page.getByRole('link', { name: /Published\s*0/ }).click();
  await expect(page.getByText('Nothing is published yet.')).toBeVisible();
  await screenshot(page, 'articles-empty-filter');

  // Drafts have no public page; neither do made-up paths. /console is never shadowed.
  const draft = await createPost(token, { title: 'Never public', markdown: 'Hidden.' });
  expect((await request.get(draft.canonical_path)).status()).toBe(404);
  expect((await request.get('/no-such-article-0000000000')).status()).toBe(404);
  expect((await request.get('/console', { maxRedirects: 0 })).status()).toBe(200);
});

test('a friendly message when the account limit is reached', async ({ page }) => {
  await signIn(page, tokenOf('limited'));
  // read_per_min=3: a few page loads exhaust the read window. Loaded until refused, since the
  // fixed window may reset between two loads (a minute boundary), never more than twice the limit.
  const problem = page.locator('.problem[role="alert"]');
  for (let i = 0; i < 8 && (await problem.count()) === 0; i++) await page.goto('/console');
  await expect(problem).toContainText('allowed per minute');
  await expect(problem).not.toContainText('{');
  await screenshot(page, 'rate-limited');
});
