import { answerPreviewFrame } from '@/server/console/preview-frame';
import { sideBySideFrame } from '@/server/console/side-by-side';

export const dynamic = 'force-dynamic';

/**
 * Two versions of an article side by side in one sandboxed frame that scrolls both at once
 * (`?left=&right=`: `published`, `working`, `submitted` or a revision id of the history), with
 * the headers of every preview frame.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const query = new URL(request.url).searchParams;
  return answerPreviewFrame(async (session, parts) =>
    sideBySideFrame(parts.db, session, id, { left: query.get('left') ?? '', right: query.get('right') ?? '' }),
  );
}
