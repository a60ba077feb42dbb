import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Raw SQL through the ORM's connection, inside the EntityManager's transaction when it has
 * one (`Connection.execute` runs outside it unless handed the transaction context).
 * Used for the statements the ORM cannot express in one round trip (upserts, CTEs).
 */
export function sql<T = Record<string, unknown>[]>(
  em: EntityManager,
  query: string,
  params: unknown[] = [],
): Promise<T> {
  return em
    .getConnection()
    .execute(query, params as never[], 'all', em.getTransactionContext()) as unknown as Promise<T>;
}
