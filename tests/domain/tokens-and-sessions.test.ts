/**
 * API tokens and console sessions against a real PostgreSQL, through the services and the
 * console's session store: a token record is read once, in the shape the CLI prints and the
 * console shows (server/model/token.ts), and a console session lives only as long as the token
 * it was opened with and its account.
 */
import { describe, expect, it, vi } from 'vitest';
import { closeSession, findSession, openSession } from '../../server/console/session-store';
import { deleteAccount, findLiveAccount } from '../../server/services/access/accounts';
import {
  createToken,
  findAccountToken,
  listTokens,
  reissueToken,
  revokeToken,
} from '../../server/services/access/tokens';
import { admitterFor, domainDatabase, newAccount } from './support';

// Next's marker that these modules run on the server only; there is no Next here.
vi.mock('server-only', () => ({}));

const parts = domainDatabase();
const db = () => parts.db();

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function sessionOf(handle: string, tokenId: string) {
  return openSession(db(), { tokenId, account: await findLiveAccount(db(), handle) });
}

describe('API tokens', () => {
  it('lists each token in the shape the CLI prints and the console shows: its fields only, ISO 8601 times, never its secret', async () => {
    const account = await newAccount(db());
    // The first token used once: the admission records when, without delaying the response.
    await admitterFor(db(), account.secret).page({});
    await vi.waitFor(async () => expect((await listTokens(db(), account.id))[0]!.last_used_at).not.toBeNull());
    const { token: second, secret } = await createToken(db(), account.id, '  ci-sync  ');

    const tokens = await listTokens(db(), account.id);
    expect(tokens.map((t) => t.name)).toEqual(['default', 'ci-sync']);
    for (const t of tokens) {
      expect(Object.keys(t)).toEqual(['id', 'name', 'prefix', 'last_four', 'created_at', 'last_used_at', 'revoked_at']);
      expect(t.prefix).toBe('dp_live_');
      expect(t.created_at).toMatch(ISO);
      expect(t.revoked_at).toBeNull();
    }
    const [first, listed] = tokens;
    expect(first!.last_four).toBe(account.secret.slice(-4));
    expect(first!.last_used_at).toMatch(ISO);
    expect(listed).toEqual(second);
    expect(listed!.last_four).toBe(secret.slice(-4));
    expect(listed!.last_used_at).toBeNull();
    expect(JSON.stringify(tokens)).not.toContain(secret.slice(8));
    expect(JSON.stringify(tokens)).not.toContain(account.secret.slice(8));
  });

  it('keeps the first revocation time, reissues only an active token, and finds only the account its own', async () => {
    const account = await newAccount(db());
    const other = await newAccount(db());
    const { token } = await createToken(db(), account.id, 'ci');

    expect(await findAccountToken(db(), account.id, token.id)).toEqual(token);
    expect(await findAccountToken(db(), other.id, token.id)).toBeNull();
    expect(await findAccountToken(db(), account.id, 'not-a-uuid')).toBeNull();

    const reissued = await reissueToken(db(), token.id);
    expect(reissued.token).toMatchObject({ id: token.id, name: 'ci', created_at: token.created_at });
    expect(reissued.token.last_four).toBe(reissued.secret.slice(-4));

    const revoked = await revokeToken(db(), token.id);
    expect(revoked.revoked_at).toMatch(ISO);
    expect((await revokeToken(db(), token.id)).revoked_at).toBe(revoked.revoked_at);
    await expect(reissueToken(db(), token.id)).rejects.toThrow(/No active token/);
    expect((await listTokens(db(), account.id)).find((t) => t.id === token.id)).toEqual(revoked);
  });

  it('refuses a sixth active token of an account', async () => {
    const account = await newAccount(db());
    for (const name of ['two', 'three', 'four', 'five']) await createToken(db(), account.id, name);
    await expect(createToken(db(), account.id, 'six')).rejects.toThrow(/at most 5 active tokens/);
    expect(await listTokens(db(), account.id)).toHaveLength(5);
  });
});

describe('console sessions', () => {
  it('live until closed, or until their token is reissued or revoked', async () => {
    const account = await newAccount(db());
    const [token] = await listTokens(db(), account.id);

    const closed = await sessionOf(account.handle, token!.id);
    const found = await findSession(db(), closed.cookieValue);
    expect(found?.auth).toEqual({ tokenId: token!.id, account: await findLiveAccount(db(), account.handle) });
    expect(found?.expiresAt.getTime()).toBe(closed.expiresAt.getTime());
    await closeSession(db(), closed.cookieValue);
    expect(await findSession(db(), closed.cookieValue)).toBeNull();

    const beforeReissue = await sessionOf(account.handle, token!.id);
    expect(await findSession(db(), beforeReissue.cookieValue)).not.toBeNull();
    await reissueToken(db(), token!.id);
    expect(await findSession(db(), beforeReissue.cookieValue)).toBeNull();

    const beforeRevoke = await sessionOf(account.handle, token!.id);
    expect(await findSession(db(), beforeRevoke.cookieValue)).not.toBeNull();
    await revokeToken(db(), token!.id);
    expect(await findSession(db(), beforeRevoke.cookieValue)).toBeNull();
  });

  it('end with their account, whose tokens are all revoked', async () => {
    const account = await newAccount(db());
    const [token] = await listTokens(db(), account.id);
    const session = await sessionOf(account.handle, token!.id);

    const deleted = await deleteAccount(db(), account.handle, () => {});
    expect(deleted.id).toBe(account.id);
    expect(await findSession(db(), session.cookieValue)).toBeNull();
    expect((await listTokens(db(), account.id)).map((t) => t.revoked_at)).toEqual([expect.stringMatching(ISO)]);
  });
});
