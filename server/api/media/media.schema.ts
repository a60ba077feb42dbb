import { z } from 'zod';
import { requiredString } from '../shared.schema';

/** The Media object; `gif` for an animated GIF stored as MP4 by from-url (`<video>` cannot play a GIF). */
export const MediaSchema = z
  .object({
    id: z.uuid(),
    url: z.string().regex(/^\/api\/media\/[0-9a-fA-F-]{36}$/),
    kind: z.enum(['image', 'gif']),
    mime_type: z.string(),
    byte_size: z.number().int().min(0),
    width: z.number().int().min(1),
    height: z.number().int().min(1),
    status: z.enum(['ready']),
    poster_url: z
      .string()
      .regex(/^\/api\/media\/[0-9a-fA-F-]{36}$/)
      .nullable(),
  })
  .meta({ id: 'Media', description: 'A stored file. Put `url` into Markdown/HTML and `id` into `cover_asset_id`.' });

/** `POST /media/from-url` body; an empty string is refused by the service with a clearer message. */
export const FromUrlInput = z.object({ url: requiredString() });
