/**
 * Piscina worker entry, bundled to dist/content-worker.mjs by scripts/build-server.mjs.
 * Rejections travel back as data; anything else is a real fault and is rethrown.
 */
import { ContentRejectedError, REJECT } from './errors';
import { renderArticleSync } from './pipeline';
import { rewriteImageSourcesSync } from './rewrite';
import type { RenderResult, RenderTask, RewriteResult, RewriteTask } from './task';

export default function render(task: RenderTask | RewriteTask): RenderResult | RewriteResult {
  task.started.postMessage('started');
  task.started.close();
  if ('rewrite' in task) {
    try {
      return { ok: true, html: rewriteImageSourcesSync(task.rewrite.html, task.rewrite.rehosted) };
    } catch (error) {
      if (error instanceof RangeError) return { ok: false, rejection: REJECT.stackExhausted };
      throw error;
    }
  }
  const { input } = task;
  try {
    return { ok: true, output: renderArticleSync(input) };
  } catch (error) {
    if (error instanceof ContentRejectedError) return { ok: false, rejection: error.message };
    if (error instanceof RangeError) return { ok: false, rejection: REJECT.stackExhausted };
    throw error;
  }
}
