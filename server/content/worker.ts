/**
 * Piscina worker entry, bundled to dist/content-worker.mjs by scripts/build-worker.mjs.
 * Rejections travel back as data; anything else is a real fault and is rethrown.
 */
import { ContentRejectedError, REJECT } from './errors';
import { renderArticleSync } from './pipeline';
import type { RenderResult, RenderTask } from './task';

export default function render({ input, started }: RenderTask): RenderResult {
  started.postMessage('started');
  started.close();
  try {
    return { ok: true, output: renderArticleSync(input) };
  } catch (error) {
    if (error instanceof ContentRejectedError) return { ok: false, rejection: error.message };
    if (error instanceof RangeError) return { ok: false, rejection: REJECT.stackExhausted };
    throw error;
  }
}
