/**
 * How the REST mount feeds a procedure its input (server/http/rest-procedures.ts), over HTTP:
 * the route is matched once, the caller is charged before the input is parsed (a refused input
 * is a charged 400 naming the field), path parameters win over a body or query field of the same
 * name, and a query string is read as trpc-to-openapi read it (a repeated key is a list).
 */
import { describe, expect, it } from 'vitest';
import { api, createPost, newAccount } from '../support/api';

describe('a refused input', () => {
  it('is charged like any call: 400 naming the field, with the RateLimit-* of the unit it cost', async () => {
    const { token } = await newAccount({ limits: { write_per_min: 5, read_per_min: 7, publish_per_min: 3 } });
    // Each rate class's first unit of the minute: Remaining is its limit minus one, whatever the time.
    const write = await api('POST', '/posts', { token, json: { title: '  ', markdown: 'x' } });
    expect(write.status).toBe(400);
    expect(write.body).toEqual({ error: 'title: must not be empty' });
    expect(write.headers.get('ratelimit-limit')).toBe('5');
    expect(write.headers.get('ratelimit-remaining')).toBe('4');

    const read = await api('GET', '/posts?limit=0', { token });
    expect(read.status).toBe(400);
    expect(read.body.error).toMatch(/^limit: must be an integer from 1 to \d+$/);
    expect(read.headers.get('ratelimit-limit')).toBe('7');
    expect(read.headers.get('ratelimit-remaining')).toBe('6');

    const publish = await api('POST', '/posts/not-a-uuid/publish', { token });
    expect(publish.status).toBe(400);
    expect(publish.body).toEqual({ error: 'id: must be a UUID' });
    expect(publish.headers.get('ratelimit-limit')).toBe('3');
    expect(publish.headers.get('ratelimit-remaining')).toBe('2');
  });

  it('names the field for a path parameter in any form, a repeated query key, an unknown body field', async () => {
    const { token } = await newAccount();
    for (const path of ['/posts/%7Bid%7D', '/posts/abc~', '/posts/A%2FB']) {
      const res = await api('GET', path, { token });
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual({ error: 'id: must be a UUID' });
    }
    const twice = await api('GET', '/posts?status=draft&status=published', { token });
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatch(/^status: /);
    const unknown = await api('POST', '/posts', { token, json: { title: 'T', markdown: 'x', html: '<p>' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'body: unknown field html' });
  });
});

describe('path parameters', () => {
  it('win over a body field or a query parameter of the same name', async () => {
    const { token } = await newAccount();
    const a = await createPost(token, { title: 'Path one' });
    const b = await createPost(token, { title: 'Body one' });

    const patched = await api('PATCH', `/posts/${a.id}`, { token, json: { id: b.id, title: 'Renamed' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: a.id, title: 'Renamed' });
    const published = await api('POST', `/posts/${a.id}/publish`, { token, json: { id: b.id } });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ id: a.id, status: 'published' });
    const read = await api('GET', `/posts/${a.id}?id=${b.id}`, { token });
    expect(read.body.id).toBe(a.id);
    expect((await api('DELETE', `/posts/${a.id}?id=${b.id}`, { token })).status).toBe(204);

    expect((await api('GET', `/posts/${a.id}`, { token })).status).toBe(404);
    expect((await api('GET', `/posts/${b.id}`, { token })).body).toMatchObject({ title: 'Body one', status: 'draft' });
  });
});

describe('routes', () => {
  it('an unknown route is 404 for every method, before the token is looked at', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['POST', '/posts/x/archive'],
      ['PUT', '/posts'],
      ['PATCH', '/posts'],
      ['DELETE', '/posts'],
      ['OPTIONS', '/me'],
    ] as const) {
      const res = await api(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body, `${method} ${path}`).toEqual({ error: 'Not found', code: 'not_found' });
    }
  });

  it('are exact: another case of a route is 404, never the route', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    for (const [method, path] of [
      ['GET', '/ME'],
      ['GET', '/Me'],
      ['GET', '/POSTS'],
      ['GET', `/Posts/${post.id}`],
      ['POST', `/posts/${post.id}/Publish`],
      ['POST', '/Media/from-url'],
    ] as const) {
      const res = await api(method, path, { token, json: method === 'POST' ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body, `${method} ${path}`).toEqual({ error: 'Not found', code: 'not_found' });
    }
    expect((await api('GET', '/me', { token })).status).toBe(200);
  });

  it('publish and unpublish take no body: none or {} is accepted, any field is a 400 naming it', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    for (const route of ['publish', 'unpublish']) {
      const res = await api('POST', `/posts/${post.id}/${route}`, { token, json: { foo: 1 } });
      expect(res.status, route).toBe(400);
      expect(res.body.error, route).toMatch(/foo/);
      expect(res.body.code, route).toBeUndefined();
    }
    // Nothing changed: still a draft. Then both work without a body and with {}.
    expect((await api('GET', `/posts/${post.id}`, { token })).body.status).toBe('draft');
    expect((await api('POST', `/posts/${post.id}/publish`, { token })).status).toBe(200);
    expect((await api('POST', `/posts/${post.id}/unpublish`, { token, json: {} })).status).toBe(204);
    expect((await api('POST', `/posts/${post.id}/publish`, { token, json: {} })).status).toBe(200);
    expect((await api('POST', `/posts/${post.id}/unpublish`, { token })).status).toBe(204);
  });

  it('a route without input ignores the query string', async () => {
    const { token, handle } = await newAccount();
    const me = await api('GET', '/me?handle=someone-else&limits=1', { token });
    expect(me.status).toBe(200);
    expect(me.body.handle).toBe(handle);
  });
});
