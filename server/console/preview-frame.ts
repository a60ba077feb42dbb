import type { ConsoleParts } from '../runtime/parts';
import { previewHeaders } from '../public/article-document';
import { consoleParts, currentSession } from './context';
import { textBody } from './piecewise-body';
import { messageDocument } from './preview-messages';
import { describeProblem } from './problems';
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
