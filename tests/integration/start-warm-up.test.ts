/**
 * Next loads a route's code on its first request, holding the event loop meanwhile (up to 2 s
 * for a console page). The instance loads every route before it reports healthy, so the first
 * console requests after a start, signed in, leave /api/health answering at once.
 */
import { afterAll, expect, it } from 'vitest';
import { createPost, newAccount } from '../support/api';
import { openConsoleSession } from './console-session';
import { startExtraService, type ExtraService } from './media-helpers';

const SECRET = 'warm-up-test-secret-0123456789abcdefghijklmnop';
let extra: ExtraService | undefined;
afterAll(async () => {
  await extra?.stop();
});

async function timed(url: string, init: RequestInit = {}): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(url, { redirect: 'manual', ...init });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

it('answers /api/health without a route-loading stall while every console route is requested for the first time', async () => {
  const account = await newAccount();
  const post = await createPost(account.token);
  extra = await startExtraService({ SESSION_SECRET: SECRET });
  const base = extra.service.baseUrl;
  const { cookie } = await openConsoleSession(SECRET, account.id);
  const pages = [
    '/console',
    '/console/account',
    '/console/media',
    '/console/moderation',
    '/console/api-reference',
    '/console/api-guide',
    '/console/articles/new',
    `/console/articles/${post.id}`,
    `/console/preview/${post.id}`,
    `/console/preview/${post.id}/changes`,
  ];
  /** Health probed every 5 ms while the pages are requested one after the other. */
  async function healthWhileRequesting(): Promise<{ statuses: number[]; health: { status: number; ms: number }[] }> {
    const health: { status: number; ms: number }[] = [];
    let done = false;
    const probing = (async () => {
      while (!done) {
        health.push(await timed(`${base}/api/health`));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const statuses: number[] = [];
    for (const page of pages) statuses.push((await timed(`${base}${page}`, { headers: { cookie } })).status);
    done = true;
    await probing;
    return { statuses, health };
  }
  const first = await healthWhileRequesting();
  // The same pages again: what health costs on this machine now, with every route long loaded.
  const again = await healthWhileRequesting();
  // The pages themselves answered (signed in: no redirect to sign in).
  expect(
    first.statuses.every((s) => s === 200 || s === 404),
    JSON.stringify(first.statuses),
  ).toBe(true);
  expect(first.health.length).toBeGreaterThan(pages.length);
  expect(first.health.every((h) => h.status === 200)).toBe(true);
  const slowest = (round: typeof first) => Math.max(...round.health.map((h) => h.ms));
  // A route loaded on its first request held the loop for 0.5–2 s: no probe may come near that.
  // Under 100 ms on a quiet machine; the bound is 250 ms, or three times the warm round's
  // slowest, because with Playwright and another test file beside it one probe of a warm
  // instance took 190 ms in CI (the warm round's slowest then: 35 ms).
  expect(slowest(first)).toBeLessThan(Math.max(250, 3 * slowest(again)));
});
