/**
 * Piscina worker entry, bundled to dist/content-worker.mjs by scripts/build-server.mjs.
 * Rejections travel back as data; anything else is a real fault and is rethrown.
 */
import { workerData } from 'node:worker_threads';
import { diffArticleZones } from './block-diff';
import { BlockParseCache } from './block-parse';
import { ContentRejectedError, REJECT } from './errors';
import { assertEditMapPatch } from './micromark-edit-map';
import { parseMarkdownSync, renderArticleSync } from './pipeline';
import { rewriteImageSourcesSync } from './rewrite';
import type { PoolResult, PoolTask, WorkerSettings, WorkerStarted } from './task';
import { currentThreadId, lowerThreadPriority, threadCpuMs } from './worker-thread';

// Once per thread, before any conversion: micromark's linear EditMap.consume is installed and the
// parser goes through it, or this thread fails to start with the package's version in the message
// (micromark-edit-map.ts), rather than converting list-heavy documents in quadratic time.
assertEditMapPatch(parseMarkdownSync);

const settings = workerData as WorkerSettings | undefined;
// Once per thread: conversions yield the CPU to the event loop (worker-thread.ts says why).
lowerThreadPriority(settings?.nice ?? 0);
const threadId = currentThreadId();
/** This thread's recently parsed blocks, per account: an edit parses only what it changed. */
const parsedBlocks = settings?.reuseParsedBlocks === false ? undefined : new BlockParseCache();

export default function render(task: PoolTask): PoolResult {
  const started: WorkerStarted = { tid: threadId, cpuMs: threadId === null ? null : threadCpuMs(threadId) };
  task.started.postMessage(started);
  task.started.close();
  // Bounded by its own work budget: past it the body is reported as changed, never an error.
  if ('diff' in task) return { ok: true, zones: diffArticleZones(task.diff.before, task.diff.after) };
  if ('rewrite' in task) {
    try {
      return { ok: true, html: rewriteImageSourcesSync(task.rewrite.html, task.rewrite.rehosted) };
    } catch (error) {
      if (error instanceof RangeError) return { ok: false, rejection: REJECT.stackExhausted };
      throw error;
    }
  }
  const { input, owner } = task;
  try {
    if (!parsedBlocks) {
      const output = renderArticleSync(input);
      return { ok: true, output, parse: { reused: 0, parsed: input.markdown.length } };
    }
    const { reused, parsed } = parsedBlocks.counts;
    const output = renderArticleSync(input, { cache: parsedBlocks, scope: owner });
    const parse = { reused: parsedBlocks.counts.reused - reused, parsed: parsedBlocks.counts.parsed - parsed };
    return { ok: true, output, parse };
  } catch (error) {
    if (error instanceof ContentRejectedError) return { ok: false, rejection: error.message };
    if (error instanceof RangeError) return { ok: false, rejection: REJECT.stackExhausted };
    throw error;
  }
}
