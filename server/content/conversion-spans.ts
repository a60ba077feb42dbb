import { contextWith, markFailed, startSpan, traceparentOf, type Span } from '../foundation/tracing';
import type { PoolTask } from './task';

/**
 * The spans of one document's trip through the pool (pool.ts; traces on only: the pool does not
 * call this otherwise): `conversion`, from the call to its answer, and under it
 * `conversion.queue`, the wait for a turn in the fair queue. The job carries the `conversion`
 * span's `traceparent`, and the worker thread records `conversion.worker` under it
 * (runtime/content-worker-entry.ts).
 */
interface ConversionSpans {
  /** The document's turn came: the wait ends; the job handed to the worker carries the trace. */
  turn<T extends PoolTask>(task: T): T;
  failed(error: unknown): void;
  end(): void;
}

export function conversionSpans(bytes: number, lane: string): ConversionSpans {
  const conversion = startSpan('conversion', { attributes: { 'conversion.bytes': bytes, 'conversion.lane': lane } });
  let queue: Span | undefined = startSpan('conversion.queue', { parent: contextWith(conversion) });
  const endQueue = () => {
    queue?.end();
    queue = undefined;
  };
  return {
    turn(task) {
      endQueue();
      task.traceparent = traceparentOf(conversion);
      return task;
    },
    failed(error) {
      if (queue) markFailed(queue, error);
      markFailed(conversion, error);
    },
    end() {
      endQueue();
      conversion.end();
    },
  };
}
