import { describe, expect, it } from 'vitest';
import { diffBlocks, inlineEdits, splitBlocks } from '@/server/content/block-diff';
import { diffDocument, publishDiff } from '@/server/console/publish-diff';
import type { ArticleView } from '@/server/reader-pages/article-document';

const base: ArticleView = {
  title: 'Harbour',
  subtitle: 'Fog',
  html: '<h1>Harbour</h1>\n<p>The boats left.</p>\n<figure class="dp-image"><img src="/api/media/a.webp" alt="Boat" width="10" height="10"><figcaption>A <em>boat</em></figcaption></figure>\n<p>End.</p>',
  tags: [{ slug: 'travel', name: 'travel' }],
  cover: null,
};

describe('splitBlocks', () => {
  it('cuts serialized HTML at its top-level elements, keeping nested and void elements whole', () => {
    expect(
      splitBlocks('<p>a <b>b</b></p>\n<hr>\n<figure><img src="x" alt="a > b"><figcaption>c</figcaption></figure>'),
    ).toEqual(['<p>a <b>b</b></p>', '<hr>', '<figure><img src="x" alt="a > b"><figcaption>c</figcaption></figure>']);
  });

  it('keeps loose text and an unbalanced tail instead of dropping them', () => {
    expect(splitBlocks('text <p>x</p> <div>open')).toEqual(['text', '<p>x</p>', '<div>open']);
  });
});

describe('diffBlocks', () => {
  it('marks removed before added within a changed run and keeps common blocks', () => {
    expect(diffBlocks(['a', 'b', 'c'], ['a', 'x', 'c', 'd'])).toEqual([
      { kind: 'same', html: 'a' },
      { kind: 'removed', html: 'b' },
      { kind: 'added', html: 'x' },
      { kind: 'same', html: 'c' },
      { kind: 'added', html: 'd' },
    ]);
  });
});

describe('inlineEdits', () => {
  it('marks words inside a plain-text block edited in place, but not across markup or element changes', () => {
    expect(
      inlineEdits([
        { kind: 'removed', html: '<p>Low water at noon.</p>' },
        { kind: 'added', html: '<p>Low water at half past twelve.</p>' },
        { kind: 'removed', html: '<p>Plain</p>' },
        { kind: 'added', html: '<h2>Plain</h2>' },
        { kind: 'removed', html: '<p>A <em>b</em></p>' },
        { kind: 'added', html: '<p>A <em>c</em></p>' },
      ]),
    ).toEqual([
      // One changed run: what stays removed first, then the new blocks in their order.
      { kind: 'removed', html: '<p>Plain</p>' },
      { kind: 'removed', html: '<p>A <em>b</em></p>' },
      {
        kind: 'changed',
        html: '<p>Low water at <del class="dp-diff-word">noon</del><ins class="dp-diff-word">half past twelve</ins>.</p>',
      },
      { kind: 'added', html: '<h2>Plain</h2>' },
      { kind: 'added', html: '<p>A <em>c</em></p>' },
    ]);
  });
});

describe('publishDiff', () => {
  it('finds nothing to publish when the versions render the same', () => {
    const diff = publishDiff(base, { ...base });
    expect(diff.changed).toBe(false);
    expect(diffDocument(diff, base)).toContain('Publishing changes nothing readers see.');
  });

  it('reports field changes as text and body changes block by block, images and islands included', () => {
    const working: ArticleView = {
      ...base,
      title: 'Harbour at dawn',
      subtitle: null,
      html: base.html
        .replace('<p>The boats left.</p>', '<p>The boats left early.</p>')
        .replace(/<figure[\s\S]*<\/figure>/, '<details><summary>Spoiler</summary><p>Hidden</p></details>'),
      tags: [
        { slug: 'travel', name: 'travel' },
        { slug: 'sea', name: 'sea' },
      ],
      cover: { url: '/api/media/c.webp', width: 800, height: 400 },
    };
    const diff = publishDiff(base, working);
    expect(diff.fields).toEqual([
      { field: 'title', before: 'Harbour', after: 'Harbour at dawn' },
      { field: 'subtitle', before: 'Fog', after: '' },
      { field: 'tags', before: 'travel', after: 'travel, sea' },
      { field: 'cover', before: '', after: '/api/media/c.webp (800×400)' },
    ]);
    const removed = diff.body.filter((b) => b.kind === 'removed').map((b) => b.html);
    const added = diff.body.filter((b) => b.kind === 'added').map((b) => b.html);
    expect(diff.body.find((b) => b.kind === 'changed' && b.html.startsWith('<p>'))?.html).toBe(
      '<p>The boats left<ins class="dp-diff-word"> early</ins>.</p>',
    );
    expect(removed.some((h) => h.startsWith('<figure class="dp-image">'))).toBe(true);
    expect(added.some((h) => h.startsWith('<details>'))).toBe(true);
    expect(diff.body.find((b) => b.html === '<p>End.</p>')?.kind).toBe('same');
    expect(diff.cover).toEqual([{ kind: 'added', html: expect.stringContaining('dp-article__cover') }]);

    const doc = diffDocument(diff, working);
    expect(doc).toContain(
      '<div class="dp-diff dp-diff--changed"><span class="dp-diff__label">Changed</span><p>The boats left<ins class="dp-diff-word">',
    );
    expect(doc).toContain('<ins class="dp-diff dp-diff--added"><span class="dp-diff__label">Added</span><details>');
    expect(doc).toContain('<del class="dp-diff dp-diff--removed"><span class="dp-diff__label">Removed</span><figure');
  });

  it('says the body changed, in words and without marks, when the bodies differ past the bound', () => {
    let x = 3;
    const body = () =>
      Array.from({ length: 20_000 }, () => `<p>w${(x = (x * 1103515245 + 12345) % 2147483648) % 5000}</p>`).join('\n');
    const published = { ...base, html: `<h1>Harbour</h1>\n${body()}` };
    const working = { ...base, html: `<h1>Harbour</h1>\n${body()}` };
    const diff = publishDiff(published, working);
    expect(diff.bodyTooLarge).toBe(true);
    expect(diff.changed).toBe(true);
    expect(diff.body).toEqual([]);
    const doc = diffDocument(diff, working);
    expect(doc).toContain('The body changed: too much to mark block by block.');
    expect(doc).not.toContain('<ins class="dp-diff');
    expect(doc).not.toContain('<del class="dp-diff');
    // The working body itself is still shown, as readers will get it.
    expect(doc).toContain(working.html.split('\n')[1]);
  });
});
