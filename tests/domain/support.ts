import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { openStatementPool, statement, type StatementPool, type StatementRunner } from '../../db/statements';
import type { ContentPool } from '../../server/content';
import { admitAndRead } from '../../server/admission/admit';
import type { AdmittedRead } from '../../server/admission/admitted-statement';
import { pageFound, pageRequest, postFound, postRead } from '../../server/services/posts/post-reads';
import { createAccount, type LimitOverrides } from '../../server/services/access/accounts';
import type { PublishingContext } from '../../server/services/posts/post-publishing';
import type { WriteContext } from '../../server/services/posts/post-writes';
import { parseAllowList } from '../../server/media/address-policy';
import { createMediaStorage } from '../../server/media/storage';
import { Lifecycle } from '../../server/runtime/lifecycle';
import type { AppParts } from '../../server/runtime/parts';
import { ReaderTally } from '../../server/services/readers/reader-tally';
import { testContentPool } from '../support/content-pool';
import { testMediaWork } from '../support/media-work';

/**
 * The parts a domain test hands the services, as the composition root hands them to a request:
 * one statement pool on the domain database and one conversion pool per test file. Public
 * changes the services announce are recorded (`announced`) instead of purging a cache.
 */
export interface DomainParts {
  db(): StatementRunner;
  content(): ContentPool;
  /** An article write of `accountId` (no rehosting: tests give no outbound access). */
  write(accountId: string): WriteContext;
  publishing(): PublishingContext;
  /**
   * The whole set of parts, for code that takes them (the REST handlers): media stored under a
   * temporary directory, no private address allowed for outbound fetches.
   */
  parts(): AppParts;
  /** Every announcement of changed public paths, in order. */
  announced: (string | null | undefined)[][];
}

export function domainDatabase(): DomainParts {
  let statements: StatementPool | undefined;
  let content: ContentPool | undefined;
  let mediaDir: string | undefined;
  let parts: AppParts | undefined;
  const announced: (string | null | undefined)[][] = [];
  const announce = (paths: readonly (string | null | undefined)[]) => void announced.push([...paths]);
  beforeAll(() => {
    statements = openStatementPool(inject('domainDatabaseUrl'));
    // The global setup bundled the worker from the current sources.
    content = testContentPool({ workerPath: inject('domainContentWorker') });
    mediaDir = mkdtempSync(path.join(tmpdir(), 'publishing-domain-media-'));
    const pool = statements;
    parts = {
      db: pool.runner,
      content,
      storage: createMediaStorage({ kind: 'fs', root: mediaDir }),
      allowList: parseAllowList(''),
      mediaWork: testMediaWork(),
      announce,
      readers: new ReaderTally(),
      lifecycle: new Lifecycle(),
      poolStats: () => pool.stats(),
    };
  });
  afterAll(async () => {
    await Promise.all([statements?.close(), content?.close()]);
    if (mediaDir) rmSync(mediaDir, { recursive: true, force: true });
  });
  const db = () => statements!.runner;
  return {
    parts: () => parts!,
    db,
    content: () => content!,
    write: (accountId) => ({ db: db(), content: content!, accountId }),
    publishing: () => ({ db: db(), announce }),
    announced,
  };
}

/** A new account of its own, so tests never share limits or articles. */
export async function newAccount(
  db: StatementRunner,
  opts: { moderated?: boolean; limits?: LimitOverrides } = {},
): Promise<{ id: string; handle: string; secret: string }> {
  const handle = `t-${randomUUID().slice(0, 12)}`;
  const { account, secret } = await createAccount(db, handle, opts);
  return { id: account.id, handle, secret };
}

/**
 * The author reads as their handlers run them (server/api/posts/*.handler.ts) for the caller with
 * this secret: each read admits them, in the statement of its lane.
 */
export function admitterFor(db: StatementRunner, secret: string) {
  const headers = { get: (name: string) => (name === 'authorization' ? `Bearer ${secret}` : null) };
  return {
    /** What `ctx.admitAndRead` gives a handler (api/trpc.ts). */
    async read<Row>(read: AdmittedRead<Row>) {
      const { auth, rows } = await admitAndRead(db, headers, read.statement.cls, read);
      return { auth, rows };
    },
    async post(id: string) {
      return postFound((await admitAndRead(db, headers, 'read', postRead(id))).rows);
    },
    async page(opts: Parameters<typeof pageRequest>[0]) {
      const request = pageRequest(opts);
      const { auth, rows } = await admitAndRead(db, headers, 'read', request.read);
      return pageFound(request, auth.account.id, rows);
    },
  };
}

/** A test's own look at the database, outside the services (`name` unique in the file). */
export async function query<T>(db: StatementRunner, name: string, text: string, values: unknown[]): Promise<T[]> {
  return db.run<T>(statement(`test_${name}`, text), values);
}

/** Waits out the end of the current minute when fewer than `margin` seconds are left in it. */
export async function awayFromMinuteBoundary(margin = 8): Promise<void> {
  const left = 60 - (Math.floor(Date.now() / 1000) % 60);
  if (left < margin) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 250));
}
