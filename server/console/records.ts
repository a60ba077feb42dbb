/**
 * The records the console's pages show, as types: app/ names them from here. They are the data
 * layer's and the services' records, never a database row type of the console's own.
 */
export type { TokenRecord } from '../data/access';
export type { MediaRecord } from '../data/media-rows';
export type { PendingArticle } from '../services/posts/moderation';
export type { PostStatus } from '../data/posts/rows';
