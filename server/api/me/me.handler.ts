import { admittedAccountUsage, limitsOf } from '../../services/limits';
import type { AuthorReadFirstContext } from '../trpc';

/** GET /me: the account and today's media bytes, read in the statement that admits the caller. */
export async function meHandler({ ctx }: { ctx: AuthorReadFirstContext }) {
  const { account, dailyMediaBytesUsed } = await admittedAccountUsage(ctx.admitAndRead);
  return {
    handle: account.handle,
    limits: {
      ...limitsOf(account),
      daily_media_bytes_used: dailyMediaBytesUsed,
    },
  };
}
