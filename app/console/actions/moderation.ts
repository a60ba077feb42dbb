'use server';

import { redirect } from 'next/navigation';
import { approvePost, rejectPost } from '@/server/services/posts/moderation';
import { publishingOf } from '@/server/runtime/request-contexts';
import { formString, runConsoleAction, type ActionOutcome } from '@/server/console/action';
import { ConsoleProblem } from '@/server/console/problems';
import { UUID_PATTERN } from '@/server/foundation/uuid';

/** Moderation decisions: approve publishes the submitted version, reject keeps the text; administrators only. */
export type ModerationOutcome = ActionOutcome<{ message: string }> | null;

function pendingId(formData: FormData): string {
  const id = formString(formData, 'id');
  if (!UUID_PATTERN.test(id)) throw new ConsoleProblem('That article does not exist.');
  return id;
}

// A decided article leaves the queue, taking its form with it, so the outcome is reported by
// the queue page itself.
export async function approveArticle(_prev: ModerationOutcome, formData: FormData): Promise<ModerationOutcome> {
  const outcome = await runConsoleAction(formData, 'write', async ({ parts, session }) => {
    if (!session.auth.account.isAdmin) throw new ConsoleProblem('Only administrators can moderate.');
    await approvePost(publishingOf(parts), pendingId(formData));
    return { message: '' };
  });
  if (outcome.ok) redirect('/console/moderation?done=approved');
  return outcome;
}

export async function rejectArticle(_prev: ModerationOutcome, formData: FormData): Promise<ModerationOutcome> {
  let stillPublic = false;
  const outcome = await runConsoleAction(formData, 'write', async ({ parts, session }) => {
    if (!session.auth.account.isAdmin) throw new ConsoleProblem('Only administrators can moderate.');
    const reason = formString(formData, 'reason').trim().slice(0, 2000);
    if (!reason) throw new ConsoleProblem('Write the reason for rejecting: the author reads it.');
    const post = await rejectPost(publishingOf(parts), pendingId(formData), reason);
    stillPublic = post.status === 'published';
    return { message: '' };
  });
  if (outcome.ok) redirect(`/console/moderation?done=${stillPublic ? 'rejected-still-public' : 'rejected'}`);
  return outcome;
}
