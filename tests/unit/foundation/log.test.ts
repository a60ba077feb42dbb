/**
 * The log (server/foundation/log.ts): the per-request line is assembled without a generic JSON.stringify
 * and written in batches, so both are held to what the generic path wrote and to the order of
 * lines. That the last lines reach stdout at exit is checked on the real process
 * (tests/integration/serving.test.ts).
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { flushLog, isoTime, logLine, logRequest } from '../../../server/foundation/log';
import { jsonString } from '../../../server/foundation/json-string';

let written: string[];
let write: MockInstance;
beforeEach(() => {
  flushLog();
  written = [];
  write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  write.mockRestore();
});

const lines = () => written.join('').split('\n').filter(Boolean);

const requestLine = fc.record({
  method: fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'),
  route: fc.oneof(fc.string({ unit: 'binary' }), fc.webPath()),
  status: fc.integer({ min: 100, max: 599 }),
  duration_us: fc.oneof(
    fc.nat({ max: 10_000 }),
    fc.nat(),
    fc.maxSafeNat(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  ),
  request_id: fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/)),
});

describe('the per-request line', () => {
  it('is the text JSON.stringify wrote for the same fields, in the same order', () => {
    fc.assert(
      fc.property(requestLine, (line) => {
        written = [];
        logRequest(line);
        flushLog();
        const [text, ...rest] = lines();
        expect(rest).toEqual([]);
        const time = (JSON.parse(text!) as { time: string }).time;
        const { method, route, status, duration_us, request_id } = line;
        const fields = { method, route, status, duration_ms: duration_us / 1000, request_id };
        expect(text).toBe(JSON.stringify({ time, level: 'info', msg: 'request', ...fields }));
      }),
    );
  });

  it('writes duration_ms as JSON writes us / 1000, for every small duration and at the edges', () => {
    const edges = [999_999_999_999_999, 1e15, 1e15 + 1, 123_456_789_012_345];
    for (const us of [...Array.from({ length: 20_001 }, (_, i) => i), ...edges]) {
      written = [];
      logRequest({ method: 'GET', route: '/', status: 200, duration_us: us, request_id: 'r' });
      flushLog();
      expect((/"duration_ms":([^,]+),/.exec(lines()[0]!) ?? [])[1]).toBe(JSON.stringify(us / 1000));
    }
  });

  it("ends with the request's trace id when traces are on, as JSON.stringify writes it", () => {
    const line = { method: 'GET', route: '/x', status: 200, duration_us: 1500, request_id: 'r' };
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    logRequest(line, traceId);
    flushLog();
    const text = lines()[0]!;
    const { time } = JSON.parse(text) as { time: string };
    const fields = { method: 'GET', route: '/x', status: 200, duration_ms: 1.5, request_id: 'r', trace_id: traceId };
    expect(text).toBe(JSON.stringify({ time, level: 'info', msg: 'request', ...fields }));
  });

  it('carries the time it was written', () => {
    const before = Date.now();
    logRequest({ method: 'GET', route: '/api/health', status: 200, duration_us: 1500, request_id: 'r' });
    flushLog();
    const after = Date.now();
    const time = Date.parse((JSON.parse(lines()[0]!) as { time: string }).time);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
  });
});

describe('writing', () => {
  it('gathers info lines, and writes them before a notice, which is written at once', () => {
    logRequest({ method: 'GET', route: '/a', status: 200, duration_us: 1000, request_id: 'one' });
    logLine({ level: 'info', msg: 'two' });
    expect(written).toEqual([]);
    logLine({ level: 'notice', msg: 'three' });
    expect(written).toHaveLength(1);
    expect(lines().map((l) => JSON.parse(l) as { msg: string; request_id?: string })).toEqual([
      expect.objectContaining({ msg: 'request', request_id: 'one' }),
      expect.objectContaining({ level: 'info', msg: 'two' }),
      expect.objectContaining({ level: 'notice', msg: 'three' }),
    ]);
  });

  it('writes gathered lines by itself shortly after, without a flush', async () => {
    vi.useFakeTimers();
    try {
      logLine({ level: 'info', msg: 'later' });
      expect(written).toEqual([]);
      await vi.advanceTimersByTimeAsync(1000);
      expect(lines().map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['later']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes as soon as a large batch is waiting', () => {
    const line = { method: 'GET', route: `/${'x'.repeat(1000)}`, status: 200, duration_us: 1000, request_id: 'r' };
    for (let i = 0; i < 100; i++) logRequest(line);
    expect(written.length).toBeGreaterThan(0);
    flushLog();
    expect(lines()).toHaveLength(100);
  });
});

describe('isoTime', () => {
  it('is toISOString of the same instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799999 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
    // Consecutive instants within and across seconds, as a clock gives them.
    const start = Date.UTC(2026, 10, 25, 23, 59, 58, 990);
    for (let ms = start; ms < start + 2100; ms += 7) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});

describe('jsonString', () => {
  it('is JSON.stringify of any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' })), (text) => {
        expect(jsonString(text)).toBe(JSON.stringify(text));
      }),
    );
    for (const text of ['', '"', '\\', '\u001f', '\ud800', 'a\udc00b', 'é', 'x'.repeat(41) + '"', 'x'.repeat(42)])
      expect(jsonString(text)).toBe(JSON.stringify(text));
  });
});
