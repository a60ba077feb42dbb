/**
 * The contract to the letter, where a lenient answer used to pass for a correct one: a `limit`
 * is a plain decimal integer, two null covers mean no cover, the daily quota's refusal says what
 * happened, every JSON route refuses unknown fields alike, every 401 carries its Bearer
 * challenge, every JSON answer has one Content-Type, a leading BOM does not spoil a JSON body,
 * and admission comes before the input's checks.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createPost, newAccount } from '../support/api';
import { mediaForm, solidPng, startFileServer, type FileServer } from './media-helpers';

const JSON_TYPE = 'application/json; charset=utf-8';
const LIMIT_ERROR = { error: 'limit: must be an integer from 1 to 50' };
const UNKNOWN_TOKEN = 'dp_live_' + 'x'.repeat(43);

let files: FileServer;
let png: Buffer;

beforeAll(async () => {
  png = await solidPng(40, 40);
  files = await startFileServer({
    '/cover.png': { type: 'image/png', body: png },
    '/never-fetched.png': { type: 'image/png', body: png },
  });
});
afterAll(() => files.close());

const upload = (token: string, bytes: Uint8Array) => api('POST', '/media', { token, body: mediaForm(bytes) });

describe('the contract to the letter', () => {
  it('GET /posts takes a limit only as a plain decimal integer from 1 to 50', async () => {
    const { token } = await newAccount();
    for (let i = 0; i < 3; i++) await createPost(token);
    const accepted = (text: string) => /^[1-9][0-9]*$/.test(text) && Number(text) <= 50;
    const answers = async (text: string) => {
      const res = await api('GET', `/posts?limit=${encodeURIComponent(text)}`, { token });
      if (accepted(text)) {
        expect(res.status, JSON.stringify(text)).toBe(200);
        expect(res.body.items, JSON.stringify(text)).toHaveLength(Math.min(3, Number(text)));
      } else {
        expect(res.status, JSON.stringify(text)).toBe(400);
        expect(res.body, JSON.stringify(text)).toEqual(LIMIT_ERROR);
      }
    };
    // Every spelling Number() reads as a number in range, and the edges of the range.
    for (const text of ['1e1', '0x10', '0b11', '0o7', '5.0', '5.', '+5', ' 5', '5 ', '\t5', '05', '0', '51', '-1', ''])
      await answers(text);
    for (const text of ['1', '3', '50']) await answers(text);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: -5, max: 60 }).map(String),
          fc.stringMatching(/^[-+ 0.e]?[0-9]{1,3}(\.0|e0)?$/),
          fc.string({ maxLength: 6 }),
        ),
        async (text) => {
          runs++;
          await answers(text);
        },
      ),
      { numRuns: 60 },
    );
    expect(runs).toBe(60);
  });

  it('cover_asset_id and cover_url both null mean no cover; both set is still 400', async () => {
    const { token } = await newAccount();
    const media = await upload(token, png);
    expect(media.status).toBe(200);

    const created = await api('POST', '/posts', {
      token,
      json: { title: 'No cover', markdown: 'Text.', cover_asset_id: null, cover_url: null },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      cover_asset_id: null,
      cover_url: null,
      cover_width: null,
      cover_height: null,
    });

    const covered = await createPost(token, { cover_asset_id: media.body.id });
    expect(covered.cover_asset_id).toBe(media.body.id);
    const removed = await api('PATCH', `/posts/${covered.id}`, {
      token,
      json: { cover_asset_id: null, cover_url: null },
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({
      cover_asset_id: null,
      cover_url: null,
      cover_width: null,
      cover_height: null,
    });
    expect((await api('GET', `/posts/${covered.id}`, { token })).body.cover_asset_id).toBeNull();

    const both = await api('PATCH', `/posts/${covered.id}`, {
      token,
      json: { cover_asset_id: media.body.id, cover_url: media.body.url },
    });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: 'cover_asset_id and cover_url: send one of them, not both' });
  });

  it('a daily quota 429 for a file that does not fit says so, with the bytes left in the headers', async () => {
    const probe = await newAccount();
    const size = (await upload(probe.token, png)).body.byte_size as number;
    const quota = size - 1;
    const { token } = await newAccount({ limits: { daily_media_bytes: quota } });
    const refusals = [
      await upload(token, png),
      await api('POST', '/media/from-url', { token, json: { url: files.url('/cover.png') } }),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      const said =
        /^daily media quota: the file's (\d+) bytes do not fit in the (\d+) bytes left today \((\d+) of (\d+) used\)/.exec(
          refused.body.error,
        );
      expect(said, refused.body.error).not.toBeNull();
      const [, bytes, left, used, limit] = said!.map(Number);
      expect(bytes).toBeGreaterThan(left!);
      expect([left, used, limit]).toEqual([quota, 0, quota]);
      expect(refused.body.error).not.toMatch(/reached/);
      // The headers describe the quota in bytes: all of it is left, the file is too large for it.
      expect(refused.headers.get('ratelimit-limit')).toBe(String(quota));
      expect(refused.headers.get('ratelimit-remaining')).toBe(String(quota));
    }
    expect((await api('GET', '/me', { token })).body.limits.daily_media_bytes_used).toBe(0);
  });

  it('every JSON route refuses an unknown body field by name, in one wording', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    const routes: [string, string, Record<string, unknown>][] = [
      ['POST', '/posts', { title: 't', markdown: 'm' }],
      ['PATCH', `/posts/${post.id}`, { title: 't' }],
      ['POST', `/posts/${post.id}/publish`, {}],
      ['POST', `/posts/${post.id}/unpublish`, {}],
      ['POST', '/media/from-url', { url: files.url('/never-fetched.png') }],
    ];
    for (const [method, path, fields] of routes) {
      const res = await api(method, path, { token, json: { ...fields, caption: 'x' } });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body, `${method} ${path}`).toEqual({ error: 'body: unknown field caption' });
    }
    expect(files.hits['/never-fetched.png'] ?? 0).toBe(0);
  });

  it('every 401 carries WWW-Authenticate: Bearer, with invalid_token when a token was refused', async () => {
    const big = JSON.stringify({ title: 't', markdown: 'x'.repeat(100 * 1024) });
    const requests: [string, string, { json?: unknown; body?: BodyInit }][] = [
      ['GET', '/me', {}],
      ['GET', '/posts?limit=1e1', {}],
      ['POST', '/posts', { json: { title: 't', markdown: 'm' } }],
      // Over 64 KiB: the token is checked before the body is read.
      ['POST', '/posts', { body: big }],
      ['POST', '/media', { body: mediaForm(png) }],
      ['POST', '/media/from-url', { json: { url: files.url('/cover.png') } }],
    ];
    const credentials: [string, Record<string, string>, string][] = [
      ['no header', {}, 'Bearer'],
      ['another scheme', { authorization: 'Basic YWxpY2U6c2VjcmV0' }, 'Bearer'],
      ['an unknown token', { authorization: `Bearer ${UNKNOWN_TOKEN}` }, 'Bearer error="invalid_token"'],
      ['not an API token', { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' }, 'Bearer error="invalid_token"'],
    ];
    for (const [method, path, opts] of requests)
      for (const [what, headers, challenge] of credentials) {
        const type: Record<string, string> = opts.body === big ? { 'content-type': 'application/json' } : {};
        const res = await api(method, path, { ...opts, headers: { ...headers, ...type } });
        expect(res.status, `${method} ${path} with ${what}`).toBe(401);
        expect(res.headers.get('www-authenticate'), `${method} ${path} with ${what}`).toBe(challenge);
      }
  });

  it('every JSON answer of the API, success or error, says application/json; charset=utf-8', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    const answers = [
      await api('GET', '/me', { token }),
      await api('GET', '/posts', { token }),
      await api('GET', `/posts/${post.id}`, { token }),
      await api('POST', '/posts', { token, json: { title: 't', markdown: 'm' } }),
      await api('PATCH', `/posts/${post.id}`, { token, json: { title: 'u' } }),
      await api('POST', `/posts/${post.id}/publish`, { token }),
      await upload(token, png),
      await api('POST', '/media/from-url', { token, json: { url: files.url('/cover.png') } }),
      await api('GET', '/posts?limit=0', { token }),
      await api('GET', '/posts/00000000-0000-4000-8000-000000000000', { token }),
      await api('GET', '/me'),
      await api('GET', '/nowhere', { token }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 201, 200, 200, 200, 200, 400, 404, 401, 404]);
    for (const answer of answers) expect(answer.headers.get('content-type'), answer.text.slice(0, 80)).toBe(JSON_TYPE);
  });

  it('a JSON body that starts with a UTF-8 byte order mark is read without it', async () => {
    const { token } = await newAccount();
    const bom = '\uFEFF';
    const send = (method: string, path: string, text: string) =>
      api(method, path, { token, body: text, headers: { 'content-type': 'application/json' } });
    const created = await send('POST', '/posts', bom + JSON.stringify({ title: 'With a BOM', markdown: 'Text.' }));
    expect(created.status).toBe(201);
    expect(created.body.title).toBe('With a BOM');
    const patched = await send('PATCH', `/posts/${created.body.id}`, bom + JSON.stringify({ subtitle: 'Sub' }));
    expect(patched.status).toBe(200);
    expect(patched.body.subtitle).toBe('Sub');
    // One mark is an encoding's signature; a second one is inside the text, which is not JSON.
    const twice = await send('POST', '/posts', bom + bom + JSON.stringify({ title: 't', markdown: 'm' }));
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual({ error: 'body: invalid JSON' });
  });

  it('admission comes first: with the read window used up, a malformed id or limit is 429, not 400', async () => {
    const { token } = await newAccount({ limits: { read_per_min: 0 } });
    for (const path of ['/posts/not-a-uuid', '/posts?limit=1e1', '/posts?status=archived']) {
      const res = await api('GET', path, { token });
      expect(res.status, path).toBe(429);
      expect(res.body.code, path).toBe('rate_limited');
      expect(res.headers.get('retry-after'), path).toBeTruthy();
    }
  });
});
