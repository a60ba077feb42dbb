import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStatementPool, statement, type StatementPool } from '../../db/statements';

/**
 * db/statements.ts reads a statement's rows with the row shape it built at the statement's first
 * execution, and checks each row description against it. The rows must be exactly pg's own, on
 * every execution, named and unnamed, and a description that changed (a column added under an
 * unnamed statement, which PostgreSQL plans anew each time) must be read as it now is.
 */
const url = () => inject('domainDatabaseUrl');
const table = `shape_${randomUUID().replace(/-/g, '')}`;
let admin: pg.Client;
const pools: StatementPool[] = [];

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url() });
  await admin.connect();
  await admin.query(
    `CREATE TABLE ${table} (id int PRIMARY KEY, name text, tags text[], at timestamptz(3), flag boolean, n bigint)`,
  );
  await admin.query(
    `INSERT INTO ${table} VALUES (1, 'one', '{a,b}', '2026-11-28 12:00:00.5+00', true, 9007199254740993), (2, NULL, '{}', NULL, false, NULL)`,
  );
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await admin.query(`DROP TABLE IF EXISTS ${table}`);
  await admin.end();
});

/** The runner's type table: timestamps stay PostgreSQL's text, every other type is pg's. */
const keepTimestamps = (oid: number, format?: string) =>
  oid === 1184 || oid === 1114 ? (text: string) => text : pg.types.getTypeParser(oid, (format ?? 'text') as 'text');

const READ = statement(`row_shapes_read_${table}`, `SELECT * FROM ${table} ORDER BY id`);
const READ_ONE = statement(`row_shapes_one_${table}`, `SELECT id, name AS label FROM ${table} WHERE id = $1`);

describe('row shapes kept per statement', () => {
  for (const mode of ['none', 'transaction'] as const) {
    it(`gives pg's own rows on every execution (${mode === 'none' ? 'named' : 'unnamed'} statements)`, async () => {
      const pool = openStatementPool(url(), { max: 2, mode });
      pools.push(pool);
      const expected = [
        { id: 1, name: 'one', tags: ['a', 'b'], at: '2026-11-28 12:00:00.5+00', flag: true, n: '9007199254740993' },
        { id: 2, name: null, tags: [], at: null, flag: false, n: null },
      ];
      for (let i = 0; i < 5; i++) expect(await pool.runner.run(READ, [])).toEqual(expected);
      // Another statement of other columns, in between, keeps its own shape and leaves this one's.
      expect(await pool.runner.run(READ_ONE, [1])).toEqual([{ id: 1, label: 'one' }]);
      expect(await pool.runner.run(READ, [])).toEqual(expected);
      // Inside a transaction, on the transaction's connection, alike.
      const inTx = await pool.runner.transaction((tx) => tx.run(READ, []));
      expect(inTx).toEqual(expected);
    });
  }

  it("reads every column as pg's own Result does: types, NULLs, a name given twice, key order", async () => {
    const pool = openStatementPool(url(), { max: 1 });
    pools.push(pool);
    const text = `SELECT id, name, '{"a":[1,null]}'::json AS doc, tags, at, flag, n, 1.5::numeric AS num,
                         now() - now() AS span, id * 2 AS name, NULL::int AS nothing, ''::text AS blank
                    FROM ${table} ORDER BY id`;
    const mixed = statement(`row_shapes_mixed_${table}`, text);
    const own = (await admin.query({ text, types: { getTypeParser: keepTimestamps } })).rows;
    expect(own).toHaveLength(2);
    // The first execution builds the shape; the later ones read with it.
    for (let i = 0; i < 3; i++) {
      const rows = await pool.runner.run<Record<string, unknown>>(mixed, []);
      expect(rows).toEqual(own);
      expect(rows.map((r) => Object.keys(r))).toEqual(own.map((r) => Object.keys(r)));
      expect(Object.getPrototypeOf(rows[0])).toBe(Object.getPrototypeOf(own[0]));
    }
    expect(own[0]).toMatchObject({ name: 2, doc: { a: [1, null] }, nothing: null, blank: '' });
  });

  it('reads a row description that changed as it now is (unnamed statements are planned anew)', async () => {
    const pool = openStatementPool(url(), { max: 1, mode: 'transaction' });
    pools.push(pool);
    const before = await pool.runner.run<Record<string, unknown>>(READ, []);
    expect(Object.keys(before[0]!)).toEqual(['id', 'name', 'tags', 'at', 'flag', 'n']);
    // Same names, another type: read with the new type's parser (a boolean becomes text).
    await admin.query(`ALTER TABLE ${table} ALTER COLUMN flag TYPE text`);
    const retyped = await pool.runner.run<Record<string, unknown>>(READ, []);
    expect(retyped.map((r) => r.flag)).toEqual(['true', 'false']);
    // A column more.
    await admin.query(`ALTER TABLE ${table} ADD COLUMN extra int DEFAULT 7`);
    const after = await pool.runner.run<Record<string, unknown>>(READ, []);
    expect(Object.keys(after[0]!)).toEqual(['id', 'name', 'tags', 'at', 'flag', 'n', 'extra']);
    expect(after.map((r) => r.extra)).toEqual([7, 7]);
  });
});
