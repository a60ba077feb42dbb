import { consoleParts, currentSession } from '@/server/console/context';
import { spend } from '@/server/console/console-charges';
import { ConsoleProblem, describeProblem } from '@/server/console/problems';
import { messageDocument } from '@/server/console/preview-messages';
import { previewDocument, previewHeaders } from '@/server/reader-pages/article-document';
import { csrfMatches } from '@/server/console/session-store';
import { isSameOrigin } from '@/server/console/same-origin';
import { ContentRejectedError, ConversionBusyError } from '@/server/content';
import { LIVE_PREVIEW_MAX_CHARS, normalizeLineEndings, tagNamesFromField } from '@/server/console/editor-fields';
import { markCursor, placeCursorAnchor } from '@/server/console/preview-cursor';
import { liveCover } from '@/server/console/live-cover';
import { textBody } from '@/server/console/piecewise-body';

export const dynamic = 'force-dynamic';

/**
 * The whole form as sent: LIVE_PREVIEW_MAX_CHARS (1,000,000) characters of Markdown, form-encoded (a non-ASCII character
 * can take 12 bytes as %XX escapes), plus the other fields. Checked on Content-Length before
 * anything is read, and on the bytes as they arrive (a body without a length, or a lying one).
 */
const MAX_FORM_BYTES = 12 * 1024 * 1024;

const TOO_LONG = 'This text is too long to preview.';
const BUSY = 'The converter is busy right now. Try again in a moment.';

/**
 * Live preview: the editor posts its unsaved fields here, into the preview frame. Converted by
 * the same pipeline as a write, nothing stored. A route handler gets no Origin check from Next,
 * so the form carries the session's CSRF token and the Origin must be ours (same-origin.ts).
 */
export async function POST(request: Request) {
  const session = await currentSession();
  if (!session) return page('Your console session has ended. Sign in again.', 401);
  if (!isSameOrigin(request.headers)) return page('Cross-site request refused.', 403);
  const { db, content } = consoleParts();
  // Nothing of the form is read while this account's conversions are already backed up.
  if (await content.queueFull(session.auth.account.id)) return page(BUSY, 503);
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_FORM_BYTES) return page(TOO_LONG, 413);
  let form: FormData;
  try {
    const body = await readCapped(request, MAX_FORM_BYTES);
    if (!body) return page(TOO_LONG, 413);
    const type = request.headers.get('content-type') ?? '';
    form = await new Response(body, { headers: { 'content-type': type } }).formData();
  } catch {
    return page('The preview request was malformed.', 400);
  }
  if (!csrfMatches(session, form.get('csrf')))
    return page('This page is out of date. Reload it to preview again.', 403);
  // A preview converts like a save, so it spends what a save spends: one unit of the account's
  // write window, shared with the API.
  try {
    await spend(db, session.auth, 'write');
  } catch (err) {
    if (err instanceof ConsoleProblem) return page(err.message, 429);
    return page(describeProblem(err), 503);
  }

  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === 'string' ? v : '';
  };
  const title = text('title').trim() || 'Untitled';
  const markdown = normalizeLineEndings(text('markdown'));
  if (!markdown.trim()) return page('Write some Markdown to see the preview.', 200);
  if (markdown.length > LIVE_PREVIEW_MAX_CHARS) return page(TOO_LONG, 413);

  try {
    const cursor = text('cursor') === '' ? NaN : Number(text('cursor'));
    const rendered = await content.render({ markdown: markCursor(markdown, cursor), title }, session.auth.account.id);
    const html = placeCursorAnchor(rendered.html);
    // The cover chosen in the editor (unsaved too), else the saved one.
    const cover = await liveCover(db, session, text('id'), form.has('cover_asset_id') ? text('cover_asset_id') : null);
    const tags = tagNamesFromField(text('tags')).map((name) => ({ name, slug: name }));
    const subtitle = text('subtitle').trim() || null;
    return new Response(
      textBody(
        previewDocument(
          { title, subtitle, html, tags, cover },
          'Unsaved preview: external images are shown once saved and stored.',
        ),
      ),
      {
        status: 200,
        headers: previewHeaders(),
      },
    );
  } catch (err) {
    if (err instanceof ContentRejectedError)
      return page(`This text cannot be converted: ${err.message.replace(/^markdown: /, '')}.`, 200);
    if (err instanceof ConversionBusyError) return page(BUSY, 503);
    return page(describeProblem(err), 503);
  }
}

function page(message: string, status: number) {
  return new Response(messageDocument(message), { status, headers: previewHeaders() });
}

/** The body's bytes, or null as soon as more than `max` have arrived (the rest is not read). */
async function readCapped(request: Request, max: number): Promise<Uint8Array<ArrayBuffer> | null> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
