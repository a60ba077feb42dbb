import { localMediaPath } from '../../content/urls';
import type { RehostMemory } from '../../data/posts/writes';

/**
 * Rehost memory (table post_media_sources, server/data/posts/writes.ts): per article, which
 * external image URL became which stored image. A re-render substitutes every remembered URL
 * without downloading it again, so an edit pays only for images it adds. Keys are the canonical
 * URLs the content pipeline reports; a row is written once and never changed (the first stored
 * copy wins).
 */

/** The memory as the conversion's `rehosted` map: URL → `/api/media/<uuid>`. */
export function substitutions(memory: RehostMemory): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [url, image] of memory) out[url] = localMediaPath(image.id);
  return out;
}
