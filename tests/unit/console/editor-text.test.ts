import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { changedFields, keepMine } from '@/app/console/articles/[id]/field-changes';
import { playerAddress, videoEmbed } from '@/app/console/articles/[id]/island-snippets';
import { markCursor, placeCursorAnchor } from '@/server/console/preview-cursor';
import type { EditorFields } from '@/server/console/editor-fields';

const fields = (over: Partial<EditorFields> = {}): EditorFields => ({
  title: 'T',
  subtitle: 'S',
  slug: 't',
  tags: 'a, b',
  markdown: 'One\n\nTwo',
  ...over,
});

describe('editor field changes', () => {
  it('line endings alone are never a change', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', ' ', '\n') })), (parts) => {
        const lf = parts.join('\n');
        expect(changedFields(fields({ markdown: lf.replace(/\n/g, '\r\n') }), fields({ markdown: lf }))).toEqual([]);
      }),
    );
  });

  it('"keep my text" keeps my changed fields and takes the others from the current version', () => {
    const base = fields();
    const mine = fields({ markdown: 'Mine' });
    const theirs = fields({ subtitle: 'Changed through the API', title: 'Theirs' });
    expect(keepMine(mine, base, theirs)).toEqual(
      fields({ markdown: 'Mine', subtitle: 'Changed through the API', title: 'Theirs' }),
    );
    expect(changedFields(keepMine(mine, base, theirs), theirs)).toEqual(['markdown']);
  });
});

describe('video addresses', () => {
  it('turns a YouTube page address into its player address', () => {
    expect(playerAddress('https://www.youtube.com/watch?v=dQw4w9WgXcQ')).toBe(
      'https://www.youtube.com/embed/dQw4w9WgXcQ',
    );
    expect(playerAddress('https://youtu.be/dQw4w9WgXcQ?t=42')).toBe(
      'https://www.youtube.com/embed/dQw4w9WgXcQ?start=42',
    );
    expect(videoEmbed('https://m.youtube.com/watch?v=dQw4w9WgXcQ&list=x')).toContain(
      'src="https://www.youtube.com/embed/dQw4w9WgXcQ"',
    );
    expect(() => videoEmbed('https://example.com/watch?v=dQw4w9WgXcQ')).toThrow();
  });
});

describe('preview cursor', () => {
  it('marks the text of the cursor line, after its heading or list prefix, and passes over code and HTML', () => {
    const md = '# Title\n\nFirst\n\n```\ncode\n```\n\n- item _one_';
    const atItem = markCursor(md, md.length);
    expect(placeCursorAnchor(atItem.replace(/\n/g, '|'))).toContain('- <span id="preview-cursor"></span>item _one_');
    const inCode = markCursor(md, md.indexOf('code') + 2);
    expect(placeCursorAnchor(inCode)).toContain('<span id="preview-cursor"></span>First');
    expect(markCursor('<div>\n</div>', 3)).toBe('<div>\n</div>');
    expect(markCursor(md, -1)).toBe(md);
  });
});
