/**
 * The piscina worker's task function; its entry (runtime/content-worker-entry.ts, which adds the
 * thread's spans when traces are on) is bundled to dist/content-worker.mjs by scripts/build-server.mjs.
 * Rejections travel back as data; anything else is a real fault and is rethrown.
 */
import { workerData } from 'node:worker_threads';
import { diffArticleZones } from './block-diff';
import { BlockParseCache } from './block-parse';
import { ContentRejectedError, REJECT } from './errors';
import { assertEditMapPatch } from './micromark-edit-map';
import { parseMarkdownSync, renderArticleSync } from './pipeline';
import { parseOfferedPart, renderArticleInParts } from './parallel-parse';
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
  // A document's worker may offer parts of it on the same port (parallel-parse.ts) before closing it.
  if (!('input' in task)) task.started.close();
  if ('part' in task) {
    const parsed = parseOfferedPart(task.part, parseMarkdownSync);
    const cpuMs = started.cpuMs === null ? null : threadCpuMs(threadId!)! - started.cpuMs;
    return { ok: true, parsed, cpuMs };
  }
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
  const whole = { parts: 1, partsByHelpers: 0 };
  try {
    // 'alone': offered to nobody, every part is the document's worker's own (bench/content-shapes.ts).
    const mode = settings?.parseInParts ?? 'shared';
    const inParts =
      mode === 'off'
        ? null
        : renderArticleInParts(
            input,
            (offer, transfer) => {
              if (mode === 'shared') task.started.postMessage(offer, transfer);
              else for (const port of transfer) port.close();
            },
            settings?.partsFromChars,
          );
    if (inParts) {
      const { output, parts, byHelpers } = inParts;
      return {
        ok: true,
        output,
        parse: { reused: 0, parsed: input.markdown.length, parts, partsByHelpers: byHelpers },
      };
    }
    if (!parsedBlocks) {
      const output = renderArticleSync(input);
      return { ok: true, output, parse: { reused: 0, parsed: input.markdown.length, ...whole } };
    }
    const { reused, parsed } = parsedBlocks.counts;
    const output = renderArticleSync(input, { cache: parsedBlocks, scope: owner });
    const counts = { reused: parsedBlocks.counts.reused - reused, parsed: parsedBlocks.counts.parsed - parsed };
    return { ok: true, output, parse: { ...counts, ...whole } };
  } catch (error) {
    if (error instanceof ContentRejectedError) return { ok: false, rejection: error.message };
    if (error instanceof RangeError) return { ok: false, rejection: REJECT.stackExhausted };
    throw error;
  } finally {
    task.started.close();
  }
}
