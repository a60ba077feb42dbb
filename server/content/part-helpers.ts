/**
 * The pool's side of a large document's parse in parts (parallel-parse.ts): the parts its worker
 * offers are queued as spare work under the document's account (fair-queue.ts `enqueueSpare`:
 * only on workers nobody else waits for), last part first (the document's worker takes them
 * from the first on, so the two meet in the middle), each in the document's lane, under its abort
 * signal and within its CPU budget (conversion-cpu.ts). Once the document is done, parts still
 * queued are dropped; a part a helper failed on (out of memory, a fault) stops the document.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { FairQueue } from './fair-queue';
import type { ConversionCpuWatch } from './conversion-cpu';
import type { PartResult, PartsOffer, PoolResult, PoolTask, WorkerStarted } from './task';

export interface PartHelpersContext {
  queue: FairQueue;
  owner: string;
  /** Runs a task in the document's lane under its abort signal. */
  run: (task: PoolTask, transferList: MessagePort[]) => Promise<PoolResult>;
  signal: AbortSignal;
  watch: ConversionCpuWatch;
  /** A helper failed otherwise than by finding its part taken: the document cannot be finished. */
  failed: (error: unknown) => void;
}

/** Queues a task for each offered part; returns what drops those not started yet. */
export function queuePartHelpers(offer: PartsOffer, context: PartHelpersContext): () => void {
  const drops: (() => void)[] = [];
  for (const part of [...offer.parts].reverse()) {
    const { port1, port2 } = new MessageChannel();
    const share = context.watch.share();
    port1.once('message', (worker: WorkerStarted) => share.started(worker));
    const job = context.queue.enqueueSpare(context.owner, async () => {
      if (context.signal.aborted) {
        part.port.close();
        port2.close();
        return { ok: true, parsed: false, cpuMs: 0 } satisfies PartResult;
      }
      return context.run({ part, started: port2 }, [port2, part.port]);
    });
    job.result.then(
      (result) => share.finished((result as PartResult).cpuMs),
      (error: unknown) => {
        share.finished(0);
        if (!context.signal.aborted) context.failed(error);
      },
    );
    void job.result.finally(() => port1.close()).catch(() => undefined);
    drops.push(() => {
      if (!job.cancel()) return;
      share.finished(0);
      part.port.close();
      port1.close();
      port2.close();
    });
  }
  return () => {
    for (const drop of drops) drop();
  };
}
