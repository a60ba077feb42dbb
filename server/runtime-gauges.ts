import { orm, statementPoolStats } from './runtime';
import { contentQueueDepth } from './content/pool';
import { observeGauge } from './metrics';

/**
 * Gauges read at scrape time: the conversion queue, both database pools (the ORM's, for
 * writes and the console, and the prepared-statement pool for the hot reads), and the timers
 * pending in the process (a handler that leaves one per request shows as steady growth).
 */
export function observeRuntimeGauges(): void {
  observeGauge('content_conversion_queue_depth', 'Markdown documents waiting for a conversion worker', [], () => [
    { value: contentQueueDepth() },
  ]);

  observeGauge('nodejs_active_timers', 'Timers pending in the process (setTimeout and socket timeouts)', [], () => [
    { value: process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length },
  ]);

  let ormPool: { numUsed(): number; numFree(): number; numPendingAcquires(): number } | undefined;
  void orm()
    .then((orm) => {
      const knex = (
        orm.em.getConnection() as unknown as { getKnex(): { client: { pool?: typeof ormPool } } }
      ).getKnex();
      ormPool = knex.client.pool;
    })
    .catch(() => {});
  observeGauge('db_pool_connections', 'Database connections by pool and state', ['pool', 'state'], () => {
    const out: { labels: Record<string, string>; value: number }[] = [];
    if (ormPool) {
      out.push({ labels: { pool: 'orm', state: 'in_use' }, value: ormPool.numUsed() });
      out.push({ labels: { pool: 'orm', state: 'idle' }, value: ormPool.numFree() });
    }
    const st = statementPoolStats();
    if (st) {
      out.push({ labels: { pool: 'statements', state: 'in_use' }, value: st.total - st.idle });
      out.push({ labels: { pool: 'statements', state: 'idle' }, value: st.idle });
    }
    return out;
  });
  observeGauge('db_pool_waiting', 'Requests waiting for a database connection, by pool', ['pool'], () => {
    const out: { labels: Record<string, string>; value: number }[] = [];
    if (ormPool) out.push({ labels: { pool: 'orm' }, value: ormPool.numPendingAcquires() });
    const st = statementPoolStats();
    if (st) out.push({ labels: { pool: 'statements' }, value: st.waiting });
    return out;
  });
}
