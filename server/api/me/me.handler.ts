import { readDailyMediaBytesUsed } from '../../services/limits';
import type { AuthorContext } from '../trpc';

export async function meHandler({ ctx }: { ctx: AuthorContext }) {
  const a = ctx.auth.account;
  return {
    handle: a.handle,
    limits: {
      read_per_min: a.readPerMin,
      write_per_min: a.writePerMin,
      publish_per_min: a.publishPerMin,
      media_per_min: a.mediaPerMin,
      daily_media_bytes: a.dailyMediaBytes,
      daily_media_bytes_used: await readDailyMediaBytesUsed(ctx.db, a.id),
    },
  };
}
