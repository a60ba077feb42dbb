import type { IncomingMessage, ServerResponse } from 'node:http';
import { env } from '../env';
import { invalid, notFound, unauthenticated } from '../errors';
import { statements } from '../runtime';
import { applyReaderEvents, ReaderEventBatchSchema } from '../services/reader-events';
import { bearerMatches } from './bearer';
import { describeZodError, sendFailure } from './errors';

/**
 * `POST /api/reader-events`, the operator's way in for the platform's events (docs/api.md
 * "Operator route"). Not part of the author API: its own token (READER_EVENTS_TOKEN), and
 * absent (404) while that is unset.
 */
export const READER_EVENTS_PATH = '/api/reader-events';

/** A batch of 1,000 events is about 100 KB of JSON; 1 MiB leaves room and no more. */
const MAX_BODY_BYTES = 1024 * 1024;

export async function serveReaderEvents(req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.setHeader('cache-control', 'no-store');
  const token = env.READER_EVENTS_TOKEN;
  if (!token) return void sendFailure(res, notFound());
  if (!bearerMatches(req.headers.authorization, token)) {
    return void sendFailure(res, unauthenticated('Authorization: send "Bearer <READER_EVENTS_TOKEN>"'));
  }
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return void sendFailure(res, notFound());
  }
  try {
    const body = await readJson(req);
    const parsed = ReaderEventBatchSchema.safeParse(body);
    if (!parsed.success) throw invalid(describeZodError(parsed.error));
    const result = await applyReaderEvents(statements(), parsed.data);
    res.statusCode = 200;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(result));
  } catch (err) {
    sendFailure(res, err);
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/json')) throw invalid('Content-Type: must be application/json');
  if (Number(req.headers['content-length'] ?? '0') > MAX_BODY_BYTES) throw invalid('body: larger than 1 MiB');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > MAX_BODY_BYTES) throw invalid('body: larger than 1 MiB');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks, total).toString('utf8'));
  } catch {
    throw invalid('body: invalid JSON');
  }
}
