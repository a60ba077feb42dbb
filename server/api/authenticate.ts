import type { EntityManager } from '@mikro-orm/postgresql';
import { getOrm } from '../../db/orm';
import { unauthorized } from '../errors';
import { authenticateSecret, type Authenticated } from '../services/tokens';

/** SPEC "Authentication": only `Authorization: Bearer dp_live_…`; everything else is 401. */
export function bearerSecret(headers: Headers): string | null {
  const header = headers.get('authorization');
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * The caller's account from the request headers, with a request-scoped EntityManager.
 * Shared by the tRPC procedures and the multipart upload handler so both refuse alike.
 */
export async function authenticateRequest(headers: Headers): Promise<{ em: EntityManager; auth: Authenticated }> {
  const secret = bearerSecret(headers);
  if (!secret) throw unauthorized('Authorization: send "Bearer <API token>"');
  if (!secret.startsWith('dp_live_')) throw unauthorized('Authorization: only dp_live_ API tokens are accepted');
  const em = (await getOrm()).em.fork() as unknown as EntityManager;
  const auth = await authenticateSecret(em, secret);
  if (!auth) throw unauthorized('Authorization: the token is unknown or revoked');
  return { em, auth };
}
