/**
 * A response body for a large text (an article's Markdown, a preview frame of a near-2 MB
 * article), encoded to UTF-8 a piece at a time with a turn of the event loop between pieces.
 * Handed a string, a `Response` encodes it whole before the first byte leaves: about 8 ms for
 * 2 MB on a small machine, during which nothing else the process serves is answered. In pieces,
 * other requests are answered between them (bench/editor-page.ts).
 */

/** Characters encoded per turn: well under a millisecond of work. */
const PIECE_CHARS = 64 * 1024;

const encoder = new TextEncoder();

export function piecewiseBody(text: string): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // A turn of the event loop first: whoever reads the stream may ask for the next piece at
      // once, and pieces asked for in one turn would be one block of work again.
      if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      let end = Math.min(text.length, at + PIECE_CHARS);
      // Never between the two halves of a surrogate pair: each would be encoded as U+FFFD.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      controller.enqueue(encoder.encode(text.slice(at, end)));
      at = end;
      if (at >= text.length) controller.close();
    },
  });
}

/** The text as one body when it is small, in pieces when encoding it would be a long block. */
export function textBody(text: string): string | ReadableStream<Uint8Array> {
  return text.length <= PIECE_CHARS ? text : piecewiseBody(text);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
