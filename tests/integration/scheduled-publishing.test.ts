import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { openStatementPool, statement, type StatementPool } from '../../db/statements';
import { scheduleOf, schedulePublish } from '../../server/services/posts/scheduled-publishing';
import { createAccountFixture } from '../support/shared-database';
import { API_ONLY, removeDataDir, startService, tempDataDir, type RunningService } from '../support/service';

/**
 * Scheduled publishing (server/services/posts/scheduled-publishing.ts) through real instances on one
 * database: a schedule is published exactly once however many instances look for it, survives a
 * restart, charges the publish limit at its time (and waits a minute when it is spent), and
 * ends with a reason when the rules refuse it. Through the REST API a scheduled article is an
 * ordinary draft until then. Schedules are set with the service's own function (the console's
 * form calls it), as the console would.
 */
describe('scheduled publishing', () => {
  const dataDir = tempDataDir('publishing-schedules-');
  let pg: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
  let pool: StatementPool;
  const instances: RunningService[] = [];
  const POLL = { SCHEDULED_PUBLISH_POLL_MS: '100' };

  const start = async () => {
    const service = await startService({ ...API_ONLY, DATA_DIR: dataDir, DATABASE_URL: pg.url, ...POLL });
    instances.push(service);
    return service;
  };

  /** An instance already up, or a new one. */
  const running = async () => instances[0] ?? (await start());

  beforeAll(async () => {
    pg = await startEmbeddedPostgres(path.join(dataDir, 'external'), () => {});
    pool = openStatementPool(pg.url, { max: 2 });
  });
  afterAll(async () => {
    for (const service of instances) await service.stop();
    await pool?.close();
    await pg?.stop();
    removeDataDir(dataDir);
  });

  async function account(
    limits: Record<string, number> = {},
    { moderated = false } = {},
  ): Promise<{ token: string; id: string }> {
    const handle = `sched-${randomUUID().slice(0, 8)}`;
    return createAccountFixture(
      {
        handle,
        moderated,
        limits: { write_per_min: 1000, read_per_min: 1000, ...limits },
      },
      pg.url,
    );
  }

  async function call(service: RunningService, token: string, method: string, route: string, json?: unknown) {
    const res = await fetch(`${service.baseUrl}/api/v1/author${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  }

  async function article(service: RunningService, token: string, markdown = 'Scheduled text.'): Promise<string> {
    const created = await call(service, token, 'POST', '/posts', { title: 'On schedule', markdown });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  const publishLines = (postId: string) =>
    instances
      .flatMap((s) => s.logs.join('').split('\n'))
      .filter((line) => line.includes('"msg":"scheduled publish"') && line.includes(postId));

  async function until<T>(what: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await what();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const PUBLISH_UNITS = statement(
    'test_publish_units',
    `SELECT sum(count) AS n FROM rate_windows WHERE account_id = $1 AND class = 'publish'`,
  );
  const publishUnits = async (accountId: string) =>
    Number((await pool.runner.run<{ n: string | null }>(PUBLISH_UNITS, [accountId]))[0]?.n ?? 0);

  it('publishes once at its time across two instances, and is a draft to the API until then', async () => {
    const a = await start();
    const b = await start();
    const { token, id: accountId } = await account({ publish_per_min: 100 });
    const postId = await article(a, token);
    await schedulePublish(pool.runner, accountId, postId, new Date(Date.now() + 1500));
    const before = await call(b, token, 'GET', `/posts/${postId}`);
    expect(before.body.status).toBe('draft');
    expect(Object.keys(before.body).some((k) => k.includes('schedule'))).toBe(false);
    const published = await until(async () => {
      const { body } = await call(a, token, 'GET', `/posts/${postId}`);
      return body.status === 'published' ? body : undefined;
    });
    expect(new Date(published.published_at).getTime()).toBeGreaterThan(Date.now() - 20_000);
    // Both instances kept looking for a while after: one publish, one charge, one log line (lines
    // are written in batches, so the one expected is waited for, then the others given time).
    await until(async () => (publishLines(postId).length > 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1000));
    expect(publishLines(postId)).toHaveLength(1);
    expect(publishLines(postId)[0]).toContain('"outcome":"published"');
    expect(await publishUnits(accountId)).toBe(1);
    expect(await scheduleOf(pool.runner, accountId, postId)).toBeNull();
    const page = await fetch(`${a.baseUrl}${published.canonical_path}`);
    expect(page.status).toBe(200);
  });

  it('survives a restart before its time', async () => {
    for (const service of instances.splice(0)) await service.stop();
    const first = await start();
    const { token, id: accountId } = await account();
    const postId = await article(first, token);
    await schedulePublish(pool.runner, accountId, postId, new Date(Date.now() + 2500));
    await first.stop();
    instances.splice(instances.indexOf(first), 1);
    // Nothing runs the schedule while no instance is up; the next one does.
    await new Promise((r) => setTimeout(r, 3000));
    expect((await scheduleOf(pool.runner, accountId, postId))?.failed).toBe(false);
    const second = await start();
    await until(async () =>
      (await call(second, token, 'GET', `/posts/${postId}`)).body.status === 'published' ? true : undefined,
    );
    await until(async () => (publishLines(postId).length > 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 500));
    expect(publishLines(postId)).toHaveLength(1);
  });

  it('charges the publish limit at its time, and waits for the next minute when it is spent', async () => {
    const service = await running();
    const { token, id: accountId } = await account({ publish_per_min: 1 });
    const first = await article(service, token);
    const second = await article(service, token);
    const at = new Date(Date.now() + 1000);
    await schedulePublish(pool.runner, accountId, first, at);
    await schedulePublish(pool.runner, accountId, second, at);
    const held = await until(async () => {
      const s = await scheduleOf(pool.runner, accountId, second);
      const f = await scheduleOf(pool.runner, accountId, first);
      const waiting = [s, f].find((x) => x?.note);
      return waiting && (s === null || f === null) ? waiting : undefined;
    });
    expect(held.failed).toBe(false);
    expect(held.note).toMatch(
      /^Waiting: the publish limit \(1 a minute\) was reached at \d\d:\d\d UTC; it publishes at \d\d:\d\d UTC instead\.$/,
    );
    const states = await Promise.all(
      [first, second].map(async (id) => (await call(service, token, 'GET', `/posts/${id}`)).body.status),
    );
    expect(states.sort()).toEqual(['draft', 'published']);
  });

  it('follows the moderation rule, and ends with the reason when the rules refuse it', async () => {
    const service = await running();
    const { token, id: accountId } = await account({ publish_per_min: 100 }, { moderated: true });
    const postId = await article(service, token);
    const deleted = await article(service, token);
    // Far enough ahead that the DELETE below is in before the time, on a busy machine too.
    await schedulePublish(pool.runner, accountId, postId, new Date(Date.now() + 3000));
    await schedulePublish(pool.runner, accountId, deleted, new Date(Date.now() + 3000));
    expect((await call(service, token, 'DELETE', `/posts/${deleted}`)).status).toBe(204);
    // A moderated account's article goes to a moderator, as POST /posts/{id}/publish sends it.
    await until(async () =>
      (await call(service, token, 'GET', `/posts/${postId}`)).body.status === 'pending_moderation' ? true : undefined,
    );
    // The log line follows the commit (log lines are written in batches): waited for, not assumed.
    await until(async () =>
      publishLines(postId).join('').includes('"outcome":"sent_to_moderation"') ? true : undefined,
    );
    const gone = await until(async () => {
      const s = await scheduleOf(pool.runner, accountId, deleted);
      return s?.failed ? s : undefined;
    });
    expect(gone.note).toBe('Not published: the article was deleted.');
    // While it waits for the moderator, a publish is refused: the schedule ends, saying why.
    await schedulePublish(pool.runner, accountId, postId, new Date(Date.now() + 600));
    const ended = await until(async () => {
      const s = await scheduleOf(pool.runner, accountId, postId);
      return s?.failed ? s : undefined;
    });
    expect(ended.note).toBe(
      'Not published: the article is waiting for moderation and cannot be published again until it is decided.',
    );
    expect((await call(service, token, 'GET', `/posts/${postId}`)).body.status).toBe('pending_moderation');
  });

  it('refuses a time that has passed, one too far ahead, and another author’s article', async () => {
    const service = await running();
    const owner = await account();
    const other = await account();
    const postId = await article(service, owner.token);
    await expect(schedulePublish(pool.runner, owner.id, postId, new Date(Date.now() - 1000))).rejects.toThrow(
      /the time has passed/,
    );
    await expect(
      schedulePublish(pool.runner, owner.id, postId, new Date(Date.now() + 400 * 86_400_000)),
    ).rejects.toThrow(/at most 366 days ahead/);
    await expect(schedulePublish(pool.runner, other.id, postId, new Date(Date.now() + 60_000))).rejects.toThrow(
      /Article not found/,
    );
    expect(await scheduleOf(pool.runner, owner.id, postId)).toBeNull();
  });
});
