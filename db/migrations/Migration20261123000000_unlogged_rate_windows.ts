import { Migration } from '@mikro-orm/migrations';

/**
 * Minute counters without write-ahead logging. Every rated request updates its window row;
 * in a logged table each of those commits waits for a WAL flush, which halves the throughput
 * of the cheapest reads. An UNLOGGED table is never flushed at commit; the price is that a
 * PostgreSQL crash (not a clean restart) empties it, so the current minute's counts start
 * again from zero. A rate limiter may forget one minute; quotas that must survive a crash
 * (daily media bytes) stay in logged tables.
 */
export class Migration20261123000000_unlogged_rate_windows extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE rate_windows SET UNLOGGED;');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE rate_windows SET LOGGED;');
  }
}
