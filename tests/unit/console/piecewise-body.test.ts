/**
 * A large text's response body in pieces (server/console/piecewise-body.ts): whatever the text,
 * the bytes are exactly its UTF-8, never a surrogate pair cut in two, and more than one piece
 * once it is long.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { piecewiseBody, textBody } from '../../../server/console/piecewise-body';

async function bytesOf(body: ReadableStream<Uint8Array>): Promise<{ bytes: Buffer; pieces: number }> {
  const chunks: Uint8Array[] = [];
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
  return { bytes: Buffer.concat(chunks), pieces: chunks.length };
}

const PIECE = 64 * 1024;

describe('piecewiseBody', () => {
  it('sends exactly the UTF-8 of any text, astral characters across piece boundaries included', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 * PIECE + 3 }),
        fc.constantFrom('a', 'é', '😀', '中'),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        async (length, filler, tail) => {
          runs++;
          // Filler up to about `length` UTF-16 units, so boundaries fall inside pairs as well.
          const text =
            filler
              .repeat(Math.ceil(length / filler.length))
              .slice(0, length)
              .replace(/[\ud800-\udbff]$/, '') + tail;
          const { bytes } = await bytesOf(piecewiseBody(text));
          expect(bytes.equals(Buffer.from(text, 'utf8'))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
    expect(runs).toBeGreaterThanOrEqual(60);
  });

  it('cuts a long text into pieces, and never a pair at the boundary', async () => {
    const text = `${'a'.repeat(PIECE - 1)}😀${'b'.repeat(PIECE)}`;
    const { bytes, pieces } = await bytesOf(piecewiseBody(text));
    expect(pieces).toBeGreaterThan(1);
    expect(bytes.toString('utf8')).toBe(text);
    expect(bytes.includes(Buffer.from('\ufffd', 'utf8'))).toBe(false);
  });

  it('sends a short text as it is, a long one as a stream', () => {
    expect(textBody('short')).toBe('short');
    expect(textBody('x'.repeat(PIECE + 1))).toBeInstanceOf(ReadableStream);
  });
});
