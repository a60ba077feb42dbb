import { limitsOf, mediaBytesRead, mediaBytesFound } from '../../services/access/account-usage';
import type { AuthorReadFirstContext } from '../trpc';

/** GET /me: the account and today's media bytes, read in the statement that admits the caller. */
export async function meHandler({ ctx }: { ctx: AuthorReadFirstContext }) {
  const { auth, rows } = await ctx.admitAndRead(mediaBytesRead());
  return {
    handle: auth.account.handle,
    limits: {
      ...limitsOf(auth.account),
      daily_media_bytes_used: mediaBytesFound(rows),
    },
  };
}
