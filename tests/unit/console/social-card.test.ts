/**
 * "When shared": the console's social card is read from the public page's own document
 * (renderArticlePage), so it must carry exactly the page's og: tags, for an article with a
 * cover and subtitle, and fall back as the page does without them; its display cuts title and
 * description where networks cut them.
 */
import { describe, expect, it } from 'vitest';
import {
  CARD_DESCRIPTION_MAX,
  CARD_TITLE_MAX,
  metaTagsOf,
  socialCardOfDocument,
  socialCardOfPage,
  truncateForCard,
} from '@/server/console/social-card';
import { renderArticlePage, type ArticlePage } from '@/server/reader-pages/article-page';
import type { PostVersion } from '@/server/data/posts/rows';

const ORIGIN = 'https://blog.example';

function version(over: Partial<PostVersion> = {}): PostVersion {
  return {
    title: 'Tide tables & "gulls"',
    subtitle: 'Read <before> sailing',
    slug: 'tide-tables',
    html: '<h1>Tide tables</h1><p>High water at <em>six</em> &amp; low at noon.</p>',
    tags: [{ slug: 'sea', name: 'Sea' }],
    cover: { url: '/api/media/0b0e8a1c-7f2e-4a8e-9a51-2f3c4d5e6f70', width: 1200, height: 630 },
    ...over,
  };
}

function page(v: PostVersion, origin: string | null = ORIGIN): ArticlePage {
  return {
    version: v,
    path: `/${v.slug}-abcdefghjk`,
    publicId: 'abcdefghjk',
    publishedAt: '2024-05-01T10:00:00.000Z',
    handle: 'writer',
    origin,
  };
}

/**
 * The og: tags as a crawler reads them, by a deliberately different reader than the module's
 * (any attribute order, either quote), first tag of each name.
 */
function crawl(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  const head = html.slice(0, html.indexOf('</head>'));
  for (const tag of head.match(/<meta\b[^>]*>/g) ?? []) {
    const name = /(?:property|name)=(["'])(.*?)\1/.exec(tag)?.[2];
    const content = /content=(["'])(.*?)\1/.exec(tag)?.[2];
    if (!name || content === undefined) continue;
    out[name] ??= content.replace(
      /&(amp|lt|gt|quot|#39);/g,
      (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!,
    );
  }
  return out;
}

describe('socialCardOfPage', () => {
  it('carries the public page’s og: tags exactly for a published article with a cover and subtitle', () => {
    const p = page(version());
    const og = crawl(renderArticlePage(p));
    const card = socialCardOfPage(p, 'published');
    expect(card).toEqual({
      state: 'published',
      title: og['og:title'],
      description: og['og:description'],
      image: {
        url: og['og:image'],
        src: '/api/media/0b0e8a1c-7f2e-4a8e-9a51-2f3c4d5e6f70',
        width: Number(og['og:image:width']),
        height: Number(og['og:image:height']),
      },
      url: og['og:url'],
      siteName: null,
      domain: 'blog.example',
      twitterCard: 'summary_large_image',
    });
    // And those are the article's own fields, unescaped.
    expect(card.title).toBe('Tide tables & "gulls"');
    expect(card.description).toBe('Read <before> sailing');
    expect(card.image?.url).toBe(`${ORIGIN}/api/media/0b0e8a1c-7f2e-4a8e-9a51-2f3c4d5e6f70`);
    expect(card.url).toBe(`${ORIGIN}/tide-tables-abcdefghjk`);
  });

  it('without a subtitle describes the article by its first paragraph, as the page does', () => {
    const p = page(version({ subtitle: null }));
    const card = socialCardOfPage(p, 'published');
    expect(card.description).toBe(crawl(renderArticlePage(p))['og:description']);
    expect(card.description).toBe('High water at six & low at noon.');
  });

  it('without a cover has no image and a summary card', () => {
    const card = socialCardOfPage(page(version({ cover: null })), 'when_published');
    expect(card.state).toBe('when_published');
    expect(card.image).toBeNull();
    expect(card.twitterCard).toBe('summary');
    expect(card.title).toBe('Tide tables & "gulls"');
  });

  it('without PUBLIC_ORIGIN has no address and no image, even with a cover', () => {
    const card = socialCardOfPage(page(version(), null), 'published');
    expect(card.url).toBeNull();
    expect(card.domain).toBeNull();
    expect(card.image).toBeNull();
    // The page still announces a large card: the console says the cover is not shared.
    expect(card.twitterCard).toBe('summary_large_image');
  });
});

describe('metaTagsOf', () => {
  it('reads the head only, the first tag of each name', () => {
    const doc =
      '<html><head><meta property="og:title" content="First"><meta property="og:title" content="Second"></head>' +
      '<body><meta property="og:description" content="From the body"></body></html>';
    const tags = metaTagsOf(doc);
    expect(tags.get('og:title')).toBe('First');
    expect(tags.has('og:description')).toBe(false);
  });

  it('leaves out an unreadable image size', () => {
    const doc =
      '<head><meta property="og:image" content="https://x.example/a.png"><meta property="og:image:width" content="wide"></head>';
    expect(socialCardOfDocument(doc, 'published').image).toEqual({
      url: 'https://x.example/a.png',
      src: '/a.png',
      width: null,
      height: null,
    });
  });
});

describe('truncateForCard', () => {
  it('keeps text up to the limit whole', () => {
    const title = 'x'.repeat(CARD_TITLE_MAX);
    expect(truncateForCard(title, CARD_TITLE_MAX)).toBe(title);
  });

  it('cuts a longer title to 70 characters, the last an ellipsis', () => {
    const cut = truncateForCard('word '.repeat(30), CARD_TITLE_MAX);
    expect(Array.from(cut).length).toBeLessThanOrEqual(CARD_TITLE_MAX);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut).not.toMatch(/\s…$/);
  });

  it('cuts a longer description at 160 characters', () => {
    const cut = truncateForCard('a'.repeat(200), CARD_DESCRIPTION_MAX);
    expect(cut).toBe(`${'a'.repeat(CARD_DESCRIPTION_MAX - 1)}…`);
  });

  it('never splits a character outside the basic plane', () => {
    const cut = truncateForCard('🌊'.repeat(80), CARD_TITLE_MAX);
    expect(cut).toBe(`${'🌊'.repeat(CARD_TITLE_MAX - 1)}…`);
  });
});
