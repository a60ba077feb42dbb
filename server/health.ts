import { isDraining, isStarting } from './lifecycle';
import { entityManager } from './runtime';

const HEALTH_TIMEOUT_MS = 2000;

/**
 * Liveness and readiness in one: the process answers, it is neither starting (its console
 * routes still loading) nor draining, and the database answers within 2 s.
 */
export async function checkHealth(): Promise<{ status: 'ok' | 'unavailable'; database: 'up' | 'down' }> {
  if (isDraining() || isStarting()) return { status: 'unavailable', database: 'up' };
  let timer: NodeJS.Timeout | undefined;
  try {
    const em = await entityManager();
    await Promise.race([
      em.getConnection().execute('SELECT 1'),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('health check timed out')), HEALTH_TIMEOUT_MS);
      }),
    ]);
    return { status: 'ok', database: 'up' };
  } catch {
    return { status: 'unavailable', database: 'down' };
  } finally {
    // A load balancer calls this every few seconds: the timer must not outlive the answer.
    clearTimeout(timer);
  }
}
