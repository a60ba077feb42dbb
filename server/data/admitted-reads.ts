/**
 * Reads admitted in the statement that admits their caller (GET /me, GET /posts, GET /posts/{id},
 * and PATCH /posts/{id}'s read of the article it edits): the access aggregate's token match and
 * the limits aggregate's window charge, with the read.
 */
import { statement, type Statement, type StatementRunner } from '../../db/statements';
import { LIMITS, RATE_CLASSES, type RateClass } from '../model/rate-classes';
import { matchOf, TOKEN_MATCH, type MatchRow, type TokenMatch } from './access';
import { mediaBytesTodayQuery, windowUpsert, type WindowRow } from './limits';

/**
 * A read admitted in the statement that admits its caller: the token lookup, one unit of the
 * account's window and the read, in one round trip (an authenticated read would otherwise pay
 * two). The read runs only for a live token whose window still allows it, so a refused request
 * reads nothing; `read` names the caller's account as `ADMITTED_ACCOUNT` and takes its own
 * parameters from `$3` on (`$1` is the digest, `$2` the rate class).
 *
 * The first row carries the admission under `adm_` names (so no read column can shadow it),
 * and every row one row of the read, numbered from 1 in the read's order (`adm_n`); a single row
 * without one (`adm_n` null) when the read found nothing or did not run. The admission is not
 * repeated on the other rows, which PostgreSQL would print and pg parse again for each article of
 * a page (the secret's digest among them). No row at all: no live token.
 */
export const ADMITTED_ACCOUNT = 'hit.id';

const ADMISSION_NAMES = [
  'token_id',
  'secret_hash',
  'stale_use',
  'id',
  'handle',
  'is_admin',
  'is_moderated',
  ...LIMITS.map((l) => l.name),
];

/** An admitted read's statement, for the one rate class whose limit it checks. */
export type AdmittedStatement = Statement & { readonly cls: RateClass };

/**
 * `rows`: the parameter (`$n`) that says how many rows of the read to return, for a read whose
 * own LIMIT is a constant ceiling. A LIMIT taken from a parameter makes PostgreSQL's generic
 * plan guess a tenth of the table, so it plans the whole statement again on every call (seen as
 * half again the PostgreSQL CPU of a page); numbered rows cut at `$n` stop the scan just as
 * early (the window's run condition) and keep one plan.
 */
export function admittedStatement(
  name: string,
  cls: RateClass,
  read: string,
  opts: { rows?: string } = {},
): AdmittedStatement {
  const first = (column: string, as: string) => `CASE WHEN r.adm_n IS NULL OR r.adm_n = 1 THEN ${column} END AS ${as}`;
  const admission = [
    ...ADMISSION_NAMES.map((n) => first(`hit.${n}`, `adm_${n}`)),
    first('charged.count', 'adm_count'),
    first('charged.window_start', 'adm_window_start'),
    first('charged.now', 'adm_now'),
  ];
  const st = statement(
    name,
    `WITH hit AS (${TOKEN_MATCH}),
          charged AS (${windowUpsert('hit.id', 'FROM hit')})
     SELECT ${admission.join(', ')}, r.*
       FROM hit LEFT JOIN charged ON true
       LEFT JOIN LATERAL (
         SELECT * FROM (
           SELECT row_number() OVER () AS adm_n, q.* FROM (${read}) q
            WHERE charged.count <= hit.${RATE_CLASSES[cls].limit}
         ) numbered ${opts.rows ? `WHERE adm_n <= ${opts.rows}` : ''}
       ) r ON true
      ORDER BY r.adm_n`,
  );
  return { ...st, cls };
}

/** A read to run admitted: its statement (`admittedStatement`) and its own parameters. */
export interface AdmittedRead<Row> {
  statement: AdmittedStatement;
  values: unknown[];
  /** Only carries the row type. */
  readonly row?: Row;
}

type AdmissionRow = { adm_n: string | null; adm_count: number | null } & Record<string, unknown>;

/** The admission's columns without their prefix: the row `matchTokenAndCharge` reads. */
function admissionOf(row: AdmissionRow): { match: TokenMatch; window: WindowRow } | null {
  if (row.adm_count == null) return null;
  const plain: Record<string, unknown> = {};
  for (const name of ADMISSION_NAMES) plain[name] = row[`adm_${name}`];
  return {
    match: matchOf(plain as MatchRow),
    window: { count: row.adm_count, window_start: row.adm_window_start as string, now: row.adm_now as string },
  };
}

/** Runs an admitted read: the admission and the rows the read returned (none when it did not run). */
export async function matchTokenChargeAndRead<Row>(
  db: StatementRunner,
  digest: Buffer,
  read: AdmittedRead<Row>,
): Promise<{ match: TokenMatch; window: WindowRow; rows: Row[] } | null> {
  const rows = await db.run<AdmissionRow>(read.statement, [digest, read.statement.cls, ...read.values]);
  const admission = rows[0] && admissionOf(rows[0]);
  if (!admission) return null;
  return { ...admission, rows: (rows[0]!.adm_n === null ? [] : rows) as unknown as Row[] };
}

const ADMITTED_MEDIA_BYTES_TODAY = admittedStatement(
  'admitted_media_bytes_today',
  'read',
  mediaBytesTodayQuery(ADMITTED_ACCOUNT),
);

/** Today's media bytes of the caller admitted by the same statement (GET /me). */
export const admittedMediaBytesToday = (): AdmittedRead<{ bytes: string }> => ({
  statement: ADMITTED_MEDIA_BYTES_TODAY,
  values: [],
});
