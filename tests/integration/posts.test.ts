import { describe, expect, it } from 'vitest';
import { api, createPost, newAccount } from '../support/api';

const AUTHOR_POST_KEYS = [
  'id',
  'public_id',
  'canonical_path',
  'title',
  'subtitle',
  'slug',
  'status',
  'tags',
  'cover_asset_id',
  'cover_url',
  'cover_width',
  'cover_height',
  'published_at',
  'created_at',
  'updated_at',
  'has_unpublished_changes',
  'like_count',
  'comment_count',
  'save_count',
  'popularity',
  'impression_count',
  'open_count',
  'read_count',
  'complete_count',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('POST /posts', () => {
  it('creates a draft with every AuthorPost field and no html', async () => {
    const { token } = await newAccount();
    const res = await api('POST', '/posts', {
      token,
      json: {
        title: '  Hello, world  ',
        markdown: 'Body **bold**.',
        subtitle: 'Sub',
        tags: ['Node.js', 'Web Dev', 'node js'],
      },
    });
    expect(res.status).toBe(201);
    const post = res.body;
    expect(Object.keys(post)).toEqual(AUTHOR_POST_KEYS);
    expect(post.id).toMatch(UUID);
    expect(post.public_id).toMatch(/^[0-9a-z]{10}$/);
    expect(post.public_id).not.toBe(post.id);
    expect(post.title).toBe('Hello, world');
    expect(post.slug).toBe('hello-world');
    expect(post.canonical_path).toBe(`/hello-world-${post.public_id}`);
    expect(post.status).toBe('draft');
    expect(post.subtitle).toBe('Sub');
    expect(post.tags).toEqual([
      { slug: 'node-js', name: 'Node.js' },
      { slug: 'web-dev', name: 'Web Dev' },
    ]);
    expect(post.published_at).toBeNull();
    expect(post.has_unpublished_changes).toBe(false);
    expect(post.cover_asset_id).toBeNull();
    expect(post.cover_url).toBeNull();
    for (const counter of [
      'like_count',
      'comment_count',
      'save_count',
      'popularity',
      'impression_count',
      'open_count',
      'read_count',
      'complete_count',
    ]) {
      expect(post[counter]).toBe(0);
    }
    expect(new Date(post.created_at).toISOString()).toBe(post.created_at);
    expect(post).not.toHaveProperty('html');
    expect(post).not.toHaveProperty('rehost_failed');
    expect(post).not.toHaveProperty('warnings');
  });

  it('derives slugs from any script and disambiguates derived ones; 409 for a requested slug in use', async () => {
    const { token } = await newAccount();
    expect((await createPost(token, { title: 'Привет, мир!' })).slug).toBe('privet-mir');
    expect((await createPost(token, { title: 'Привет, мир!' })).slug).toBe('privet-mir-2');
    expect((await createPost(token, { title: '🎉🎉' })).slug).toBe('post');
    expect((await createPost(token, { title: 'x', slug: 'my-slug' })).slug).toBe('my-slug');
    const dup = await api('POST', '/posts', { token, json: { title: 'y', markdown: 'z', slug: 'my-slug' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: expect.stringContaining('slug') });
    // Concurrent writes with one title still get distinct derived slugs, never a 409.
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => api('POST', '/posts', { token, json: { title: 'Same title', markdown: 'x' } })),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(burst.map((r) => r.body.slug)).size).toBe(8);
    // Free across authors.
    const other = await newAccount();
    expect((await createPost(other.token, { title: 'x', slug: 'my-slug' })).slug).toBe('my-slug');
  });

  it('answers 400 without code for each invalid body, naming the field', async () => {
    const { token } = await newAccount();
    const cases: [unknown, RegExp][] = [
      [{ markdown: 'x' }, /title/],
      [{ title: '   ', markdown: 'x' }, /title/],
      [{ title: 'x' }, /markdown/],
      [{ title: 'x', markdown: ' \n ' }, /markdown/],
      [{ title: 'x', markdown: 'x', slug: 'Not A Slug' }, /slug/],
      [{ title: 'x', markdown: 'x', slug: '' }, /slug/],
      [{ title: 'x', markdown: 'x', cover_asset_id: MISSING }, /cover_asset_id/],
      [{ title: 'x', markdown: 'x', cover_asset_id: 'nope' }, /cover_asset_id/],
      [{ title: 'x', markdown: 'x', cover_width: 10 }, /cover_width/],
      [{ title: 'x', markdown: 'x', tags: 'a' }, /tags/],
      [{ title: 'x', markdown: 'x', tags: [''] }, /tags/],
      [{ title: 5, markdown: 'x' }, /title/],
      [[1, 2], /body|object/],
      [{ title: 'x', markdown: '<script>alert(1)</script>' }, /markdown/],
    ];
    for (const [json, message] of cases) {
      const res = await api('POST', '/posts', { token, json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(Object.keys(res.body), JSON.stringify(json)).toEqual(['error']);
      expect(res.body.error, JSON.stringify(json)).toMatch(message);
    }
  });

  it('accepts a 1 MB Markdown body', async () => {
    const { token } = await newAccount();
    const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(20) + '\n\n';
    const markdown = paragraph.repeat(Math.ceil(1_000_000 / paragraph.length));
    expect(markdown.length).toBeGreaterThanOrEqual(1_000_000);
    const res = await api('POST', '/posts', { token, json: { title: 'Big', markdown } });
    expect(res.status).toBe(201);
    const got = await api('GET', `/posts/${res.body.id}`, { token });
    expect(got.body.html.length).toBeGreaterThan(1_000_000);
  });
});

describe('transport edge cases answer in the contract shape', () => {
  it('malformed JSON, wrong content type, oversized body, unknown route, wrong method', async () => {
    const { token } = await newAccount();
    const malformed = await api('POST', '/posts', {
      token,
      body: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.body)).toEqual(['error']);

    const form = await api('POST', '/posts', { token, body: 'title=x', headers: { 'content-type': 'text/plain' } });
    expect(form.status).toBe(400);
    expect(form.body.error).toMatch(/Content-Type/);

    const huge = await api('POST', '/posts', {
      token,
      body: JSON.stringify({ title: 'x', markdown: 'y'.repeat(9 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(400);
    expect(huge.body.error).toMatch(/too large|larger/);

    const unknown = await api('GET', '/nope', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Not found', code: 'not_found' });

    const method = await api('PUT', `/posts/${MISSING}`, { token, json: {} });
    expect(method.status).toBe(404);
    expect(method.body.code).toBe('not_found');
  });

  it('returns X-Request-Id on every response, echoing a well-formed one', async () => {
    const { token } = await newAccount();
    const res = await api('GET', '/me', { token, headers: { 'x-request-id': 'trace-abc.123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-abc.123');
    const bad = await api('GET', '/me', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(bad.headers.get('x-request-id')).toMatch(UUID);
  });
});

describe('GET /posts/{id} and the 404 matrix', () => {
  it('returns html of the working version and 404s alike for missing, deleted and foreign articles', async () => {
    const alice = await newAccount();
    const bob = await newAccount();
    const post = await createPost(alice.token, { title: 'Mine', markdown: 'Hello' });
    const got = await api('GET', `/posts/${post.id}`, { token: alice.token });
    expect(got.status).toBe(200);
    expect(Object.keys(got.body)).toEqual([...AUTHOR_POST_KEYS, 'html']);
    expect(got.body.html).toContain('<h1>Mine</h1>');
    expect(got.body.html).toContain('<p>Hello</p>');

    const deleted = await createPost(alice.token);
    expect((await api('DELETE', `/posts/${deleted.id}`, { token: alice.token })).status).toBe(204);

    const bodies = new Set<string>();
    for (const [token, id] of [
      [alice.token, MISSING],
      [alice.token, deleted.id],
      [bob.token, post.id],
    ] as const) {
      for (const [method, path, json] of [
        ['GET', `/posts/${id}`, undefined],
        ['PATCH', `/posts/${id}`, { title: 'x' }],
        ['POST', `/posts/${id}/publish`, undefined],
        ['POST', `/posts/${id}/unpublish`, undefined],
        ['DELETE', `/posts/${id}`, undefined],
      ] as const) {
        const res = await api(method, path, { token, json });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.code).toBe('not_found');
        bodies.add(res.text);
      }
    }
    expect(bodies.size).toBe(1);
    // Bob's attempts changed nothing.
    const still = await api('GET', `/posts/${post.id}`, { token: alice.token });
    expect(still.body.title).toBe('Mine');
    expect(still.body.status).toBe('draft');
  });

  it('a non-UUID id is 400 without code', async () => {
    const { token } = await newAccount();
    for (const [method, path] of [
      ['GET', '/posts/not-a-uuid'],
      ['PATCH', '/posts/123'],
      ['POST', '/posts/xyz/publish'],
      ['POST', '/posts/xyz/unpublish'],
      ['DELETE', '/posts/xyz'],
    ] as const) {
      const res = await api(method, path, { token, json: method === 'PATCH' ? { title: 'x' } : undefined });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error).toMatch(/id/);
    }
  });
});

describe('PATCH /posts/{id}', () => {
  it('changes only the fields sent; subtitle null clears; tags replace; empty body is 400', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'T', markdown: 'one', subtitle: 'S', tags: ['a', 'b'] });
    const empty = await api('PATCH', `/posts/${post.id}`, { token, json: {} });
    expect(empty.status).toBe(400);
    expect(Object.keys(empty.body)).toEqual(['error']);

    const res = await api('PATCH', `/posts/${post.id}`, { token, json: { subtitle: null, tags: ['c'] } });
    expect(res.status).toBe(200);
    expect(res.body.subtitle).toBeNull();
    expect(res.body.tags).toEqual([{ slug: 'c', name: 'C'.toLowerCase() }]);
    expect(res.body.title).toBe('T');
    expect(res.body).not.toHaveProperty('html');
    expect(res.body.has_unpublished_changes).toBe(false);
    expect(new Date(res.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(post.updated_at).getTime());

    const md = await api('PATCH', `/posts/${post.id}`, { token, json: { markdown: '# Own heading\n\ntwo' } });
    expect(md.status).toBe(200);
    const got = await api('GET', `/posts/${post.id}`, { token });
    expect(got.body.html).toContain('<h1>Own heading</h1>');
    expect(got.body.html).toContain('two');

    for (const json of [
      { markdown: '' },
      { title: '' },
      { slug: 'Bad Slug' },
      { cover_asset_id: MISSING },
      { unknown: 1 },
    ]) {
      const bad = await api('PATCH', `/posts/${post.id}`, { token, json });
      expect(bad.status, JSON.stringify(json)).toBe(400);
      expect(Object.keys(bad.body)).toEqual(['error']);
    }
  });

  it('409 when the new slug is taken by a live article; a deleted article frees its slug', async () => {
    const { token } = await newAccount();
    const a = await createPost(token, { slug: 'taken' });
    const b = await createPost(token, { slug: 'other' });
    const clash = await api('PATCH', `/posts/${b.id}`, { token, json: { slug: 'taken' } });
    expect(clash.status).toBe(409);
    expect(Object.keys(clash.body)).toEqual(['error']);
    expect((await api('DELETE', `/posts/${a.id}`, { token })).status).toBe(204);
    const freed = await api('PATCH', `/posts/${b.id}`, { token, json: { slug: 'taken' } });
    expect(freed.status).toBe(200);
    expect(freed.body.canonical_path).toBe(`/taken-${b.public_id}`);
  });
});

describe('states and transitions', () => {
  it('draft → published → patched (unpublished changes) → republished → unpublished → deleted', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Flow', markdown: 'v1' });

    const unpublishDraft = await api('POST', `/posts/${post.id}/unpublish`, { token });
    expect(unpublishDraft.status).toBe(400);

    const published = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(published.status).toBe(200);
    expect(Object.keys(published.body)).toEqual(AUTHOR_POST_KEYS);
    expect(published.body.status).toBe('published');
    expect(published.body.published_at).not.toBeNull();
    expect(published.body.has_unpublished_changes).toBe(false);

    const patched = await api('PATCH', `/posts/${post.id}`, { token, json: { markdown: 'v2' } });
    expect(patched.body.status).toBe('published');
    expect(patched.body.has_unpublished_changes).toBe(true);
    const working = await api('GET', `/posts/${post.id}`, { token });
    expect(working.body.html).toContain('v2');

    const again = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(again.status).toBe(200);
    expect(again.body.has_unpublished_changes).toBe(false);

    const unpublished = await api('POST', `/posts/${post.id}/unpublish`, { token });
    expect(unpublished.status).toBe(204);
    expect(unpublished.text).toBe('');
    expect(unpublished.headers.get('content-type')).toBeNull();
    const afterUnpublish = await api('GET', `/posts/${post.id}`, { token });
    expect(afterUnpublish.body.status).toBe('draft');
    expect(afterUnpublish.body.published_at).toBeNull();
    expect(afterUnpublish.body.html).toContain('v2');

    const del = await api('DELETE', `/posts/${post.id}`, { token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api('DELETE', `/posts/${post.id}`, { token })).status).toBe(404);
    expect((await api('GET', `/posts/${post.id}`, { token })).status).toBe(404);
  });

  it('a moderated account goes to pending_moderation; approve publishes, reject returns to draft', async () => {
    const { cli } = await import('../support/service');
    const { serviceEnv } = await import('../support/api');
    const env = serviceEnv();
    const { token } = await newAccount({ moderated: true });
    const post = await createPost(token, { title: 'Moderate me', markdown: 'first' });
    const pending = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(pending.status).toBe(200);
    expect(pending.body.status).toBe('pending_moderation');
    expect(pending.body.published_at).toBeNull();
    const twice = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(twice.status).toBe(400);

    const queue = await cli(env, ['moderation', 'list']);
    expect((queue.json as { id: string }[]).some((p) => p.id === post.id)).toBe(true);
    const approved = await cli(env, ['moderation', 'approve', post.id]);
    expect(approved.code).toBe(0);
    const after = await api('GET', `/posts/${post.id}`, { token });
    expect(after.body.status).toBe('published');
    expect(after.body.published_at).not.toBeNull();

    // A second version waits while the first stays public; rejecting keeps it published.
    await api('PATCH', `/posts/${post.id}`, { token, json: { markdown: 'second' } });
    const pending2 = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(pending2.body.status).toBe('pending_moderation');
    expect(pending2.body.published_at).toBeNull();
    const rejected = await cli(env, ['moderation', 'reject', post.id, '--reason', 'needs sources']);
    expect(rejected.code).toBe(0);
    expect((rejected.json as { status: string }).status).toBe('published');

    const draftOnly = await createPost(token, { markdown: 'never approved' });
    await api('POST', `/posts/${draftOnly.id}/publish`, { token });
    const rejectedDraft = await cli(env, ['moderation', 'reject', draftOnly.id]);
    expect((rejectedDraft.json as { status: string }).status).toBe('draft');
    const unpublishPending = await createPost(token);
    await api('POST', `/posts/${unpublishPending.id}/publish`, { token });
    expect((await api('POST', `/posts/${unpublishPending.id}/unpublish`, { token })).status).toBe(204);
  });
});

describe('GET /posts', () => {
  it('pages by (created_at, id) descending, visiting every article exactly once, with a status filter', async () => {
    const { token } = await newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) ids.push((await createPost(token, { title: `P${i}` })).id);
    await api('POST', `/posts/${ids[3]}/publish`, { token });
    await api('PATCH', `/posts/${ids[0]}`, { token, json: { title: 'edited, does not move' } });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await api('GET', `/posts?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        token,
      });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(5);
      for (const item of res.body.items) {
        expect(item).not.toHaveProperty('html');
        seen.push(item.id);
      }
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual([...ids].reverse());

    const def = await api('GET', '/posts', { token });
    expect(def.body.items).toHaveLength(20);
    const published = await api('GET', '/posts?status=published', { token });
    expect(published.body.items.map((p: { id: string }) => p.id)).toEqual([ids[3]]);
    expect(published.body.next_cursor).toBeNull();
  });

  it('400 for an unknown status, a bad limit and a corrupted or foreign cursor', async () => {
    const alice = await newAccount();
    const bob = await newAccount();
    for (let i = 0; i < 3; i++) await createPost(alice.token);
    const page = await api('GET', '/posts?limit=1', { token: alice.token });
    const cursor: string = page.body.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    const tampered = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
    for (const query of [
      'status=archived',
      'limit=0',
      'limit=51',
      'limit=abc',
      `cursor=${encodeURIComponent(tampered)}`,
      'cursor=garbage',
    ]) {
      const res = await api('GET', `/posts?${query}`, { token: alice.token });
      expect(res.status, query).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
    }
    const foreign = await api('GET', `/posts?cursor=${encodeURIComponent(cursor)}`, { token: bob.token });
    expect(foreign.status).toBe(400);
  });
});

describe('GET /me', () => {
  it('returns the handle and the Limits object', async () => {
    const account = await newAccount({ limits: { read_per_min: 77 } });
    const res = await api('GET', '/me', { token: account.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      handle: account.handle,
      limits: {
        read_per_min: 77,
        write_per_min: 10000,
        publish_per_min: 10000,
        media_per_min: 10000,
        daily_media_bytes: 209715200,
        daily_media_bytes_used: 0,
      },
    });
  });
});
