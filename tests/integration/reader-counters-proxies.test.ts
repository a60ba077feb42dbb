/**
 * The reader's address behind a reverse proxy: from a peer listed in TRUSTED_PROXIES the
 * X-Forwarded-For entry is the reader (two readers count twice, one reader once); from any
 * other peer the header is ignored, so a client forging it cannot pose as many readers.
 * Both instances are stopped with SIGTERM before reading, which flushes what they hold.
 */
import { afterAll, expect, it } from 'vitest';
import { api, createPost, newAccount } from '../support/api';
import { startExtraService, type ExtraService } from './media-helpers';
import { API_ONLY } from '../support/service';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

let instances: ExtraService[] = [];
afterAll(async () => {
  await Promise.all(instances.map((i) => i.stop()));
});

async function publishedArticle(token: string): Promise<{ id: string; public_id: string }> {
  const post = await createPost(token);
  const published = await api<{ id: string; public_id: string }>('POST', `/posts/${post.id}/publish`, { token });
  expect(published.status).toBe(200);
  return published.body;
}

async function open(instance: ExtraService, publicId: string, forwardedFor: string): Promise<void> {
  const res = await fetch(`${instance.service.baseUrl}/api/reader/${publicId}/open.gif`, {
    headers: { 'user-agent': BROWSER, 'x-forwarded-for': forwardedFor },
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

it('counts readers by X-Forwarded-For only from a trusted proxy', async () => {
  const account = await newAccount();
  const behindProxy = await publishedArticle(account.token);
  const forged = await publishedArticle(account.token);
  const [trusting, plain] = await Promise.all([
    startExtraService({ ...API_ONLY, TRUSTED_PROXIES: '127.0.0.1' }),
    startExtraService({ ...API_ONLY, TRUSTED_PROXIES: '' }),
  ]);
  instances = [trusting!, plain!];

  // Through the trusted proxy: two readers, one of them twice, one of them through a chain
  // whose last hop is the trusted proxy itself (the entry before it is the reader).
  await open(trusting!, behindProxy.public_id, '203.0.113.7');
  await open(trusting!, behindProxy.public_id, '203.0.113.8');
  await open(trusting!, behindProxy.public_id, '203.0.113.7');
  await open(trusting!, behindProxy.public_id, '203.0.113.8, 127.0.0.1');
  // Straight from a client that is not a trusted proxy: one reader, however many addresses it claims.
  for (let i = 1; i <= 5; i++) await open(plain!, forged.public_id, `198.51.100.${i}`);

  const codes = await Promise.all(instances.map((i) => i.service.stop('SIGTERM')));
  instances = [];
  expect(codes).toEqual([0, 0]);

  const counted = async (id: string) =>
    (await api<{ open_count: number }>('GET', `/posts/${id}`, { token: account.token })).body.open_count;
  expect(await counted(behindProxy.id)).toBe(2);
  expect(await counted(forged.id)).toBe(1);
});
