/** The write rules every way in shares (REST schemas, console, domain): same limits, same 400s. */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../server/foundation/errors';
import { parsePostWrite, MARKDOWN_MAX, SUBTITLE_MAX, TITLE_MAX } from '../../../server/services/posts/post-rules';
import { isUuid } from '../../../server/foundation/uuid';
import { CreatePostInput, UpdatePostInput } from '../../../server/api/posts/write.schema';
import { describeZodError } from '../../../server/http/errors';

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('invalid');
    return (err as DomainError).message;
  }
  throw new Error('not refused');
};

describe('parsePostWrite', () => {
  it('trims the title, and the subtitle with "" as null; leaves Markdown as sent', () => {
    expect(parsePostWrite({ title: '  T  ', markdown: ' m ', subtitle: '  ' }, 'create')).toEqual({
      title: 'T',
      markdown: ' m ',
      subtitle: null,
    });
    expect(parsePostWrite({ subtitle: ' s ' }, 'update')).toEqual({ subtitle: 's' });
  });

  it.each([
    [{ markdown: 'x' }, 'create', 'title: is required'],
    [{ title: '   ', markdown: 'x' }, 'create', 'title: must not be empty'],
    [{ title: 'x'.repeat(TITLE_MAX + 1), markdown: 'x' }, 'create', `title: at most ${TITLE_MAX} characters`],
    [{ title: 'x' }, 'create', 'markdown: is required'],
    [{ title: 'x', markdown: ' \n ' }, 'create', 'markdown: must not be empty'],
    [{ markdown: 'x'.repeat(MARKDOWN_MAX + 1) }, 'update', `markdown: at most ${MARKDOWN_MAX} characters`],
    [{ subtitle: 's'.repeat(SUBTITLE_MAX + 1) }, 'update', `subtitle: at most ${SUBTITLE_MAX} characters`],
    [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'update', 'tags: at most 20 tags'],
    [{ slug: 'Not A Slug' }, 'update', 'slug: "Not A Slug" is not a valid slug'],
    [{ cover_asset_id: 'nope' }, 'update', 'cover_asset_id: must be a UUID or null'],
    [{ cover_url: 'ftp://x/y.png' }, 'update', 'cover_url: must be an http(s) URL'],
    [{ cover_url: '/api/media/x', cover_asset_id: null }, 'update', 'cover_url: must be an absolute http(s) URL'],
    [
      { cover_url: 'https://e.com/c.png', cover_asset_id: '11111111-1111-1111-1111-111111111111' },
      'update',
      'send one of them, not both',
    ],
    [{}, 'update', 'body: send at least one field to change'],
    [{ title: undefined }, 'update', 'body: send at least one field to change'],
  ] as const)('refuses %j (%s) naming the field', (input, mode, message) => {
    expect(refusal(() => parsePostWrite(input as never, mode))).toContain(message);
  });

  it('names up to three problems at once, like the REST schemas', () => {
    expect(
      refusal(() => parsePostWrite({ title: '', markdown: '', slug: 'A', subtitle: 'x'.repeat(501) }, 'create')),
    ).toBe('title: must not be empty; markdown: must not be empty; subtitle: at most 500 characters');
  });

  it('gives the same message as the REST schema for the same mistake', () => {
    for (const body of [
      { title: '   ', markdown: 'x' },
      { title: 'x'.repeat(301), markdown: 'x' },
      { title: 'x', markdown: ' ' },
      { title: 'x', markdown: 'x', tags: Array(21).fill('t') },
    ]) {
      const zod = CreatePostInput.safeParse(body);
      expect(zod.success).toBe(false);
      expect(refusal(() => parsePostWrite(body, 'create'))).toBe(describeZodError(zod.error!));
    }
    const zod = UpdatePostInput.safeParse({ id: '11111111-1111-1111-1111-111111111111', subtitle: 'x'.repeat(501) });
    expect(refusal(() => parsePostWrite({ subtitle: 'x'.repeat(501) }, 'update'))).toBe(describeZodError(zod.error!));
  });

  it('accepts a local cover path and any 8-4-4-4-12 hex cover_asset_id', () => {
    expect(() =>
      parsePostWrite({ cover_url: '/api/media/11111111-1111-1111-1111-111111111111' }, 'update'),
    ).not.toThrow();
    expect(() => parsePostWrite({ cover_asset_id: 'ABCDEF00-1111-1111-1111-111111111111' }, 'update')).not.toThrow();
    expect(() => parsePostWrite({ cover_url: 'http://[::1]:9/c.png' }, 'update')).not.toThrow();
  });
});

describe('one UUID pattern for routes, cover_asset_id, console and CLI', () => {
  it('is any 8-4-4-4-12 group of hex digits, either case', () => {
    for (const id of [
      '11111111-1111-1111-1111-111111111111',
      '00000000-0000-0000-0000-000000000000',
      '0F8FAD5B-D9CB-469F-A165-70867728950E',
    ])
      expect(isUuid(id)).toBe(true);
    for (const id of [
      '1111111-1111-1111-1111-111111111111',
      '11111111-1111-1111-1111-11111111111g',
      '{11111111-1111-1111-1111-111111111111}',
      'x',
      5,
    ])
      expect(isUuid(id)).toBe(false);
  });
  it('is what the REST path and cover_asset_id schemas accept', () => {
    const id = '11111111-1111-1111-1111-111111111111';
    expect(UpdatePostInput.safeParse({ id, cover_asset_id: id }).success).toBe(true);
    expect(UpdatePostInput.safeParse({ id: 'not-a-uuid', title: 'x' }).success).toBe(false);
  });
});
