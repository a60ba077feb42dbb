import { consoleEm, currentSession } from '@/server/console/context';
import { describeProblem } from '@/server/console/problems';
import { messageDocument } from '@/server/console/preview-messages';
import { previewDocument, previewHeaders } from '@/server/console/article-document';
import { csrfMatches } from '@/server/console/session-store';
import { UUID_PATTERN } from '@/server/console/queries';
import { ContentRejectedError, renderArticle } from '@/server/content';
import { PostEntity } from '@/db/entities';

export const dynamic = 'force-dynamic';

/** Far above any real article, low enough that a preview cannot tie up a conversion worker. */
const MAX_MARKDOWN_CHARS = 1_000_000;

/**
 * Live preview: the editor posts its unsaved fields here, into the preview frame. Converted by
 * the same pipeline as a write, nothing stored. A route handler gets no Origin check from Next,
 * so the form carries the session's CSRF token and the Origin must be ours.
 */
export async function POST(request: Request) {
  const session = await currentSession();
  if (!session) return page('Your console session has ended. Sign in again.', 401);
  const origin = request.headers.get('origin');
  const host = request.headers.get('host');
  if (origin && host && new URL(origin).host !== host) return page('Cross-site request refused.', 403);
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return page('The preview request was malformed.', 400);
  }
  if (!csrfMatches(session, form.get('csrf')))
    return page('This page is out of date. Reload it to preview again.', 403);

  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === 'string' ? v : '';
  };
  const title = text('title').trim() || 'Untitled';
  const markdown = text('markdown');
  if (!markdown.trim()) return page('Write some Markdown to see the preview.', 200);
  if (markdown.length > MAX_MARKDOWN_CHARS) return page('This text is too long to preview.', 413);

  try {
    const { html } = await renderArticle({ markdown, title }, session.auth.account.id);
    const id = text('id');
    const saved = UUID_PATTERN.test(id)
      ? await (await consoleEm()).findOne(PostEntity, { id, accountId: session.auth.account.id, deletedAt: null })
      : null;
    const cover =
      saved?.coverUrl && saved.coverWidth && saved.coverHeight
        ? { url: saved.coverUrl, width: saved.coverWidth, height: saved.coverHeight }
        : null;
    const tags = text('tags')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean)
      .map((name) => ({ name, slug: name }));
    const subtitle = text('subtitle').trim() || null;
    return new Response(
      previewDocument(
        { title, subtitle, html, tags, cover },
        'Unsaved preview: external images are shown once saved and stored.',
      ),
      {
        status: 200,
        headers: previewHeaders(),
      },
    );
  } catch (err) {
    if (err instanceof ContentRejectedError)
      return page(`This text cannot be converted: ${err.message.replace(/^markdown: /, '')}.`, 200);
    return page(describeProblem(err), 503);
  }
}

function page(message: string, status: number) {
  return new Response(messageDocument(message), { status, headers: previewHeaders() });
}
