/**
 * The console's "what changes on publish" frame takes a turn in the content worker pool and is
 * charged like the live preview: one unit of the account's write window (shared with the API)
 * per frame, 429 in words once it is spent. A diff of two maximum-size documents that differ
 * everywhere ends with "the body changed", and /api/health keeps answering while it runs (the
 * diff was a full n×m table on the event loop: 60,000 paragraphs against 60,000 took the
 * process down).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../support/api';
import { openConsoleSession } from './console-session';
import { startExtraService, type ExtraService } from './media-helpers';

const SECRET = 'publish-diff-frame-test-secret-0123456789abcdef';

/** Waits for a fresh minute when this one is nearly over, so a test's counts share one window. */
async function freshWindow(): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}

/** About `chars` characters of Markdown: short paragraphs of random words, different per seed. */
function paragraphs(chars: number, seed: number): string {
  let x = seed;
  const word = () => `w${(x = (x * 1103515245 + 12345) % 2147483648) % 100_000}`;
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const p = `${word()} ${word()} ${word()} ${word()}`;
    out.push(p);
    length += p.length + 2;
  }
  return out.join('\n\n');
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

describe('publish diff frame', () => {
  let extra: ExtraService;
  beforeAll(async () => {
    extra = await startExtraService({ SESSION_SECRET: SECRET });
  });
  afterAll(async () => {
    await extra?.stop();
  });

  const frame = (cookie: string, id: string) =>
    fetch(`${extra.service.baseUrl}/console/preview/${id}/changes`, { headers: { cookie } }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));

  async function publishedThenEdited(token: string, before: string, after: string): Promise<string> {
    const created = await extra.call('POST', '/posts', { token, json: { title: 'Diffed', markdown: before } });
    expect(created.status, created.text).toBe(201);
    const id = (created.body as any).id as string;
    const published = await extra.call('POST', `/posts/${id}/publish`, { token });
    expect(published.status, published.text).toBe(200);
    const edited = await extra.call('PATCH', `/posts/${id}`, { token, json: { markdown: after } });
    expect(edited.status, edited.text).toBe(200);
    return id;
  }

  it('spends one unit of the write window per frame, shared with the API, and answers 429 in words once it is spent', async () => {
    const account = await newAccount({ limits: { write_per_min: 6 } });
    const session = await openConsoleSession(SECRET, account.id);
    await freshWindow();
    const id = await publishedThenEdited(account.token, 'The boats left.', 'The boats left early.'); // 2 writes
    const shown = await frame(session.cookie, id); // 3
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<ins class="dp-diff-word">');
    const write = await extra.call('PATCH', `/posts/${id}`, { token: account.token, json: { title: 'Again' } }); // 4
    expect(write.status, write.text).toBe(200);
    // Two writes, one frame and this write: the frame took its unit from the same window.
    expect(write.headers.get('ratelimit-remaining')).toBe('2');
    expect((await frame(session.cookie, id)).status).toBe(200); // 5
    expect((await frame(session.cookie, id)).status).toBe(200); // 6
    const refused = await frame(session.cookie, id);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('used all 6 changes allowed per minute');
    const api = await extra.call('PATCH', `/posts/${id}`, { token: account.token, json: { title: 'Once more' } });
    expect(api.status).toBe(429);
  }, 120_000);

  it('diffs two maximum-size documents that differ everywhere to "the body changed" in the worker pool, while /api/health keeps answering', async () => {
    const account = await newAccount();
    const session = await openConsoleSession(SECRET, account.id);
    const id = await publishedThenEdited(account.token, paragraphs(1_990_000, 1), paragraphs(1_990_000, 2));

    const health = async (): Promise<number> => {
      const started = performance.now();
      const res = await fetch(`${extra.service.baseUrl}/api/health`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      return performance.now() - started;
    };
    const baseline: number[] = [];
    for (let k = 0; k < 100; k++) baseline.push(await health());

    // Three frames at once (each diffs 2 × 60,000 paragraphs), /api/health asked in a loop meanwhile.
    const during: number[] = [];
    let running = true;
    const started = performance.now();
    const frames = Promise.all([1, 2, 3].map(() => frame(session.cookie, id))).finally(() => (running = false));
    while (running) during.push(await health());
    const results = await frames;
    const duration = performance.now() - started;

    for (const r of results) {
      expect(r.status).toBe(200);
      expect(r.text).toContain('The body changed: too much to mark block by block.');
    }
    const summary = {
      duration: Math.round(duration),
      answered: during.length,
      baselineP99: Math.round(percentile(baseline, 99)),
      duringP99: Math.round(percentile(during, 99)),
      duringMax: Math.round(Math.max(...during)),
    };
    console.log('publish diff frame vs /api/health (ms):', JSON.stringify(summary));
    // Liveness, not speed: health answered all along, never waiting for a whole diff (as it did
    // while the diff ran on the event loop), and its p99 stayed within a second of its own.
    expect(during.length).toBeGreaterThanOrEqual(5);
    expect(summary.duringMax).toBeLessThan(duration / 2);
    expect(summary.duringP99).toBeLessThanOrEqual(summary.baselineP99 + 1000);
  }, 300_000);
});
