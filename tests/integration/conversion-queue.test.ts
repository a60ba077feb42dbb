import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, serviceEnv } from '../support/api';
import { API_ONLY, startService, type RunningService } from '../support/service';

/**
 * The conversion queue is bounded: with one worker and no room to wait, documents that arrive
 * while another converts are refused at once with 503 service_unavailable (docs/api.md), and the
 * service keeps answering.
 */
describe('conversion queue', () => {
  let tight: RunningService;

  beforeAll(async () => {
    tight = await startService({
      ...API_ONLY,
      DATA_DIR: serviceEnv().DATA_DIR,
      CONTENT_POOL_THREADS: '1',
      CONTENT_QUEUE_PER_ACCOUNT: '0',
      CONTENT_QUEUE_LIMIT: '0',
    });
  });
  afterAll(async () => {
    await tight?.stop();
  });

  const write = (token: string, markdown: string) =>
    fetch(`${tight.baseUrl}/api/v1/author/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Queued', markdown }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as unknown }));

  it('a saturated queue answers 503 service_unavailable in the error shape; the rest are written', async () => {
    const { token } = await newAccount();
    // Large enough that twenty parallel writes overlap, small enough to convert well within its budget on a loaded machine.
    const markdown = 'Plain words in a paragraph, *some emphasis*.\n\n'.repeat(700);
    const results = await Promise.all(Array.from({ length: 20 }, () => write(token, markdown)));
    const statuses = results.map((r) => r.status);
    expect(
      statuses.every((s) => s === 201 || s === 503),
      JSON.stringify(results.filter((r) => r.status !== 503)),
    ).toBe(true);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(0);
    const refused = results.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.body).toEqual({ error: expect.any(String), code: 'service_unavailable' });
    // Nothing stays queued: a write after the burst converts normally.
    expect((await write(token, 'Afterwards.')).status).toBe(201);
  });

  it('refuses a write of an author whose conversions are backed up before reading its body, and charges nothing', async () => {
    // The charges are read from the last write's window; should it have begun after the busy
    // write's (a minute turned meanwhile), the busy one is not in it: the check below says which.
    const { token } = await newAccount({ limits: { write_per_min: 5 } });
    // Occupies this author's only conversion slot for seconds (dense Markdown converts slowly).
    const busy = fetch(`${tight.baseUrl}/api/v1/author/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Queued', markdown: DENSE }),
    });
    const head = await withheldBodyAnswer(tight.baseUrl, token);
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head.toLowerCase()).not.toContain('ratelimit-remaining');
    const busyWindow = (await busy).headers.get('ratelimit-reset');
    const after = await fetch(`${tight.baseUrl}/api/v1/author/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'After', markdown: 'x' }),
    });
    expect(after.status).toBe(201);
    // Only the busy write was charged: 5 − 1 = 4 left before this one, 3 after it; should the
    // busy write still have crossed into the next minute, only this one is in the new window.
    const sameWindow = after.headers.get('ratelimit-reset') === busyWindow;
    expect(after.headers.get('ratelimit-remaining')).toBe(sameWindow ? '3' : '4');
  });
});

/**
 * Sends a write's headers announcing a 1 MB body and never the body, until an answer arrives
 * without it (a 503: the author's conversions are backed up); the head of that answer.
 */
async function withheldBodyAnswer(baseUrl: string, token: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  let head = '';
  for (let attempt = 0; attempt < 100 && !head.startsWith('HTTP/1.1 503'); attempt++) {
    await new Promise((r) => setTimeout(r, 20));
    head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
        if (received.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', reject);
      socket.setTimeout(300, () => {
        socket.destroy();
        resolve('(no answer while the body was withheld)');
      });
      socket.write(
        [
          'POST /api/v1/author/posts HTTP/1.1',
          `Host: ${hostname}:${port}`,
          `Authorization: Bearer ${token}`,
          'Content-Type: application/json',
          'Content-Length: 1000000',
          '',
          '',
        ].join('\r\n'),
      );
    });
  }
  return head;
}

/** Markdown that converts slowly (dense inline syntax): about 400 KB holds a worker for seconds. */
const DENSE = ('*a* `b` [c](d) &amp; **e** _f_ '.repeat(40) + '\n\n').repeat(Math.floor(400_000 / 1240));

/**
 * With room to wait in the queue but none for one author (CONTENT_QUEUE_PER_ACCOUNT=0), a small
 * write's body is read before its admission, and the admission itself refuses the author whose
 * conversion is running: the same 503, uncharged, while another author still writes.
 */
describe('conversion queue, small writes admitted in one statement', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService({
      ...API_ONLY,
      DATA_DIR: serviceEnv().DATA_DIR,
      CONTENT_POOL_THREADS: '1',
      CONTENT_QUEUE_PER_ACCOUNT: '0',
      CONTENT_QUEUE_LIMIT: '8',
    });
  });
  afterAll(async () => {
    await service?.stop();
  });

  const post = (token: string, markdown: string) =>
    fetch(`${service.baseUrl}/api/v1/author/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Small', markdown }),
    });

  it('refuses a small write of an author whose conversion is running with 503, uncharged; another author writes', async () => {
    const { token } = await newAccount({ limits: { write_per_min: 5 } });
    const other = await newAccount();
    const busy = post(token, DENSE);
    // The author's conversion has started once a write of theirs is refused before its body.
    expect(await withheldBodyAnswer(service.baseUrl, token)).toMatch(/^HTTP\/1\.1 503 /);
    const small = await post(token, 'A small article.');
    expect(small.status).toBe(503);
    expect(await small.json()).toEqual({ error: expect.any(String), code: 'service_unavailable' });
    expect(small.headers.get('ratelimit-remaining')).toBeNull();
    expect((await post(other.token, 'Another author.')).status).toBe(201);
    const busyAnswer = await busy;
    // Written, or past its conversion budget on a loaded machine (a 400): charged either way.
    expect([201, 400]).toContain(busyAnswer.status);
    const after = await post(token, 'Afterwards.');
    expect(after.status).toBe(201);
    // Only the busy write and this one were charged.
    const sameWindow = after.headers.get('ratelimit-reset') === busyAnswer.headers.get('ratelimit-reset');
    expect(after.headers.get('ratelimit-remaining')).toBe(sameWindow ? '3' : '4');
  });
});
