import { Migration } from '@mikro-orm/migrations';

/**
 * Where readers come from, so that one address cannot inflate an article's counters by sending
 * many user agents (docs/api.md "Reader counters").
 *
 * `reader_sources`: per UTC day, the keyed hash of (address, article, kind) and how many
 * readers it added (at most the per-address limit; the flush takes its grant from this row under
 * the row's lock, so instances flushing together stay within it). `previous` is the count before
 * the flush that last changed the row: the flush's one statement reads its grant back from
 * `readers - previous`. Deleted with the day's salt, like `reader_seen`: after that no row can be
 * linked to an address.
 */
export class Migration20261126000000_reader_sources extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE reader_sources (
        day date NOT NULL,
        source text NOT NULL,
        readers integer NOT NULL,
        previous integer NOT NULL DEFAULT 0,
        PRIMARY KEY (day, source)
      );`);
    // Operator batches are pruned by age (their replay protection lasts that long).
    this.addSql('CREATE INDEX reader_event_batches_age ON reader_event_batches (created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX reader_event_batches_age;');
    this.addSql('DROP TABLE reader_sources;');
  }
}
