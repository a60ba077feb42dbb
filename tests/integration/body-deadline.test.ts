/**
 * A JSON body trickled in a byte at a time never pauses long enough for the idle timeout, which
 * starts again with every chunk. The whole-body deadline (JSON_BODY_TIMEOUT_MS) ends it: 400 in
 * the error shape, connection closed, on a REST write and on the operator route alike.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../support/api';
import { startExtraService, type ExtraService } from './media-helpers';
import { API_ONLY } from '../support/service';

const DEADLINE_MS = 1500;
const OPERATOR_TOKEN = 'body-deadline-operator-token';

/** Sends the head, then one byte of body every 100 ms (never idle for the 1 s idle timeout). */
function trickle(base: string, path: string, authorization: string): Promise<{ answer: string }> {
  const { hostname, port } = new URL(base);
  const body = `{"title":"slow","markdown":"${'x'.repeat(400)}"}`;
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    `Authorization: ${authorization}`,
    'Content-Type: application/json',
    `Content-Length: ${body.length}`,
    '',
    '',
  ].join('\r\n');
  const socket = connect(Number(port), hostname);
  return new Promise((resolve, reject) => {
    let received = '';
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < body.length && !socket.destroyed) socket.write(body[sent++]!);
    }, 100);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('close', () => {
      clearInterval(drip);
      resolve({ answer: received });
    });
    socket.on('error', (err) => {
      clearInterval(drip);
      reject(err);
    });
    socket.write(head);
  });
}

function parsed(answer: string): { headers: string; json: unknown } {
  const [headers, rest] = answer.split('\r\n\r\n');
  const text = rest!.startsWith('{') ? rest! : rest!.split('\r\n')[1]!;
  return { headers: headers!, json: JSON.parse(text) };
}

describe('a JSON body trickled in, a byte every 100 ms', () => {
  let extra: ExtraService;
  beforeAll(async () => {
    extra = await startExtraService({
      ...API_ONLY,
      JSON_BODY_IDLE_TIMEOUT_MS: '1000',
      JSON_BODY_TIMEOUT_MS: String(DEADLINE_MS),
      READER_EVENTS_TOKEN: OPERATOR_TOKEN,
    });
  });
  afterAll(async () => {
    await extra?.stop();
  });

  it('is cut off by the whole-body deadline on POST /posts: 400 naming it, connection closed', async () => {
    const { token } = await newAccount();
    const { answer } = await trickle(extra.service.baseUrl, '/api/v1/author/posts', `Bearer ${token}`);
    const { headers, json } = parsed(answer);
    expect(headers).toMatch(/^HTTP\/1\.1 400 /);
    expect(headers.toLowerCase()).toContain('connection: close');
    expect(json).toEqual({ error: expect.stringMatching(/^body: the request body was not complete within 2 s/) });
  }, 60_000);

  it('is cut off the same way on POST /api/reader-events', async () => {
    const { answer } = await trickle(extra.service.baseUrl, '/api/reader-events', `Bearer ${OPERATOR_TOKEN}`);
    const { headers, json } = parsed(answer);
    expect(headers).toMatch(/^HTTP\/1\.1 400 /);
    expect(headers.toLowerCase()).toContain('connection: close');
    expect(json).toEqual({ error: expect.stringMatching(/^body: the request body was not complete/) });
  }, 60_000);
});
