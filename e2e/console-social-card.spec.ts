import { createPost, publish } from './support/api';
import { expect, openEditor, signIn, test } from './support/console';
import { tokenOf } from './support/state';

/**
 * "When shared": the article page shows the card networks draw from the public page's Open
 * Graph tags, and it says what the public page itself says.
 */

/** The content of one `<meta property="…">` of a document, unescaped. */
function metaContent(html: string, property: string): string | null {
  const head = html.slice(0, html.indexOf('</head>'));
  const tag = head.match(/<meta\b[^>]*>/g)?.find((t) => t.includes(`property="${property}"`));
  const content = tag ? /content="([^"]*)"/.exec(tag)?.[1] : undefined;
  return content === undefined
    ? null
    : content.replace(
        /&(amp|lt|gt|quot|#39);/g,
        (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!,
      );
}

test('the article page shows how a published article looks when shared, as its public page tags it', async ({
  page,
  request,
}) => {
  const token = tokenOf('author');
  const post = await createPost(token, {
    title: 'Harbour lights at dusk',
    subtitle: 'Which lamp means what, before you sail in',
    markdown: 'Green to starboard, red to port.',
  });
  const published = await publish(token, post.id);

  await signIn(page, token);
  await openEditor(page, post.id);
  const card = page.getByRole('region', { name: 'When shared' });
  await expect(card).toBeVisible();
  await expect(card.getByText('Harbour lights at dusk', { exact: true })).toBeVisible();
  await expect(card.getByText('Which lamp means what, before you sail in', { exact: true })).toBeVisible();
  await expect(card.getByText('Public now', { exact: true })).toBeVisible();
  // No cover: the text card, said in words.
  await expect(card.getByText('No cover: networks show a text card')).toBeVisible();

  const res = await request.get(published.canonical_path);
  expect(res.status()).toBe(200);
  const html = await res.text();
  const ogTitle = metaContent(html, 'og:title');
  const ogDescription = metaContent(html, 'og:description');
  expect(ogTitle).toBe('Harbour lights at dusk');
  expect(ogDescription).toBe('Which lamp means what, before you sail in');
  await expect(card.locator('.social-card__title')).toHaveText(ogTitle!);
  await expect(card.locator('.social-card__description')).toHaveText(ogDescription!);
});

test('a draft shows its card as it will be when published', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Moorings, a draft', markdown: 'First paragraph of the draft.' });

  await signIn(page, token);
  await openEditor(page, post.id);
  const card = page.getByRole('region', { name: 'When shared' });
  await expect(card.getByText('When published', { exact: true })).toBeVisible();
  await expect(card.locator('.social-card__title')).toHaveText('Moorings, a draft');
  // No subtitle: the first paragraph describes it, as on the public page.
  await expect(card.locator('.social-card__description')).toHaveText('First paragraph of the draft.');
});
