import { rateLimited, unauthenticated, type LimitWindow } from '../foundation/errors';
import { rateLimitRefusals } from '../foundation/metrics';
import { authenticate, authenticateAndCharge, authenticateChargeAndRead, type AdmittedRead } from '../services/access';
import { chargeWindow, type WindowState } from '../services/limits';
import type { RateClass } from '../model/rate-classes';
import type { Authenticated } from '../services/tokens';
import type { AppParts } from '../runtime/parts';

/** The statements the process's parts run (the procedures never name the database layer). */
type StatementRunner = AppParts['db'];

/** Request headers by lower-case name (a fetch `Headers` fits, and so does a thin view of Node's). */
export interface RequestHeaders {
  get(name: string): string | null;
}

/** the contract "Authentication": only `Authorization: Bearer dp_live_…`; everything else is 401. */
function bearerSecret(headers: RequestHeaders): string {
  const header = headers.get('authorization');
  if (!header) throw unauthenticated('Authorization: send "Bearer <API token>"');
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthenticated('Authorization: send "Bearer <API token>"');
  if (!match[1]!.startsWith('dp_live_')) throw unauthenticated('Authorization: only dp_live_ API tokens are accepted');
  return match[1]!;
}

const unknownToken = () => unauthenticated('Authorization: the token is unknown or revoked');

/**
 * The caller's account, before anything else of the request is read: used for requests with
 * a body, so a missing or dead token is answered 401 without receiving megabytes first.
 */
export async function identify(db: StatementRunner, headers: RequestHeaders): Promise<Authenticated> {
  const auth = await authenticate(db, bearerSecret(headers));
  if (!auth) throw unknownToken();
  return auth;
}

/**
 * Admits one request of rate class `cls` (contract: "Authentication" and "Limits"): the token's
 * account plus one unit of its minute window, in one round trip unless `identified` already
 * holds the account. Returns the account and the window it was charged to (the transport writes
 * the RateLimit-* headers from it); throws `unauthenticated` for a bad token and `rate_limited`
 * (with the window) when the window is used up.
 * Shared by the tRPC procedures and the multipart upload, so both refuse alike.
 */
export async function admit(
  db: StatementRunner,
  headers: RequestHeaders,
  cls: RateClass,
  identified?: Authenticated,
): Promise<{ auth: Authenticated; window: LimitWindow }> {
  let auth: Authenticated;
  let window;
  if (identified) {
    auth = identified;
    window = await chargeWindow(db, identified.account, cls);
  } else {
    const access = await authenticateAndCharge(db, bearerSecret(headers), cls);
    if (!access) throw unknownToken();
    ({ auth, window } = access);
  }
  refuseSpent(cls, window);
  return { auth, window };
}

/**
 * `admit` and a read for the admitted account in one round trip (data/access.ts
 * `admittedStatement`): the same 401 and 429, and `rows` is what the read found.
 */
export async function admitAndRead<Row>(
  db: StatementRunner,
  headers: RequestHeaders,
  cls: RateClass,
  read: AdmittedRead<Row>,
): Promise<{ auth: Authenticated; window: LimitWindow; rows: Row[] }> {
  const access = await authenticateChargeAndRead(db, bearerSecret(headers), cls, read);
  if (!access) throw unknownToken();
  refuseSpent(cls, access.window);
  return access;
}

/** 429 when the charge passed the window's limit (the read, if any, did not run). */
function refuseSpent(cls: RateClass, window: WindowState): void {
  if (window.allowed) return;
  rateLimitRefusals.inc({ class: cls });
  throw rateLimited(
    `${cls} limit of ${window.limit} requests per minute reached; retry after ${window.retryAfter} s`,
    window,
  );
}
