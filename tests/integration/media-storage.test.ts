/**
 * The two other storage situations over HTTP, each with its own service instance on the shared
 * database: MEDIA_STORAGE=s3 against s3rver started here on 127.0.0.1, and storage that cannot
 * be written (503 service_unavailable, no row and no charge left behind; rehost fails softly).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../support/api';
import { API_ONLY, removeDataDir, tempDataDir } from '../support/service';
import {
  animated,
  countMediaRows,
  mediaForm,
  solidPng,
  startExtraService,
  startFileServer,
  type ExtraService,
  type FileServer,
} from './media-helpers';

let files: FileServer;
beforeAll(async () => {
  files = await startFileServer({
    '/image.png': { type: 'image/png', body: await solidPng(33, 22) },
    '/anim.gif': { type: 'image/gif', body: await animated('gif') },
  });
});
afterAll(() => files?.close());

describe('MEDIA_STORAGE=s3 (s3rver on 127.0.0.1)', () => {
  const root = mkdtempSync(join(tmpdir(), 'media-s3-'));
  let s3: S3rver;
  let s3Running = false;
  let instance: ExtraService;

  beforeAll(async () => {
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: join(root, 's3rver'),
      configureBuckets: [{ name: 'media-it' }],
    });
    const { port } = await s3.run();
    s3Running = true;
    instance = await startExtraService({
      ...API_ONLY,
      MEDIA_STORAGE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: 'media-it',
      S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    });
  });
  afterAll(async () => {
    await instance?.stop();
    if (s3Running) await s3.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('uploads, stores in the bucket, and serves the file back with ranges, 304 and HEAD', async () => {
    const { token } = await newAccount();
    const png = await solidPng(70, 50, 5, 120, 240);
    const res = await instance.call('POST', '/media', { token, body: mediaForm(png) });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ kind: 'image', mime_type: 'image/png', width: 70, height: 50 });
    // The object really is in the bucket, not on the instance's disk.
    const objects = readdirSync(join(root, 's3rver', 'media-it'), { recursive: true }).map(String);
    expect(objects.some((name) => name.includes(res.body.id))).toBe(true);
    expect(readdirSync(instance.service.dataDir)).not.toContain('media');

    const url = `${instance.service.baseUrl}${res.body.url}`;
    const got = await fetch(url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    const body = Buffer.from(await got.arrayBuffer());
    expect(body.length).toBe(res.body.byte_size);
    const ranged = await fetch(url, { headers: { range: 'bytes=0-15' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(body.subarray(0, 16))).toBe(true);
    expect((await fetch(url, { headers: { 'if-none-match': got.headers.get('etag')! } })).status).toBe(304);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(res.body.byte_size));
  });

  it('stores from-url results there too, GIF video and poster included', async () => {
    const { token } = await newAccount();
    const res = await instance.call('POST', '/media/from-url', { token, json: { url: files.url('/anim.gif') } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.kind).toBe('gif');
    for (const path of [res.body.url, res.body.poster_url])
      expect((await fetch(`${instance.service.baseUrl}${path}`)).status).toBe(200);
  });

  it('answers 503 quickly when the S3 endpoint is gone, leaving no row and no charge', async () => {
    const { id, token } = await newAccount();
    await s3.close();
    s3Running = false;
    const started = Date.now();
    const res = await instance.call('POST', '/media', { token, body: mediaForm(await solidPng(9, 9)) });
    expect(res.status, res.text).toBe(503);
    expect(res.body).toEqual({ error: expect.any(String), code: 'service_unavailable' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await countMediaRows(id)).toBe(0);
    expect((await instance.call('GET', '/me', { token })).body.limits.daily_media_bytes_used).toBe(0);
  });
});

describe('unwritable storage (503 path)', () => {
  let instance: ExtraService;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDataDir('publishing-media-503-');
    // A plain file where the media directory should be: no write below it can succeed, root or not.
    writeFileSync(join(dataDir, 'media'), 'not a directory');
    instance = await startExtraService({ ...API_ONLY, DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await instance?.stop();
    removeDataDir(dataDir);
  });

  it('POST /media answers 503 service_unavailable and leaves no media row and no daily charge', async () => {
    const { id, token } = await newAccount();
    const res = await instance.call('POST', '/media', { token, body: mediaForm(await solidPng(16, 16)) });
    expect(res.status, res.text).toBe(503);
    expect(res.body).toEqual({ error: expect.any(String), code: 'service_unavailable' });
    expect(await countMediaRows(id)).toBe(0);
    expect((await instance.call('GET', '/me', { token })).body.limits.daily_media_bytes_used).toBe(0);
  });

  it('POST /media/from-url answers 503 too, GIF (two files) included, with nothing left behind', async () => {
    const { id, token } = await newAccount();
    for (const path of ['/image.png', '/anim.gif']) {
      const res = await instance.call('POST', '/media/from-url', { token, json: { url: files.url(path) } });
      expect(res.status, `${path} ${res.text}`).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
    }
    expect(await countMediaRows(id)).toBe(0);
  });

  it('rehost never fails the write: the image stays external, with a warning', async () => {
    const { id, token } = await newAccount();
    const url = files.url('/image.png');
    const res = await instance.call('POST', '/posts', {
      token,
      json: { title: 'Storage down', markdown: `![x](${url})`, cover_url: files.url('/anim.gif') },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.rehost_failed).toContain(url);
    expect(res.body.cover_asset_id).toBeNull();
    expect(res.body.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/media storage temporarily unavailable/)]),
    );
    expect(await countMediaRows(id)).toBe(0);
  });
});
