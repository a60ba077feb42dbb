import { isDraining } from './lifecycle';
import { entityManager } from './runtime';

/** Liveness and readiness in one: the process answers, and the database answers within 2 s. */
export async function checkHealth(): Promise<{ status: 'ok' | 'unavailable'; database: 'up' | 'down' }> {
  if (isDraining()) return { status: 'unavailable', database: 'up' };
  try {
    const em = await entityManager();
    await Promise.race([
      em.getConnection().execute('SELECT 1'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('health check timed out')), 2000)),
    ]);
    return { status: 'ok', database: 'up' };
  } catch {
    return { status: 'unavailable', database: 'down' };
  }
}
