import { statement } from '../../db/statements';
import type { AppParts } from './parts';

const HEALTH_TIMEOUT_MS = 2000;
const PING = statement('health_ping', 'SELECT 1');

/**
 * Liveness and readiness in one: the process answers, it is neither starting (its console
 * routes still loading) nor draining, and the database answers within 2 s.
 */
export async function checkHealth(
  parts: Pick<AppParts, 'db' | 'lifecycle'>,
): Promise<{ status: 'ok' | 'unavailable'; database: 'up' | 'down' }> {
  if (parts.lifecycle.unready) return { status: 'unavailable', database: 'up' };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      parts.db.run(PING, []),
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
