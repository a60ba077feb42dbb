/**
 * The stored records the console's pages show, as types: app/ names them from here and reads
 * them through server/console and server/services, never from db/ itself.
 */
export type { ApiToken, Media, Post, PostStatus } from '../../db/entities';
