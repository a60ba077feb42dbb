'use server';

import { redirect } from 'next/navigation';
import { revalidatePath } from 'next/cache';
import type { ConsoleParts } from '@/server/runtime/parts';
import { createToken, findAccountToken, reissueToken, revokeToken } from '@/server/services/access/tokens';
import { formString, runConsoleAction, type ActionOutcome } from '@/server/console/action';
import { ConsoleProblem } from '@/server/console/problems';

/**
 * Account settings: create, reissue and revoke API tokens (never through the REST API; at most
 * five active). A new or reissued secret is returned once, in this action's result, and rendered
 * once; it is stored nowhere but as a hash.
 * tokens.ts takes a bare token id, so ownership is checked here first.
 */
export type TokenOutcome = ActionOutcome<{ message: string; secret?: string; tokenId?: string }> | null;

async function ownToken(db: ConsoleParts['db'], accountId: string, formData: FormData) {
  const id = formString(formData, 'token_id');
  const token = await findAccountToken(db, accountId, id);
  if (!token) throw new ConsoleProblem('That token does not exist.');
  return token;
}

export async function createApiToken(_prev: TokenOutcome, formData: FormData): Promise<TokenOutcome> {
  return runConsoleAction(formData, 'write', async ({ parts, session }) => {
    const name = formString(formData, 'name').trim().slice(0, 100);
    const { token, secret } = await createToken(parts.db, session.auth.account.id, name);
    revalidatePath('/console/account');
    return {
      message: `Token “${token.name}” created. Copy the secret now: it will not be shown again.`,
      secret,
      tokenId: token.id,
    };
  });
}

export async function reissueApiToken(_prev: TokenOutcome, formData: FormData): Promise<TokenOutcome> {
  return runConsoleAction(formData, 'write', async ({ parts, session }) => {
    const token = await ownToken(parts.db, session.auth.account.id, formData);
    if (token.revoked_at) throw new ConsoleProblem('A revoked token cannot be reissued.');
    const { secret } = await reissueToken(parts.db, token.id);
    if (token.id === session.auth.tokenId) {
      // This session was opened with that token and has just ended with it (tokens.ts deletes
      // the row). The page is not refreshed, so the new secret stays on screen to be copied.
      return {
        message: `Token “${token.name}” reissued. This console session used it and has ended: copy the new secret, then sign in again.`,
        secret,
      };
    }
    revalidatePath('/console/account');
    return { message: `Token “${token.name}” reissued: the old secret no longer works. Copy the new one now.`, secret };
  });
}

export async function revokeApiToken(_prev: TokenOutcome, formData: FormData): Promise<TokenOutcome> {
  let endedOwnSession = false;
  const outcome = await runConsoleAction(formData, 'write', async ({ parts, session }) => {
    const token = await ownToken(parts.db, session.auth.account.id, formData);
    await revokeToken(parts.db, token.id);
    endedOwnSession = token.id === session.auth.tokenId;
    revalidatePath('/console/account');
    return { message: `Token “${token.name}” revoked.` };
  });
  if (endedOwnSession) redirect('/console');
  return outcome;
}
