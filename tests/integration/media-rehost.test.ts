/**
 * Rehost on POST /posts and PATCH /posts/{id} (docs/api.md "Rehosting images"), against images
 * served by this test on 127.0.0.1: replacement with alt kept, dedupe (counted hits), local
 * paths left alone, failures kept external, cover_url, the 100-URL and 50 MiB caps, the
 * minute-limit and daily-quota stops with warnings, parallel downloads, and cover_asset_id ownership.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, newAccount } from '../support/api';
import { animated, mediaForm, noisePng, solidPng, startFileServer, type FileServer } from './media-helpers';

let files: FileServer;
let png: Buffer;

beforeAll(async () => {
  png = await solidPng(30, 20);
  files = await startFileServer({
    '/a.png': { type: 'image/png', body: png },
    '/b.png': { type: 'image/png', body: await solidPng(50, 40, 0, 200, 0) },
    '/cover.png': { type: 'image/png', body: await solidPng(120, 80, 0, 0, 200) },
    '/page.html': { type: 'text/html', body: '<html></html>' },
    '/anim.gif': { type: 'image/gif', body: await animated('gif') },
  });
  for (let i = 0; i < 110; i++) files.routes[`/many/${i}.png`] = { type: 'image/png', body: png };
  for (let i = 0; i < 4; i++) files.routes[`/limit/${i}.png`] = { type: 'image/png', body: png };
  for (let i = 0; i < 3; i++) files.routes[`/quota/${i}.png`] = { type: 'image/png', body: png };
  for (let i = 0; i < 10; i++) files.routes[`/slow/${i}.png`] = { type: 'image/png', body: png, delayMs: 400 };
});
afterAll(() => files?.close());

const html = async (token: string, id: string) => (await api('GET', `/posts/${id}`, { token })).body.html as string;
const create = (token: string, body: Record<string, unknown>) =>
  api('POST', '/posts', { token, json: { title: 'Rehost', ...body } });
const imgSrcs = (doc: string) => [...doc.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1]!);

describe('rehost on POST /posts and PATCH /posts/{id}', () => {
  it('replaces external images by /api/media/{uuid} with alt kept, fetches a repeated URL once, leaves local paths alone', async () => {
    const { token } = await newAccount();
    const local = await api('POST', '/media', { token, body: mediaForm(await solidPng(10, 10, 9, 9, 9)) });
    const before = { a: files.hits['/a.png'] ?? 0, b: files.hits['/b.png'] ?? 0 };
    const markdown = [
      `![First picture](${files.url('/a.png')})`,
      `![Second](${files.url('/b.png')})`,
      `![Same again](${files.url('/a.png')})`,
      `![Local](${local.body.url})`,
    ].join('\n\n');
    const res = await create(token, { markdown });
    expect(res.status, res.text).toBe(201);
    expect(res.body.rehost_failed).toBeUndefined();
    expect(res.body.warnings).toBeUndefined();
    expect(files.hits['/a.png']! - before.a).toBe(1);
    expect(files.hits['/b.png']! - before.b).toBe(1);

    const doc = await html(token, res.body.id);
    const srcs = imgSrcs(doc);
    expect(srcs).toHaveLength(4);
    for (const src of srcs) expect(src).toMatch(/^\/api\/media\/[0-9a-f-]{36}$/);
    expect(srcs[0]).toBe(srcs[2]);
    expect(srcs[3]).toBe(local.body.url);
    expect(doc).toContain('alt="First picture"');
    expect(doc).toContain('alt="Same again"');
    expect(doc).not.toContain('127.0.0.1');
    // The stored copies are served.
    const served = await fetch(`${(await import('../support/api')).baseUrl()}${srcs[1]}`);
    expect(served.status).toBe(200);
  });

  it('keeps the external src of a failed image and lists it in rehost_failed; the write still succeeds', async () => {
    const { token } = await newAccount();
    const broken = files.url('/page.html');
    const missing = files.url('/nothing-here.png');
    const res = await create(token, {
      markdown: `![ok](${files.url('/a.png')})\n\n![html](${broken})\n\n![404](${missing})`,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.rehost_failed).toEqual([broken, missing]);
    expect(res.body.warnings).toBeUndefined();
    // Each URL's cause is for the console; the REST body names the URLs only.
    expect(res.body).not.toHaveProperty('rehostCauses');
    const srcs = imgSrcs(await html(token, res.body.id));
    expect(srcs[0]).toMatch(/^\/api\/media\//);
    expect(srcs.slice(1)).toEqual([broken, missing]);
  });

  it('takes a scheme in any case as the same URL: rehosted, or reported in rehost_failed as written', async () => {
    const { token } = await newAccount();
    const upper = files.url('/a.png').replace(/^http:/, 'HTTP:');
    const mixed = files.url('/nothing-here.png').replace(/^http:/, 'Http:');
    const res = await create(token, { markdown: `![upper](${upper})\n\n<img src="${mixed}" alt="mixed">` });
    expect(res.status, res.text).toBe(201);
    expect(res.body.rehost_failed).toEqual([mixed]);
    const srcs = imgSrcs(await html(token, res.body.id));
    expect(srcs).toHaveLength(2);
    expect(srcs[0]).toMatch(/^\/api\/media\/[0-9a-f-]{36}$/);
    expect(srcs[1]).toBe(files.url('/nothing-here.png'));
  });

  it('refuses animated GIFs in the body (the external src stays) with a hint towards the GIF island', async () => {
    const { token } = await newAccount();
    const gif = files.url('/anim.gif');
    const res = await create(token, { markdown: `![moving](${gif})` });
    expect(res.status).toBe(201);
    expect(res.body.rehost_failed).toEqual([gif]);
    expect(res.body.warnings).toEqual([
      expect.stringMatching(/animated images are not rehosted.*from-url.*GIF island/),
    ]);
  });

  it('rehosts cover_url with cover_width/height from the file; a failed cover_url creates no cover', async () => {
    const { token } = await newAccount();
    const res = await create(token, { markdown: 'Body.', cover_url: files.url('/cover.png') });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      cover_url: `/api/media/${res.body.cover_asset_id}`,
      cover_width: 120,
      cover_height: 80,
    });
    expect(res.body.cover_asset_id).toMatch(/^[0-9a-f-]{36}$/);

    const failed = await create(token, { markdown: 'Body.', cover_url: files.url('/page.html') });
    expect(failed.status).toBe(201);
    expect(failed.body).toMatchObject({ cover_asset_id: null, cover_url: null, cover_width: null, cover_height: null });

    // PATCH: a cover_url and a new body image are rehosted too.
    const patched = await api('PATCH', `/posts/${failed.body.id}`, {
      token,
      json: { cover_url: files.url('/b.png'), markdown: `![x](${files.url('/a.png')})` },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ cover_width: 50, cover_height: 40 });
    expect(imgSrcs(await html(token, failed.body.id))[0]).toMatch(/^\/api\/media\//);
  });

  it("cover_asset_id must name an image of the caller (another author's image is 400)", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const image = await api('POST', '/media', { token: owner.token, body: mediaForm(await solidPng(64, 48)) });
    const refused = await create(other.token, { markdown: 'x', cover_asset_id: image.body.id });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: expect.stringMatching(/^cover_asset_id: /) });
    const accepted = await create(owner.token, { markdown: 'x', cover_asset_id: image.body.id });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({
      cover_asset_id: image.body.id,
      cover_url: image.body.url,
      cover_width: 64,
      cover_height: 48,
    });
  });

  it('stores at most 100 external URLs per write; the rest fail with a warning', async () => {
    const { token } = await newAccount();
    const urls = Array.from({ length: 105 }, (_, i) => files.url(`/many/${i}.png`));
    const res = await create(token, { markdown: urls.map((u, i) => `![${i}](${u})`).join('\n\n') });
    expect(res.status, res.text).toBe(201);
    expect(res.body.rehost_failed).toEqual(urls.slice(100));
    expect(res.body.warnings).toEqual([expect.stringMatching(/at most 100 external images per write; 5 not stored/)]);
    for (const u of urls.slice(100)) expect(files.hits[new URL(u).pathname] ?? 0).toBe(0);
    const srcs = imgSrcs(await html(token, res.body.id));
    expect(srcs.filter((s) => s.startsWith('/api/media/'))).toHaveLength(100);
  });

  it('stores at most 50 MiB per write; the image that crosses the line fails with a warning', async () => {
    const big = await noisePng(20);
    expect(big.length).toBeGreaterThan(19 * 1024 * 1024);
    for (let i = 0; i < 3; i++) files.routes[`/big/${i}.png`] = { type: 'image/png', body: big };
    const { token } = await newAccount();
    const urls = [0, 1, 2].map((i) => files.url(`/big/${i}.png`));
    const res = await create(token, { markdown: urls.map((u) => `![big](${u})`).join('\n\n') });
    expect(res.status, res.text).toBe(201);
    expect(res.body.rehost_failed).toHaveLength(1);
    expect(urls).toContain(res.body.rehost_failed[0]);
    expect(res.body.warnings).toEqual([expect.stringMatching(/50 MiB\) of images per write; 1 image\(s\) not stored/)]);
    const stored = imgSrcs(await html(token, res.body.id)).filter((s) => s.startsWith('/api/media/'));
    expect(stored).toHaveLength(2);
  }, 120_000);

  it('stops at the media minute limit: the rest fail and the reason is in warnings', async () => {
    const { token } = await newAccount({ limits: { media_per_min: 2 } });
    const urls = [0, 1, 2, 3].map((i) => files.url(`/limit/${i}.png`));
    const res = await create(token, { markdown: urls.map((u) => `![l](${u})`).join('\n\n') });
    expect(res.status, res.text).toBe(201);
    expect(res.body.rehost_failed).toHaveLength(2);
    expect(res.body.warnings).toEqual([
      expect.stringMatching(/^rehost stopped: media limit of 2 per minute reached; 2 image\(s\) not stored/),
    ]);
    // The window is used up for the media routes too.
    const upload = await api('POST', '/media', { token, body: mediaForm(png) });
    expect(upload.status).toBe(429);
  });

  it('stops at the daily quota: the rest fail and the reason is in warnings', async () => {
    const probe = await newAccount();
    const size = (await api('POST', '/media', { token: probe.token, body: mediaForm(png) })).body.byte_size as number;
    const { token } = await newAccount({ limits: { daily_media_bytes: Math.floor(size * 2.5) } });
    const urls = [0, 1, 2].map((i) => files.url(`/quota/${i}.png`));
    const res = await create(token, { markdown: urls.map((u) => `![q](${u})`).join('\n\n') });
    expect(res.status, res.text).toBe(201);
    expect(res.body.rehost_failed).toHaveLength(1);
    expect(res.body.warnings).toEqual([
      expect.stringMatching(/^rehost stopped: daily media quota of \d+ bytes reached; 1 image\(s\) not stored/),
    ]);
    expect((await api('GET', '/me', { token })).body.limits.daily_media_bytes_used).toBe(size * 2);
    // Once used up, the next write stores nothing and says why.
    const next = await create(token, { markdown: `![again](${files.url('/a.png')})` });
    expect(next.body.rehost_failed).toEqual([files.url('/a.png')]);
    expect(next.body.warnings).toEqual([expect.stringMatching(/daily media quota/)]);
  });

  it('downloads in parallel: ten images with 400 ms latency each take about one download, not ten', async () => {
    const { token } = await newAccount();
    const urls = Array.from({ length: 10 }, (_, i) => files.url(`/slow/${i}.png`));
    const started = Date.now();
    const res = await create(token, { markdown: urls.map((u) => `![s](${u})`).join('\n\n') });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(201);
    expect(res.body.rehost_failed).toBeUndefined();
    expect(elapsed).toBeLessThan(2_500); // serial would be 4 s; 8 at a time makes 2 rounds
  });
});
