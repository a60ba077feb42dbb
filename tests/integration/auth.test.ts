import { describe, expect, it } from 'vitest';
import { api, newAccount, serviceEnv } from '../support/api';
import { cli } from '../support/service';

/** Authentication (docs/api.md): the 401 matrix, token lifecycle through the CLI. */
describe('authentication', () => {
  const unauthorizedBody = { code: 'unauthorized' };

  it('refuses every request without a valid dp_live_ bearer token with 401 unauthorized', async () => {
    const account = await newAccount();
    const jwt =
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
    const cases: Record<string, Record<string, string>> = {
      'no header': {},
      'another scheme': { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      'token without scheme': { authorization: account.token },
      'another prefix': { authorization: `Bearer dp_test_${account.token.slice(8)}` },
      'unknown secret': { authorization: `Bearer dp_live_${'A'.repeat(43)}` },
      'truncated secret': { authorization: `Bearer ${account.token.slice(0, -1)}` },
      'site JWT': { authorization: `Bearer ${jwt}` },
      'empty bearer': { authorization: 'Bearer ' },
    };
    for (const [name, headers] of Object.entries(cases)) {
      for (const [method, path] of [
        ['GET', '/me'],
        ['GET', '/posts'],
        ['POST', '/posts'],
        ['DELETE', '/posts/00000000-0000-4000-8000-000000000000'],
      ] as const) {
        const res = await api(method, path, { headers });
        expect(res.status, `${name} ${method} ${path}`).toBe(401);
        expect(res.body, name).toMatchObject(unauthorizedBody);
        expect(typeof res.body.error).toBe('string');
        expect(Object.keys(res.body).sort()).toEqual(['code', 'error']);
      }
    }
    const ok = await api('GET', '/me', { token: account.token });
    expect(ok.status).toBe(200);
    expect(ok.body.handle).toBe(account.handle);
  });

  it('reissue keeps id and name and kills the old secret; revoke kills at once; at most five active', async () => {
    const env = serviceEnv();
    const account = await newAccount();
    const created = await cli(env, ['token', 'create', account.handle, '--name', 'ci']);
    expect(created.code).toBe(0);
    const token = created.json as { id: string; name: string; token: string };
    expect(token.name).toBe('ci');
    expect(token.token).toMatch(/^dp_live_[0-9A-Za-z]{43}$/);
    expect((await api('GET', '/me', { token: token.token })).status).toBe(200);

    const reissued = await cli(env, ['token', 'reissue', token.id]);
    expect(reissued.code).toBe(0);
    const fresh = reissued.json as { id: string; name: string; token: string };
    expect(fresh.id).toBe(token.id);
    expect(fresh.name).toBe('ci');
    expect(fresh.token).not.toBe(token.token);
    expect((await api('GET', '/me', { token: token.token })).status).toBe(401);
    expect((await api('GET', '/me', { token: fresh.token })).status).toBe(200);

    const list = await cli(env, ['token', 'list', account.handle]);
    const rows = list.json as {
      id: string;
      prefix: string;
      last_four: string;
      last_used_at: string | null;
      revoked_at: string | null;
    }[];
    const row = rows.find((r) => r.id === token.id)!;
    expect(row.prefix).toBe('dp_live_');
    expect(row.last_four).toBe(fresh.token.slice(-4));
    expect(row.last_used_at).not.toBeNull();
    expect(JSON.stringify(rows)).not.toContain(fresh.token);

    expect((await cli(env, ['token', 'revoke', token.id])).code).toBe(0);
    expect((await api('GET', '/me', { token: fresh.token })).status).toBe(401);

    // The account has its default token; three more reach five; the sixth is refused.
    for (let i = 0; i < 4; i++) expect((await cli(env, ['token', 'create', account.handle])).code).toBe(0);
    const sixth = await cli(env, ['token', 'create', account.handle]);
    expect(sixth.code).toBe(1);
    expect(sixth.stderr).toMatch(/at most 5 active tokens/);
  });

  it('account deletion revokes all its tokens', async () => {
    const env = serviceEnv();
    const account = await newAccount();
    expect((await api('GET', '/me', { token: account.token })).status).toBe(200);
    const deleted = await cli(env, ['account', 'delete', account.handle]);
    expect(deleted.code).toBe(0);
    const res = await api('GET', '/me', { token: account.token });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('CLI errors are readable with exit code 1', async () => {
    const env = serviceEnv();
    const unknown = await cli(env, ['token', 'list', 'nobody-here-xyz']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No account with handle/);
    const bad = await cli(env, ['account', 'create', 'x', '--limit', 'nonsense=1']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--limit nonsense=1/);
    const usage = await cli(env, ['frobnicate']);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toMatch(/unknown command/);
  });
});
