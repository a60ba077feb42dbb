/**
 * The conversion worker's entry, bundled to dist/content-worker.mjs (scripts/build-server.mjs):
 * content/worker.ts's task function, in a thread that records its own spans when traces are on.
 * It lives in the runtime because the SDK is started here (tracing-sdk.ts), which the content
 * floor may not import.
 *
 * Off, the export is content/worker.ts's function itself: nothing wraps a task. On, each task
 * that came with a `traceparent` (pool.ts sends the one of its `conversion` span) runs in a
 * `conversion.worker` span under it, so a trace shows the time in the worker beside the time in
 * the queue.
 */
import convert from '../content/worker';
import type { PoolResult, PoolTask } from '../content/task';
import { contextOf, inSpanSync, TRACING } from '../foundation/tracing';
import { startTracing } from './tracing-sdk';

if (TRACING) await startTracing('conversion');

function tracedConvert(task: PoolTask): PoolResult {
  if (!task.traceparent) return convert(task);
  return inSpanSync(
    'conversion.worker',
    { parent: contextOf(task.traceparent), attributes: { 'conversion.task': taskKind(task) } },
    (span) => {
      const result = convert(task);
      if ('parse' in result && result.ok) {
        span.setAttribute('conversion.parsed_characters', result.parse.parsed);
        span.setAttribute('conversion.reused_characters', result.parse.reused);
      }
      if (!result.ok) span.setAttribute('error.type', 'content_rejected');
      return result;
    },
  );
}

const taskKind = (task: PoolTask) =>
  'diff' in task ? 'diff' : 'rewrite' in task ? 'rewrite' : 'part' in task ? 'part' : 'render';

export default TRACING ? tracedConvert : convert;
