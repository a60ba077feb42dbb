import { z } from 'zod';
import { UUID_SOURCE } from '../../foundation/uuid';

const LOCAL_MEDIA_URL = new RegExp(`^/api/media/${UUID_SOURCE}$`);

/**
 * The Media object, fields in the contract's order: the REST output schema and, inferred from it,
 * the type the media service returns (one definition for both).
 * `gif` is an animated GIF stored as MP4 by from-url (`<video>` cannot play a GIF).
 */
export const MediaSchema = z
  .object({
    id: z.uuid(),
    url: z.string().regex(LOCAL_MEDIA_URL),
    kind: z.enum(['image', 'gif']),
    mime_type: z.string(),
    byte_size: z.number().int().min(0),
    width: z.number().int().min(1),
    height: z.number().int().min(1),
    status: z.enum(['ready']),
    poster_url: z.string().regex(LOCAL_MEDIA_URL).nullable(),
  })
  .meta({ id: 'Media', description: 'A stored file. Put `url` into Markdown/HTML and `id` into `cover_asset_id`.' });

export type MediaJson = z.infer<typeof MediaSchema>;
