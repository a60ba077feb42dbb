/**
 * A worker thread for worker-thread.test.ts: lowers its own priority as a conversion worker does,
 * spins for a while, says who it is, and stays alive until told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { currentThreadId, lowerThreadPriority, threadCpuMs } from '../../../../server/content/worker-thread';

const { nice, spinMs } = workerData as { nice: number; spinMs: number };
lowerThreadPriority(nice);
const tid = currentThreadId();
const before = tid === null ? null : threadCpuMs(tid);
const until = Date.now() + spinMs;
let spins = 0;
while (Date.now() < until) spins++;
parentPort!.postMessage({ tid, before, spins });
parentPort!.once('message', () => process.exit(0));
