/**
 * POST /media from a sender that announces 50 MiB and then stops sending: the service answers
 * 400 in the contract's error shape once the body has been idle for UPLOAD_IDLE_TIMEOUT_MS, and
 * closes the connection, instead of holding the upload until the server's request timeout.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../support/api';
import { startExtraService, type ExtraService } from './media-helpers';
import { API_ONLY } from '../support/service';

describe('POST /media: a stalled upload', () => {
  let extra: ExtraService;
  beforeAll(async () => {
    extra = await startExtraService({ ...API_ONLY, UPLOAD_IDLE_TIMEOUT_MS: '300' });
  });
  afterAll(async () => {
    await extra?.stop();
  });

  it('is answered 400 with {error} naming the stall, and the connection is closed', async () => {
    const { token } = await newAccount();
    const { hostname, port } = new URL(extra.service.baseUrl);
    const boundary = 'stall-boundary';
    const head = [
      'POST /api/v1/author/media HTTP/1.1',
      `Host: ${hostname}:${port}`,
      `Authorization: Bearer ${token}`,
      `Content-Type: multipart/form-data; boundary=${boundary}`,
      `Content-Length: ${50 * 1024 * 1024}`,
      '',
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="a.png"',
      'Content-Type: image/png',
      '',
      'first bytes of a file that never comes',
    ].join('\r\n');
    const socket = connect(Number(port), hostname);
    const answer = await new Promise<string>((resolve, reject) => {
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      // The service closes the connection after its answer: 'close' with the whole reply.
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
      socket.write(head);
    });
    const [headers, body] = answer.split('\r\n\r\n');
    expect(headers).toMatch(/^HTTP\/1\.1 400 /);
    expect(headers!.toLowerCase()).toContain('connection: close');
    const json = JSON.parse(body!.startsWith('{') ? body! : body!.split('\r\n')[1]!) as unknown;
    expect(json).toEqual({ error: expect.stringMatching(/^file: the upload stalled/) });
  }, 60_000);
});
