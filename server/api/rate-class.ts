import type { EntityManager } from '@mikro-orm/postgresql';
import { rateLimited } from '../errors';
import { consume, limitFor, rateLimitHeaders, type RateClass } from '../services/limits';
import type { Authenticated } from '../services/tokens';

/**
 * Spends one unit of the account's minute window for `cls` (SPEC "Limits"), writes the
 * RateLimit-* headers (plus Retry-After when refused) and throws 429 rate_limited when the
 * window is used up. Shared by the tRPC procedures and the multipart upload handler.
 */
export async function chargeRateClass(
  em: EntityManager,
  account: Authenticated['account'],
  cls: RateClass,
  setHeader: (name: string, value: string) => void,
): Promise<void> {
  const state = await consume(em, account.id, cls, limitFor(account, cls));
  for (const [name, value] of Object.entries(rateLimitHeaders(state, !state.allowed))) setHeader(name, value);
  if (!state.allowed) throw rateLimited(`${cls} limit of ${state.limit} requests per minute reached; retry after ${state.retryAfter} s`);
}
