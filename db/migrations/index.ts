import { Migration20261122000000_initial } from './Migration20261122000000_initial';
import { Migration20261123000000_unlogged_rate_windows } from './Migration20261123000000_unlogged_rate_windows';
import { Migration20261124000000_post_media_sources } from './Migration20261124000000_post_media_sources';
import { Migration20261125000000_reader_counters } from './Migration20261125000000_reader_counters';
import { Migration20261125010000_media_file_names } from './Migration20261125010000_media_file_names';
import { Migration20261126000000_reader_sources } from './Migration20261126000000_reader_sources';
import { Migration20261126100000_post_revisions } from './Migration20261126100000_post_revisions';
import { Migration20261126100100_article_search } from './Migration20261126100100_article_search';
import { Migration20261126200000_submitted_markdown } from './Migration20261126200000_submitted_markdown';
import { Migration20261128000000_publish_schedules } from './Migration20261128000000_publish_schedules';
import { Migration20261128050000_popularity_by_recency } from './Migration20261128050000_popularity_by_recency';
import { Migration20261128100000_restored_from } from './Migration20261128100000_restored_from';
import { Migration20261128200000_autosave_runs } from './Migration20261128200000_autosave_runs';
import { Migration20261128210000_media_by_hash } from './Migration20261128210000_media_by_hash';

/** Explicit list: the server is bundled, and file discovery cannot see into a bundle. Append new ones. */
export const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261123000000_unlogged_rate_windows', class: Migration20261123000000_unlogged_rate_windows },
  { name: 'Migration20261124000000_post_media_sources', class: Migration20261124000000_post_media_sources },
  { name: 'Migration20261125000000_reader_counters', class: Migration20261125000000_reader_counters },
  { name: 'Migration20261125010000_media_file_names', class: Migration20261125010000_media_file_names },
  { name: 'Migration20261126000000_reader_sources', class: Migration20261126000000_reader_sources },
  { name: 'Migration20261126100000_post_revisions', class: Migration20261126100000_post_revisions },
  { name: 'Migration20261126100100_article_search', class: Migration20261126100100_article_search },
  { name: 'Migration20261126200000_submitted_markdown', class: Migration20261126200000_submitted_markdown },
  { name: 'Migration20261128000000_publish_schedules', class: Migration20261128000000_publish_schedules },
  { name: 'Migration20261128050000_popularity_by_recency', class: Migration20261128050000_popularity_by_recency },
  { name: 'Migration20261128100000_restored_from', class: Migration20261128100000_restored_from },
  { name: 'Migration20261128200000_autosave_runs', class: Migration20261128200000_autosave_runs },
  { name: 'Migration20261128210000_media_by_hash', class: Migration20261128210000_media_by_hash },
];
