import { Migration } from '@mikro-orm/migrations';

/**
 * Reader counters (docs/api.md "Reader counters").
 *
 * - `reader_daily`: opens, reads and full reads per article and UTC day, for the console's
 *   30-day chart; the totals on `posts` are the sums of these rows plus the operator's events.
 * - `reader_salts`: the secret of one UTC day that reader hashes are made with. Shared by every
 *   instance (one reader is one hash whichever instance counted them); deleted an hour into the
 *   next day (late beacons of the day are still checked until then), after which no hash of
 *   that day can be linked to an address again.
 * - `reader_seen`: the hashes counted on a day, so a reader counts once per article and kind
 *   per day across every instance (`INSERT … ON CONFLICT DO NOTHING` keeps only new ones);
 *   deleted with their day's salt.
 * - `reader_event_batches`: the answer of each operator batch already applied, so a replayed
 *   `batch_id` applies nothing and answers the same.
 */
export class Migration20261125000000_reader_counters extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE reader_daily (
        post_id uuid NOT NULL REFERENCES posts(id),
        day date NOT NULL,
        opens integer NOT NULL DEFAULT 0,
        reads integer NOT NULL DEFAULT 0,
        completes integer NOT NULL DEFAULT 0,
        PRIMARY KEY (post_id, day)
      );`);
    this.addSql(`CREATE TABLE reader_salts (day date PRIMARY KEY, salt text NOT NULL);`);
    this.addSql(`CREATE TABLE reader_seen (day date NOT NULL, hash text NOT NULL, PRIMARY KEY (day, hash));`);
    this.addSql(`
      CREATE TABLE reader_event_batches (
        batch_id text PRIMARY KEY,
        result jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE reader_event_batches, reader_seen, reader_salts, reader_daily;');
  }
}
