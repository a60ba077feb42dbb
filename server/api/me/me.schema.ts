import { z } from 'zod';
import { LIMITS, type LimitName } from '../../model/rate-classes';

/** The Limits object inside GET /me: the account's limits and today's media usage in bytes. */
const LimitsSchema = z
  .object({
    ...(Object.fromEntries(LIMITS.map((l) => [l.name, z.number().int()])) as Record<LimitName, z.ZodNumber>),
    daily_media_bytes_used: z.number().int(),
  })
  .meta({ id: 'Limits' });

export const MeOutput = z.object({ handle: z.string(), limits: LimitsSchema }).meta({ id: 'Me' });
