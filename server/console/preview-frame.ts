import type { ConsoleParts } from '../runtime/parts';
import { previewHeaders } from '../reader-pages/article-document';
import { consoleParts, currentSession } from './context';
import { textBody } from './piecewise-body';
import { spend } from './console-charges';
import { messageDocument } from './preview-messages';
import { ConsoleProblem, describeProblem } from './problems';
import type { ConsoleSession } from './session-store';

/**
 * The answer of every sandboxed preview frame (a saved version, the publish diff): the
 * preview headers whatever happens, 401 in words once the console session has ended, 503 in
 * words when the database is away; the route only says what to show.
 */
export interface FrameAnswer {
  status: 200 | 400 | 404 | 429 | 503;
  html: string;
}

export const frameMessage = (status: FrameAnswer['status'], text: string): FrameAnswer => ({
  status,
  html: messageDocument(text),
});

/** What a frame whose work takes a turn in the content worker pool says when the pool is busy. */
export const POOL_BUSY = 'The server is busy right now. Try again in a moment.';

/**
 * The opening of a frame whose work takes a turn in the content worker pool (the publish diff,
 * the change between two saves): 503 while the account's work there is already backed up, before
 * anything is loaded; else one unit of the account's write window spent, as the live preview
 * spends (shared with the API), and 429 in words when it is used up. Null: the frame may go on.
 */
export async function spendPoolTurn(
  session: ConsoleSession,
  { db, content }: ConsoleParts,
): Promise<FrameAnswer | null> {
  if (await content.queueFull(session.auth.account.id)) return frameMessage(503, POOL_BUSY);
  try {
    await spend(db, session.auth, 'write');
  } catch (err) {
    if (err instanceof ConsoleProblem) return frameMessage(429, err.message);
    throw err;
  }
  return null;
}

export async function answerPreviewFrame(
  render: (session: ConsoleSession, parts: ConsoleParts) => Promise<FrameAnswer>,
): Promise<Response> {
  const session = await currentSession();
  if (!session)
    return new Response(messageDocument('Your console session has ended. Sign in again.'), {
      status: 401,
      headers: previewHeaders(),
    });
  try {
    const { status, html } = await render(session, consoleParts());
    return new Response(textBody(html), { status, headers: previewHeaders() });
  } catch (err) {
    return new Response(messageDocument(describeProblem(err)), { status: 503, headers: previewHeaders() });
  }
}
