/**
 * A CPU profile of a function run in this thread (V8's sampling profiler through node:inspector,
 * the same data as `node --cpu-prof`), summarised as the frames with the most self time and the
 * most inclusive time. Inclusive time counts a sample once per frame even when the frame is on
 * the stack several times (recursive tree walkers would otherwise count above 100 %).
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

interface Frame {
  frame: string;
  selfPct: number;
  inclusivePct: number;
}

/** `package/file.js:line name` for a dependency, `server/…:line name` for our code. */
function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  const file = url.includes('/node_modules/')
    ? url.slice(url.lastIndexOf('/node_modules/') + 14)
    : url.replace(/^.*?\/(server|bench|tests)\//, '$1/').replace(/^file:\/\//, '');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

/** Parts of the work, each named by a test on frame names: a sample counts for a part when any frame on its stack passes. */
export type Parts = Record<string, (frame: string) => boolean>;

export interface Profiled {
  frames: Frame[];
  /** Share (%) of busy samples under each part. */
  parts: Record<string, number>;
  busyMs: number;
}

export async function profile(run: () => void, parts: Parts = {}, saveAs?: string): Promise<Profiled> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  run();
  const { profile: data } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
  session.disconnect();
  if (saveAs) writeFileSync(saveAs, JSON.stringify(data));

  const byId = new Map(data.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of data.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const inPart = new Map<string, number>();
  let busy = 0;
  for (const id of data.samples) {
    const node = byId.get(id)!;
    const name = frameName(node);
    if (name === '(idle)' || name === '(program)') continue;
    busy++;
    self.set(name, (self.get(name) ?? 0) + 1);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = frameName(byId.get(at)!);
      if (seen.has(frame) || frame === '(root)') continue;
      seen.add(frame);
      inclusive.set(frame, (inclusive.get(frame) ?? 0) + 1);
    }
    for (const [part, test] of Object.entries(parts)) {
      if ([...seen].some(test)) inPart.set(part, (inPart.get(part) ?? 0) + 1);
    }
  }
  const pct = (n: number) => (100 * n) / Math.max(busy, 1);
  const frames = [...inclusive.keys()].map((frame) => ({
    frame,
    selfPct: pct(self.get(frame) ?? 0),
    inclusivePct: pct(inclusive.get(frame)!),
  }));
  const busyMs = ((data.endTime - data.startTime) / 1000) * (busy / Math.max(data.samples.length, 1));
  const shares = Object.fromEntries(Object.keys(parts).map((part) => [part, pct(inPart.get(part) ?? 0)]));
  return { frames, parts: shares, busyMs };
}
