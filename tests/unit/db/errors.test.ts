/**
 * db/errors.ts is the one place that decides "the database is unavailable" (→ 503): the errors
 * both pools raise when they cannot give a connection in time, and PostgreSQL going away.
 */
import net from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../../db/errors';

describe('isDatabaseUnavailable', () => {
  it('recognises what a pg pool raises when it cannot give a connection in time', async () => {
    // A server on loopback that accepts and never answers: connecting times out, and a second
    // query waiting for the pool's only slot times out too.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const pool = new pg.Pool({ max: 1, connectionTimeoutMillis: 100, host: '127.0.0.1', port });
    pool.on('error', () => {});
    const [connecting, waiting] = await Promise.all(
      [pool.query('SELECT 1'), pool.query('SELECT 1')].map((q) =>
        q.then(
          () => null,
          (e: unknown) => e as Error,
        ),
      ),
    );
    expect(connecting?.message).toBe('Connection terminated due to connection timeout');
    expect(waiting?.message).toBe('timeout exceeded when trying to connect');
    expect(isDatabaseUnavailable(connecting)).toBe(true);
    expect(isDatabaseUnavailable(waiting)).toBe(true);
    await pool.end();
    // A lone client (the start-up probe, the ORM's knex pool) says only "timeout expired".
    const client = new pg.Client({ connectionTimeoutMillis: 100, host: '127.0.0.1', port });
    client.on('error', () => {});
    const alone = await client.connect().then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(alone?.message).toBe('timeout expired');
    expect(isDatabaseUnavailable(alone)).toBe(true);
    silent.close();
  });

  it.each([
    new Error('timeout exceeded when trying to connect'),
    new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }),
    new Error('Cannot use a pool after calling end on the pool'),
    Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
      name: 'KnexTimeoutError',
    }),
    Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
    Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
    new Error('wrapped', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }),
    // knex, when the transaction's BEGIN failed on a connection PostgreSQL had just closed.
    new Error('Transaction query already complete, run with DEBUG=knex:tx for more info'),
    // pg, for a statement on a client whose connection was already closed.
    new Error('Client was closed and is not queryable'),
    Object.assign(new Error('update "posts" set … - Client has encountered a connection error and is not queryable'), {
      name: 'DriverException',
    }),
    // A named statement refused as only a transaction-mode pooler refuses it: it did not run.
    Object.assign(new Error('prepared statement "authenticate" already exists'), { code: '42P05' }),
    Object.assign(new Error('prepared statement "authenticate" does not exist'), { code: '26000' }),
    // PgBouncer, when it cannot reach PostgreSQL or waited too long for a server connection.
    Object.assign(new Error('pgbouncer cannot connect to server'), { code: '08P01' }),
    Object.assign(new Error('query_wait_timeout'), { code: '08P01' }),
  ])('%s → unavailable', (err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    new Error('duplicate key value violates unique constraint'),
    Object.assign(new Error('syntax error'), { code: '42601' }),
    new Error('something else timed out'),
    new Error('the cursor timeout expired after 3 s'),
  ])('%s → not unavailable', (err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
