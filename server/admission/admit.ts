import type { StatementRunner } from '../../db/statements';
import { rateLimited, unauthenticated, type LimitWindow } from '../foundation/errors';
import { rateLimitRefusals } from '../foundation/metrics';
import { inSpan, TRACING } from '../foundation/tracing';
import { limitFor, type Authenticated } from '../model/account';
import type { RateClass } from '../model/rate-classes';
import { hashSecret, looksLikeToken } from '../model/token-secret';
import type { AdmittedRead } from './admitted-statement';
import { admitInLane } from './lanes';
import { authenticate, authenticateAndCharge } from './token-match';
import { chargeWindow, windowAfter, type WindowState } from './window-charge';

/**
 * Who calls, and may they call now (contract: "Authentication" and "Limits"): every REST
 * request's admission, from here alone. Three ways in, one set of answers (401 for a bad token,
 * 429 with the window when it is used up, RateLimit-* from the window charged):
 * - `admitAndRead`: a read admitted in the statement that admits its caller (lanes.ts batches
 *   them across callers);
 * - `admit`: the token check and one unit of the window in one statement, or only the unit when
 *   the caller was identified before its body was read;
 * - `identify`: the token check alone, before a large body is read.
 */

/** Request headers by lower-case name (a fetch `Headers` fits, and so does a thin view of Node's). */
export interface RequestHeaders {
  get(name: string): string | null;
}

/** Only `Authorization: Bearer dp_live_…`; everything else is 401. */
function bearerSecret(headers: RequestHeaders): string {
  const header = headers.get('authorization');
  if (!header) throw unauthenticated('Authorization: send "Bearer <API token>"');
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthenticated('Authorization: send "Bearer <API token>"');
  if (!match[1]!.startsWith('dp_live_'))
    throw unauthenticated('Authorization: only dp_live_ API tokens are accepted', { tokenRefused: true });
  return match[1]!;
}

const unknownToken = () => unauthenticated('Authorization: the token is unknown or revoked', { tokenRefused: true });

/**
 * The caller's account, before anything else of the request is read: used for requests with
 * a large body, so a missing or dead token is answered 401 without receiving megabytes first.
 */
export function identify(db: StatementRunner, headers: RequestHeaders): Promise<Authenticated> {
  return TRACING ? inAdmissionSpan('identify', undefined, () => identifyNow(db, headers)) : identifyNow(db, headers);
}

async function identifyNow(db: StatementRunner, headers: RequestHeaders): Promise<Authenticated> {
  const auth = await authenticate(db, bearerSecret(headers));
  if (!auth) throw unknownToken();
  return auth;
}

/**
 * Admits one request of rate class `cls`: the token's account plus one unit of its minute
 * window, in one round trip unless `identified` already holds the account. Shared by the tRPC
 * procedures and the multipart upload, so both refuse alike.
 */
export function admit(
  db: StatementRunner,
  headers: RequestHeaders,
  cls: RateClass,
  identified?: Authenticated,
): Promise<{ auth: Authenticated; window: LimitWindow }> {
  return TRACING
    ? inAdmissionSpan('admit', cls, () => admitNow(db, headers, cls, identified))
    : admitNow(db, headers, cls, identified);
}

async function admitNow(
  db: StatementRunner,
  headers: RequestHeaders,
  cls: RateClass,
  identified?: Authenticated,
): Promise<{ auth: Authenticated; window: LimitWindow }> {
  let auth: Authenticated;
  let window: WindowState;
  if (identified) {
    auth = identified;
    window = await chargeWindow(db, identified.account, cls);
  } else {
    const found = await authenticateAndCharge(db, bearerSecret(headers), cls);
    if (!found) throw unknownToken();
    auth = found.auth;
    window = windowAfter(found.window, limitFor(auth.account, cls));
  }
  refuseSpent(cls, window);
  return { auth, window };
}

/**
 * `admit` and a read for the admitted account in one statement, shared with the requests of any
 * callers that meet it: the same 401 and 429, and `rows` is what the read found.
 */
export function admitAndRead<Row>(
  db: StatementRunner,
  headers: RequestHeaders,
  cls: RateClass,
  read: AdmittedRead<Row>,
): Promise<{ auth: Authenticated; window: LimitWindow; rows: Row[] }> {
  return TRACING
    ? inAdmissionSpan('admit_and_read', cls, () => admitAndReadNow(db, headers, cls, read), read.statement.name)
    : admitAndReadNow(db, headers, cls, read);
}

async function admitAndReadNow<Row>(
  db: StatementRunner,
  headers: RequestHeaders,
  cls: RateClass,
  read: AdmittedRead<Row>,
): Promise<{ auth: Authenticated; window: LimitWindow; rows: Row[] }> {
  // The statement checks the limit of the class it was built for: it must be the route's.
  if (read.statement.cls !== cls) throw new Error(`${read.statement.name} is a ${read.statement.cls} read, not ${cls}`);
  const secret = bearerSecret(headers);
  if (!looksLikeToken(secret)) throw unknownToken();
  const found = await admitInLane(db, hashSecret(secret), read);
  if (!found) throw unknownToken();
  const window = windowAfter(found.window, limitFor(found.auth.account, cls));
  refuseSpent(cls, window);
  return { auth: found.auth, window, rows: found.rows };
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

/**
 * A way in as an `admission` span (traces on): which way, the rate class, the admitted read's
 * statement; a batched read adds the batch it joined (lanes.ts). A 401 or a 429 marks it an
 * error of that kind.
 */
function inAdmissionSpan<T>(way: string, cls: RateClass | undefined, work: () => Promise<T>, statement?: string) {
  const attributes: Record<string, string> = { 'admission.way': way };
  if (cls) attributes['admission.rate_class'] = cls;
  if (statement) attributes['admission.statement'] = statement;
  return inSpan('admission', { attributes }, work);
}
