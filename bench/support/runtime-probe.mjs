/**
 * Loaded with `--import` into a server under measurement (the service's launcher or a bare
 * baseline) when RUNTIME_PROBE_OUT names a file: the main thread records its event-loop delay
 * (perf_hooks' histogram at 1 ms resolution), every garbage collection's kind and pause (the
 * same events `--trace-gc` prints, as PerformanceObserver entries), its CPU time and heap. On
 * SIGUSR2 it writes what it saw since the last SIGUSR2 to that file (atomically) and starts
 * afresh, so a benchmark can bracket each load slice. Plain JavaScript so that both a built
 * launcher and a tsx-run baseline load it unchanged.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

const out = process.env.RUNTIME_PROBE_OUT;
if (isMainThread && out) {
  // A child process of the server (ffmpeg is not Node, but be safe) must not write the same file.
  delete process.env.RUNTIME_PROBE_OUT;
  const KINDS = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
  };
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  /** kind → pauses in ms */
  let pauses = {};
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = KINDS[entry.detail?.kind] ?? `kind ${entry.detail?.kind}`;
      (pauses[kind] ??= []).push(entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  let cpu = process.cpuUsage();
  let since = performance.now();

  process.on('SIGUSR2', () => {
    const used = process.cpuUsage(cpu);
    const heap = v8.getHeapStatistics();
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
    const ms = (ns) => ns / 1e6;
    const report = {
      wallMs: performance.now() - since,
      cpuMs: (used.user + used.system) / 1000,
      eventLoopDelayMs: {
        p50: ms(delay.percentile(50)),
        p99: ms(delay.percentile(99)),
        max: ms(delay.max),
        mean: ms(delay.mean),
      },
      gc: Object.fromEntries(
        Object.entries(pauses).map(([kind, list]) => {
          const sorted = [...list].sort((a, b) => a - b);
          return [
            kind,
            {
              count: sorted.length,
              totalMs: sorted.reduce((a, b) => a + b, 0),
              p99Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))],
              maxMs: sorted[sorted.length - 1],
            },
          ];
        }),
      ),
      heapUsedBytes: heap.used_heap_size,
      heapTotalBytes: heap.total_heap_size,
      newSpaceBytes: spaces.new_space ?? 0,
      rssBytes: process.memoryUsage.rss(),
    };
    writeFileSync(`${out}.tmp`, JSON.stringify(report));
    renameSync(`${out}.tmp`, out);
    delay.reset();
    pauses = {};
    cpu = process.cpuUsage();
    since = performance.now();
  });
}
