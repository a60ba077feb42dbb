import type { IncomingMessage, ServerResponse } from 'node:http';
import { env } from '../foundation/env';
import { invalid, notFound, unauthenticated } from '../foundation/errors';
import type { AppParts } from '../runtime/parts';
import { applyReaderEvents, ReaderEventBatchSchema } from '../services/readers/reader-events';
import { bearerMatches } from './bearer';
import { describeZodError, sendFailure } from './errors';
import { readJsonBody } from './json-body';

/**
 * `POST /api/reader-events`, the operator's way in for the platform's events (docs/api.md
 * "Operator route"). Not part of the author API: its own token (READER_EVENTS_TOKEN), and
 * absent (404) while that is unset.
 */
export const READER_EVENTS_PATH = '/api/reader-events';

/** A batch of 1,000 events is about 100 KB of JSON; 1 MiB leaves room and no more. */
const MAX_BODY_BYTES = 1024 * 1024;

export async function serveReaderEvents(
  parts: Pick<AppParts, 'db'>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
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
    // The same reading as a REST write's body: its cap, Content-Type, idle timeout and deadline.
    const body = await readJsonBody(req, res, MAX_BODY_BYTES);
    const parsed = ReaderEventBatchSchema.safeParse(body);
    if (!parsed.success) throw invalid(describeZodError(parsed.error));
    const result = await applyReaderEvents(parts.db, parsed.data);
    res.statusCode = 200;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(result));
  } catch (err) {
    sendFailure(res, err);
  }
}
