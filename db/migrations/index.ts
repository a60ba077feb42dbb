import { Migration20261122000000_initial } from './Migration20261122000000_initial';

/** Explicit list: glob discovery does not survive bundling (NOTES.md (b)). Append new ones. */
export const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
];
