import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, serviceEnv } from '../support/api';
import { startService, type RunningService } from '../support/service';

/**
 * The conversion queue is bounded: with one worker and no room to wait, documents that arrive
 * while another converts are refused at once with 503 service_unavailable (docs/api.md), and the
 * service keeps answering.
 */
describe('conversion queue', () => {
  let tight: RunningService;

  beforeAll(async () => {
    tight = await startService({
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
});
