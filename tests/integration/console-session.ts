/**
 * A console session opened directly in the database, as sign-in would: a keyed hash of the
 * cookie under the instance's SESSION_SECRET. For tests of console routes that need no browser.
 */
import { createHmac, randomBytes } from 'node:crypto';
import pg from 'pg';
import { sharedDatabaseUrl } from '../support/shared-database';

/**
 * A console session opened directly in the database, as sign-in would: a keyed hash of the
 * cookie under the instance's SESSION_SECRET (`secret`), with a CSRF token.
 */
export async function openConsoleSession(secret: string, accountId: string): Promise<{ cookie: string; csrf: string }> {
  const cookie = randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  const key = createHmac('sha256', Buffer.from(secret, 'utf8')).update('author-publishing:console-session').digest();
  const idHash = createHmac('sha256', key).update(cookie, 'utf8').digest();
  const client = new pg.Client({ connectionString: await sharedDatabaseUrl() });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO console_sessions (id_hash, account_id, token_id, csrf_token, created_at, expires_at)
       SELECT $1, $2, t.id, $3, now(), now() + interval '1 hour'
         FROM api_tokens t WHERE t.account_id = $2 AND t.revoked_at IS NULL LIMIT 1`,
      [idHash, accountId, csrf],
    );
  } finally {
    await client.end();
  }
  return { cookie: `dp_console=${cookie}`, csrf };
}
