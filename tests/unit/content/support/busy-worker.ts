/**
 * A worker thread for worker-thread.test.ts: lowers its own priority as a conversion worker does,
 * computes until it has used `cpuMs` of CPU time (its own, read from /proc; at most 10 s by the
 * clock, so that a machine busy with other work gives it time but cannot keep it forever), says
 * who it is, and stays alive until told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { currentThreadId, lowerThreadPriority, threadCpuMs } from '../../../../server/content/worker-thread';

const { nice, cpuMs } = workerData as { nice: number; cpuMs: number };
lowerThreadPriority(nice);
const tid = currentThreadId();
const before = tid === null ? null : threadCpuMs(tid);
const deadline = Date.now() + 10_000;
const used = () => (tid === null || before === null ? Infinity : threadCpuMs(tid)! - before);
let spins = 0;
while (Date.now() < deadline && used() < cpuMs) for (let i = 0; i < 100_000; i++) spins++;
parentPort!.postMessage({ tid, before, spins });
parentPort!.once('message', () => process.exit(0));
