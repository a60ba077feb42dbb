import { observeGauge } from '../foundation/metrics';
import type { AppParts } from './parts';

/**
 * Gauges read at scrape time: the conversion queue, the database pools, and the timers pending
 * in the process (a handler that leaves one per request shows as steady growth).
 */
export function observeRuntimeGauges(parts: Pick<AppParts, 'content' | 'poolStats'>): void {
  observeGauge('content_conversion_queue_depth', 'Markdown documents waiting for a conversion worker', [], () => [
    { value: parts.content.depth() },
  ]);

  observeGauge('nodejs_active_timers', 'Timers pending in the process (setTimeout and socket timeouts)', [], () => [
    { value: process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length },
  ]);

  observeGauge('db_pool_connections', 'Database connections by pool and state', ['pool', 'state'], () => {
    const st = parts.poolStats();
    return [
      { labels: { pool: 'statements', state: 'in_use' }, value: st.total - st.idle },
      { labels: { pool: 'statements', state: 'idle' }, value: st.idle },
    ];
  });
  observeGauge('db_pool_waiting', 'Requests waiting for a database connection, by pool', ['pool'], () => [
    { labels: { pool: 'statements' }, value: parts.poolStats().waiting },
  ]);
}
