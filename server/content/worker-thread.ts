/**
 * What the conversion pool knows of its worker threads through Linux's /proc: a worker's thread
 * id, its scheduling priority, and the CPU time it has used. Elsewhere (no /proc) every function
 * answers "unknown" and the pool falls back to wall-clock budgets at the normal priority.
 *
 * Why: on a small machine one account's slow documents keep a core busy; at the same priority
 * as the event loop they slow every other account's reads and writes. A worker at a lower
 * priority (a higher nice value) still gets every idle cycle, but yields the core to the event
 * loop and to PostgreSQL when they need it. A document's budget is then counted in the CPU time
 * its worker used, not in wall-clock time, so a legitimate article is not refused because other
 * work was running.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Linux's USER_HZ: /proc reports CPU time in ticks of 10 ms on every mainstream architecture. */
const MS_PER_TICK = 10;

/** This thread's id (a worker's own, not the process's), or null without /proc. */
export function currentThreadId(): number | null {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) && id > 0 ? id : null;
  } catch {
    return null;
  }
}

/** Lowers this thread's priority to `nice` (1–19); a no-op where threads cannot be told apart. */
export function lowerThreadPriority(nice: number): void {
  const tid = currentThreadId();
  if (tid === null || nice <= 0) return;
  try {
    setPriority(tid, Math.min(19, nice));
  } catch {
    // Not permitted here (a sandbox): the worker runs at the normal priority.
  }
}

/** Fields of /proc/<pid>/task/<tid>/stat after the command name, which may contain spaces. */
function statFields(tid: number, pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // the thread has exited, or there is no /proc
  }
}

/** CPU time (user + system) thread `tid` of process `pid` has used, in ms; null if unknown. */
export function threadCpuMs(tid: number, pid = process.pid): number | null {
  const fields = statFields(tid, pid);
  if (!fields) return null;
  // Fields 14 and 15 of stat(5) (utime, stime); field 3 (state) is the first after the name.
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

/** The nice value of thread `tid` of process `pid`; null if unknown. */
export function threadNice(tid: number, pid = process.pid): number | null {
  const fields = statFields(tid, pid);
  return fields ? Number(fields[16]) : null;
}
