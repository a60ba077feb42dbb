import { dailyMediaBytesUsed, limitsOf } from '../../services/limits';
import type { AuthorContext } from '../trpc';

export async function meHandler({ ctx }: { ctx: AuthorContext }) {
  const a = ctx.auth.account;
  return {
    handle: a.handle,
    limits: {
      ...limitsOf(a),
      daily_media_bytes_used: await dailyMediaBytesUsed(ctx.db, a.id),
    },
  };
}
