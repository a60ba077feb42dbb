import { z } from 'zod';

/** The Limits object inside GET /me: the account's limits and today's media usage in bytes. */
const LimitsSchema = z
  .object({
    read_per_min: z.number().int(),
    write_per_min: z.number().int(),
    publish_per_min: z.number().int(),
    media_per_min: z.number().int(),
    daily_media_bytes: z.number().int(),
    daily_media_bytes_used: z.number().int(),
  })
  .meta({ id: 'Limits' });

export const MeOutput = z.object({ handle: z.string(), limits: LimitsSchema }).meta({ id: 'Me' });
