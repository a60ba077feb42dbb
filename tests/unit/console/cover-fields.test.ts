import { describe, expect, it } from 'vitest';
import { changedFields, keepMine, normalizedFields } from '@/app/console/articles/[id]/field-changes';
import type { ArticleFields, EditorFields } from '@/server/console/editor-fields';

const texts: EditorFields = { title: 'T', subtitle: 'S', slug: 't', tags: 'a', markdown: 'One' };
const fields = (cover: string, over: Partial<EditorFields> = {}): ArticleFields => ({
  ...texts,
  ...over,
  cover_asset_id: cover,
});
const A = '3f1c2a1e-4b5d-4c6e-8f70-0123456789ab';
const B = '9a8b7c6d-5e4f-4a3b-9c2d-ba9876543210';

describe('the cover as an editor field', () => {
  it('choosing, changing or removing the cover is a change; the same cover is not', () => {
    expect(changedFields(fields(A), fields(''))).toEqual(['cover_asset_id']);
    expect(changedFields(fields(B), fields(A))).toEqual(['cover_asset_id']);
    expect(changedFields(fields(''), fields(A))).toEqual(['cover_asset_id']);
    expect(changedFields(fields(A), fields(A))).toEqual([]);
    expect(changedFields(fields(A, { title: 'New' }), fields(''))).toEqual(['title', 'cover_asset_id']);
  });

  it('a side that carries only the texts (a draft, a version loaded to compare) leaves the cover out', () => {
    expect(changedFields(texts, fields(A))).toEqual([]);
    expect(changedFields(fields(A), texts)).toEqual([]);
  });

  it('"keep my text" keeps a cover chosen here and takes the current texts otherwise', () => {
    const base = fields('');
    const mine = fields(A);
    const theirs = fields('', { title: 'Theirs' });
    expect(keepMine(mine, base, theirs)).toEqual(fields(A, { title: 'Theirs' }));
    expect(keepMine(fields(''), base, fields(B))).toEqual(fields(B));
  });

  it('normalizing line endings keeps the cover', () => {
    expect(normalizedFields(fields(A, { markdown: 'a\r\nb' }))).toEqual(fields(A, { markdown: 'a\nb' }));
  });
});
