/**
 * CACHE_PURGE_URLS: a stub cache on loopback records the PURGE requests an instance (and the
 * CLI) sends after each kind of change of a public path; a cache that is down fails nothing.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, serviceEnv } from '../support/api';
import { API_ONLY, cli, metricsOf } from '../support/service';
import { mediaForm, solidPng, startExtraService, type ExtraService } from './media-helpers';

let cache: { url: string; purged: string[]; status: number; server: http.Server };
let instance: ExtraService;

beforeAll(async () => {
  const purged: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'PURGE') purged.push(req.url!);
    res.statusCode = cache.status;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cache = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, purged, status: 200, server };
  instance = await startExtraService({ ...API_ONLY, CACHE_PURGE_URLS: cache.url });
});

afterAll(async () => {
  await instance?.stop();
  cache.server.closeAllConnections();
  await new Promise((resolve) => cache.server.close(resolve));
});

/** The paths purged while `act` ran, once its purges (and their repeat 2 s later) are in. */
async function purgesOf(act: () => Promise<unknown>): Promise<string[]> {
  const from = cache.purged.length;
  await act();
  await new Promise((resolve) => setTimeout(resolve, 2600));
  return [...new Set(cache.purged.slice(from))].sort();
}

const cliEnv = () => ({ ...serviceEnv(), CACHE_PURGE_URLS: cache.url });

async function draftOf(token: string, fields: Record<string, unknown> = {}) {
  const res = await instance.call('POST', '/posts', { token, json: { title: 'Purged', markdown: 'Text.', ...fields } });
  expect(res.status).toBe(201);
  return res.body as { id: string; canonical_path: string };
}

describe('the service purges the caches after each change of a public path', () => {
  it('publish, republish with a change, slug change, unpublish, delete', async () => {
    const author = await newAccount();
    const post = await draftOf(author.token);
    const publish = () => instance.call('POST', `/posts/${post.id}/publish`, { token: author.token });

    expect(await purgesOf(publish)).toEqual([post.canonical_path]);
    // A publish with nothing waiting changes nothing public: nothing to purge.
    expect(await purgesOf(publish)).toEqual([]);
    // Saving a change purges nothing (readers still see the published version); publishing it does.
    expect(
      await purgesOf(() =>
        instance.call('PATCH', `/posts/${post.id}`, { token: author.token, json: { title: 'New' } }),
      ),
    ).toEqual([]);
    expect(await purgesOf(publish)).toEqual([post.canonical_path]);

    const moved = post.canonical_path.replace(/^\/[^/]*-/, '/moved-slug-');
    await instance.call('PATCH', `/posts/${post.id}`, { token: author.token, json: { slug: 'moved-slug' } });
    expect(await purgesOf(publish)).toEqual([moved, post.canonical_path].sort());

    expect(await purgesOf(() => instance.call('POST', `/posts/${post.id}/unpublish`, { token: author.token }))).toEqual(
      [moved],
    );
    // A deleted draft was never public.
    expect(await purgesOf(() => instance.call('DELETE', `/posts/${post.id}`, { token: author.token }))).toEqual([]);

    const other = await draftOf(author.token, { title: 'Deleted while published' });
    await instance.call('POST', `/posts/${other.id}/publish`, { token: author.token });
    const etag = (await instance.call('GET', `/posts/${other.id}`, { token: author.token })).headers.get('etag')!;
    expect(
      await purgesOf(() =>
        instance.call('DELETE', `/posts/${other.id}`, { token: author.token, headers: { 'if-match': etag } }),
      ),
    ).toEqual([other.canonical_path]);
  });

  it('moderation decisions and account deletion through the CLI', async () => {
    const author = await newAccount({ moderated: true });
    const post = await draftOf(author.token);
    // Sent to moderation: nothing public changed yet.
    expect(await purgesOf(() => instance.call('POST', `/posts/${post.id}/publish`, { token: author.token }))).toEqual(
      [],
    );
    expect(await purgesOf(() => cli(cliEnv(), ['moderation', 'approve', post.id]))).toEqual([post.canonical_path]);

    await instance.call('PATCH', `/posts/${post.id}`, { token: author.token, json: { title: 'Second' } });
    await instance.call('POST', `/posts/${post.id}/publish`, { token: author.token });
    const rejected = await purgesOf(() => cli(cliEnv(), ['moderation', 'reject', post.id, '--reason', 'no']));
    expect(rejected).toEqual([post.canonical_path]);

    const upload = await instance.call('POST', '/media', {
      token: author.token,
      body: mediaForm(await solidPng(4, 4)),
    });
    expect(upload.status).toBe(200);
    const media = upload.body as { url: string };
    expect(await purgesOf(() => cli(cliEnv(), ['account', 'delete', author.handle]))).toEqual(
      [post.canonical_path, media.url].sort(),
    );
  });

  it('a cache that is down or refusing fails no author request, and each outcome is counted', async () => {
    const author = await newAccount();
    const post = await draftOf(author.token);
    const failedBefore = await failedPurges();
    cache.status = 503;
    try {
      const published = await instance.call('POST', `/posts/${post.id}/publish`, { token: author.token });
      expect(published.status).toBe(200);
      const seenAtResponse = cache.purged.length;
      await new Promise((resolve) => setTimeout(resolve, 6000));
      // The retries (after 250 ms, 500 ms, 1 s, 2 s) came after the author had the answer.
      expect(cache.purged.length).toBeGreaterThan(seenAtResponse + 2);
    } finally {
      cache.status = 200;
    }
    expect(await failedPurges()).toBeGreaterThan(failedBefore);
  });
});

async function failedPurges(): Promise<number> {
  const text = await (await metricsOf(`${instance.service.baseUrl}`)).text();
  const line = text.split('\n').find((l) => l.startsWith('cache_purges_total{result="failed"}'));
  return line ? Number(line.split(' ')[1]) : 0;
}
