import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPostHandler } from '../../server/api/posts/create.handler';
import { updatePostHandler } from '../../server/api/posts/update.handler';
import type { AuthorContext, AuthorReadFirstContext } from '../../server/api/trpc';
import { createAccount } from '../../server/services/access/accounts';
import { admitterFor, domainDatabase, query } from './support';

/**
 * POST /posts and PATCH /posts/{id} with another article's reader beacon planted in the body,
 * in spellings a lenient server still routes to `/api/reader/…` and in attributes the sanitizer
 * drops on its own: the write succeeds, the stored html keeps none of them, and `warnings`
 * names each one as the author wrote it.
 */
const parts = domainDatabase();
const ID = 'abcdefghij';

async function authorContext() {
  const { account, secret } = await createAccount(parts.db(), `beacon-${randomUUID().slice(0, 8)}`, {});
  return () =>
    ({
      parts: parts.parts(),
      headers: { get: () => null },
      res: { setHeader() {}, chargedTo() {} },
      auth: { account, tokenId: undefined },
      admitAndRead: admitterFor(parts.db(), secret).read,
    }) as unknown as AuthorContext & AuthorReadFirstContext;
}

const removed = (url: string) => `markdown: image "${url}" removed: it points at this service outside /api/media/`;

async function storedHtml(id: string): Promise<string> {
  const [row] = await query<{ html: string }>(parts.db(), 'planted_html', 'SELECT html FROM posts WHERE id = $1', [id]);
  return row!.html;
}

describe('a write with planted beacons', () => {
  it('is saved without them and warns of each, on create and on edit', async () => {
    const ctx = await authorContext();
    const written = [
      `http://localhost:3000//api/reader/${ID}/open.gif`,
      `/api//reader/${ID}/read.gif`,
      `//localhost:3000//api/reader/${ID}/complete.gif`,
      `HTTP://LOCALHOST:3000/API/READER/${ID}/open.gif`,
      `http://localhost:3000/api/x/%2e%2e/reader/${ID}/open.gif`,
    ];
    const markdown = [
      'Text.',
      `![a](${written[0]})`,
      `![b](${written[1]})`,
      `<figure class="dp-figure"><img src="${written[2]}"><figcaption class="dp-figure__caption">C</figcaption></figure>`,
      `<img src="${written[3]}">`,
      `![e](${written[4]})`,
    ].join('\n\n');
    const created = await createPostHandler({ ctx: ctx(), input: { title: 'Planted', markdown } });
    expect(created.warnings).toEqual(written.map(removed));
    expect(created).not.toHaveProperty('rehost_failed');
    const html = await storedHtml(created.id);
    expect(html).not.toContain(ID);
    expect(html).toContain('<p>Text.</p>');

    const more = [
      `http://localhost:3000/api/reader/${ID}/open.gif`,
      `//localhost:3000/api//reader/${ID}/read.gif`,
      `http://127.0.0.1:3000//api/reader/${ID}/complete.gif`,
      `http://localhost:3000/api/./reader/${ID}/open.gif`,
    ];
    const updated = await updatePostHandler({
      ctx: ctx(),
      input: {
        id: created.id,
        markdown: [
          'Edited.',
          `<img alt="no src" srcset="${more[0]} 1x">`,
          `<picture><source srcset="${more[1]}"></picture>`,
          `<video poster="${more[2]}"></video>`,
          `<p style="background-image:url(${more[3]})">Styled</p>`,
        ].join('\n\n'),
      },
    });
    expect(updated.warnings).toEqual(more.map(removed));
    const edited = await storedHtml(created.id);
    expect(edited).not.toContain(ID);
    expect(edited).toContain('Styled');
  });

  it('warns once of a beacon in both src and srcset, of those in a link card, and of a cover_url', async () => {
    const ctx = await authorContext();
    const srcset = `HTTP://LOCALHOST:3000/api//reader/${ID}/open.gif`;
    const favicon = `http://localhost:3000//api/reader/${ID}/read.gif`;
    const media = `http://localhost:3000/api/reader/${ID}/complete.gif`;
    const markdown = [
      `Text with an image: <img src="${srcset}" srcset="${srcset} 2x">`,
      '<a class="dp-link-card" href="https://example.com/" target="_blank" rel="noopener noreferrer" data-dp-link-card>' +
        '<div class="dp-link-card__body"><div class="dp-link-card__title">Title</div>' +
        `<div class="dp-link-card__domain"><img class="dp-link-card__favicon" src="${favicon}"><span class="dp-link-card__domain-label">example.com</span></div></div>` +
        `<div class="dp-link-card__media" style="background-image:url(${media})" role="presentation"></div></a>`,
    ].join('\n\n');
    const cover = `HTTP://LOCALHOST:3000/api/x/..//reader/${ID}/open.gif`;
    const created = await createPostHandler({ ctx: ctx(), input: { title: 'Card', markdown, cover_url: cover } });
    expect(created.warnings).toEqual([
      ...[srcset, favicon, media].map(removed),
      `cover_url: "${cover}" not used: it points at this service outside /api/media/`,
    ]);
    expect(created.cover_url).toBeNull();
    const html = await storedHtml(created.id);
    expect(html).not.toContain(ID);
    expect(html).toContain('dp-link-card');
  });
});
