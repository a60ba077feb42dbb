import { serveMedia } from '@/server/http/media-serve';

/** Stored files (CONTRACT "Paths outside the REST prefix"): GET and HEAD, no auth. */
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Params = { params: Promise<{ id: string }> };

export async function GET(req: Request, { params }: Params) {
  return serveMedia(req, (await params).id);
}

export async function HEAD(req: Request, { params }: Params) {
  return serveMedia(req, (await params).id);
}
