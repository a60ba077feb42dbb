/**
 * GET and HEAD /api/media/{uuid}: stored files, without auth (the uuid is the capability, as in
 * the contract's "Recommended publishing flow" where `url` goes straight into public HTML).
 *
 * Files never change once stored (a new upload gets a new uuid), hence the year-long immutable
 * cache and a strong ETag from the content hash. The body is streamed from storage, never read
 * whole into memory; single byte ranges are honoured (video seeking needs them), multi-range
 * requests get the whole file, which RFC 9110 allows.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { notFound } from '../foundation/errors';
import { RangeNotSatisfiableError, type ByteRange } from '../media/storage';
import { findServableMedia } from '../services/media/media-storage';
import { logLine } from '../foundation/log';
import { httpFailure, sendFailure } from './errors';
import type { AppParts } from '../runtime/parts';
import { isUuid } from '../foundation/uuid';
import { ifNoneMatchMatches } from '../foundation/entity-tags';
import { cacheTagHeaders } from './cache-tags';

type Headers = Record<string, string>;

/** Answers GET or HEAD for the stored file `id` on the Node response, streaming its bytes. */
export async function serveMedia(
  parts: Pick<AppParts, 'db' | 'storage'>,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
): Promise<void> {
  const head = req.method?.toUpperCase() === 'HEAD';
  try {
    if (!isUuid(id)) throw notFound();
    const media = await findServableMedia(parts.db, id.toLowerCase());
    if (!media) throw notFound();

    const etag = `"sha256-${media.sha256}"`;
    const headers: Headers = {
      'content-type': media.mimeType,
      etag,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'accept-ranges': 'bytes',
      // Only images and MP4s live here; if one is opened directly, it gets no script powers.
      'content-security-policy': "default-src 'none'; sandbox",
      ...cacheTagHeaders(`media-${id.toLowerCase()}`),
    };
    if (ifNoneMatchMatches(req.headers['if-none-match'] ?? null, etag)) return void res.writeHead(304, headers).end();

    const storage = parts.storage;
    const ifRange = req.headers['if-range'];
    const wanted = ifRange && ifRange !== etag ? null : parseRange(req.headers.range ?? null, media.byteSize);
    if (wanted === 'unsatisfiable') return unsatisfiable(res, headers, media.byteSize);

    if (head) {
      const info = await storage.head(media.storageKey);
      if (!info) throw notFound();
      const range = wanted ? { start: wanted.start, end: Math.min(wanted.end, info.size - 1) } : null;
      if (range && range.start >= info.size) return unsatisfiable(res, headers, info.size);
      setLength(headers, info.size, range);
      return void res.writeHead(range ? 206 : 200, headers).end();
    }

    let object;
    try {
      object = await storage.get(media.storageKey, wanted ?? undefined);
    } catch (err) {
      if (err instanceof RangeNotSatisfiableError) return unsatisfiable(res, headers, err.size);
      throw err;
    }
    if (!object) throw notFound();
    setLength(headers, object.size, object.range);
    res.writeHead(object.range ? 206 : 200, headers);
    await pipeline(object.stream, res);
  } catch (err) {
    // A client that went away mid-file ends up here; pipeline has closed the storage stream.
    if (res.headersSent) return void res.destroy();
    const noStore = { 'cache-control': 'no-store' };
    const status = head ? headFailure(res, err, noStore) : sendFailure(res, err, noStore).status;
    if (status >= 500) logLine({ level: 'error', msg: 'media serve failed', error: String(err) });
  }
}

/** A failure answered to HEAD: the status and headers GET would get, without the body. */
function headFailure(res: ServerResponse, err: unknown, headers: Headers): number {
  const failure = httpFailure(err);
  res.writeHead(failure.status, {
    ...headers,
    ...failure.headers,
    ...(failure.body ? { 'content-type': 'application/json; charset=utf-8' } : {}),
  });
  res.end();
  return failure.status;
}

function setLength(headers: Headers, size: number, range: ByteRange | null) {
  if (range) {
    headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
    headers['content-length'] = String(range.end - range.start + 1);
  } else {
    headers['content-length'] = String(size);
  }
}

function unsatisfiable(res: ServerResponse, headers: Headers, size: number): void {
  headers['content-range'] = `bytes */${size}`;
  delete headers['content-type'];
  res.writeHead(416, headers).end();
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
