import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, inject } from 'vitest';
import { openOrm } from '../../db/orm';
import { openStatementPool, type StatementPool, type StatementRunner } from '../../db/statements';
import { createAccount, type LimitOverrides } from '../../server/services/accounts';

/**
 * One ORM and one statement pool per test file on the domain database: a fresh EntityManager
 * per unit of work, prepared statements for the reads and the article writes that use them.
 */
export function domainDatabase(): { em(): EntityManager; statements(): StatementRunner } {
  let orm: MikroORM | undefined;
  let statements: StatementPool | undefined;
  beforeAll(async () => {
    orm = await openOrm(inject('domainDatabaseUrl'));
    statements = openStatementPool(inject('domainDatabaseUrl'));
  });
  afterAll(async () => {
    await statements?.close();
    await orm?.close(true);
  });
  return { em: () => orm!.em.fork() as unknown as EntityManager, statements: () => statements!.runner };
}

/** A new account of its own, so tests never share limits or articles. */
export async function newAccount(
  em: EntityManager,
  opts: { moderated?: boolean; limits?: LimitOverrides } = {},
): Promise<{ id: string; handle: string }> {
  const handle = `t-${randomUUID().slice(0, 12)}`;
  const { account } = await createAccount(em, handle, opts);
  return { id: account.id, handle };
}

/** Waits out the end of the current minute when fewer than `margin` seconds are left in it. */
export async function awayFromMinuteBoundary(margin = 8): Promise<void> {
  const left = 60 - (Math.floor(Date.now() / 1000) % 60);
  if (left < margin) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 250));
}
