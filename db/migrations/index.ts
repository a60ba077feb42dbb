import { Migration20261122000000_initial } from './Migration20261122000000_initial';
import { Migration20261123000000_post_media_sources } from './Migration20261123000000_post_media_sources';

/** Explicit list: glob discovery does not survive bundling (NOTES.md (b)). Append new ones. */
export const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261123000000_post_media_sources', class: Migration20261123000000_post_media_sources },
];
