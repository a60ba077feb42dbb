/**
 * GET and HEAD /api/media/{uuid}: stored files, without auth (the uuid is the capability, as in
 * the contract's "Recommended publishing flow" where `url` goes straight into public HTML).
 *
 * Files never change once stored (a new upload gets a new uuid), hence the year-long immutable
 * cache and a strong ETag from the content hash. The body is streamed from storage, never read
 * whole into memory; single byte ranges are honoured (video seeking needs them), multi-range
 * requests get the whole file, which RFC 9110 allows.
 */
import { Readable } from 'node:stream';
import { notFound } from '../errors';
import { RangeNotSatisfiableError, type ByteRange } from '../media/storage';
import { findServableMedia } from '../services/media';
import { logLine } from '../log';
import { failureResponse } from './errors';
import { entityManager, mediaStorage } from '../runtime';
import { isUuid } from '../uuid';
import { ifNoneMatchMatches } from '../entity-tags';
import { cacheTagHeaders } from './cache-tags';

export async function serveMedia(req: Request, id: string): Promise<Response> {
  const head = req.method.toUpperCase() === 'HEAD';
  try {
    if (!isUuid(id)) throw notFound();
    const em = await entityManager();
    const media = await findServableMedia(em, id.toLowerCase());
    if (!media) throw notFound();

    const etag = `"sha256-${media.sha256}"`;
    const headers = new Headers({
      'content-type': media.mimeType,
      etag,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'accept-ranges': 'bytes',
      // Only images and MP4s live here; if one is opened directly, it gets no script powers.
      'content-security-policy': "default-src 'none'; sandbox",
      ...cacheTagHeaders(`media-${id.toLowerCase()}`),
    });
    if (ifNoneMatchMatches(req.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });

    const storage = mediaStorage();
    const ifRange = req.headers.get('if-range');
    const wanted = ifRange && ifRange !== etag ? null : parseRange(req.headers.get('range'), media.byteSize);
    if (wanted === 'unsatisfiable') return unsatisfiable(headers, media.byteSize);

    if (head) {
      const info = await storage.head(media.storageKey);
      if (!info) throw notFound();
      const range = wanted ? { start: wanted.start, end: Math.min(wanted.end, info.size - 1) } : null;
      if (range && range.start >= info.size) return unsatisfiable(headers, info.size);
      setLength(headers, info.size, range);
      return new Response(null, { status: range ? 206 : 200, headers });
    }

    let object;
    try {
      object = await storage.get(media.storageKey, wanted ?? undefined);
    } catch (err) {
      if (err instanceof RangeNotSatisfiableError) return unsatisfiable(headers, err.size);
      throw err;
    }
    if (!object) throw notFound();
    setLength(headers, object.size, object.range);
    const body = Readable.toWeb(object.stream) as ReadableStream<Uint8Array>;
    return new Response(body, { status: object.range ? 206 : 200, headers });
  } catch (err) {
    const { response, failure } = failureResponse(err, new Headers({ 'cache-control': 'no-store' }));
    if (failure.status >= 500) logLine({ level: 'error', msg: 'media serve failed', error: String(err) });
    return head ? new Response(null, { status: response.status, headers: response.headers }) : response;
  }
}

function setLength(headers: Headers, size: number, range: ByteRange | null) {
  if (range) {
    headers.set('content-range', `bytes ${range.start}-${range.end}/${size}`);
    headers.set('content-length', String(range.end - range.start + 1));
  } else {
    headers.set('content-length', String(size));
  }
}

function unsatisfiable(headers: Headers, size: number): Response {
  headers.set('content-range', `bytes */${size}`);
  headers.delete('content-type');
  return new Response(null, { status: 416, headers });
}

/**
 * One `bytes=` range against a known size: `a-b`, `a-` or `-n`. Anything else (other units,
 * several ranges, garbage) means "no range": the whole file with 200, as RFC 9110 allows.
 */
export function parseRange(header: string | null, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Number(match[2]);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return null;
  return { start, end: Math.min(end, size - 1) };
}
