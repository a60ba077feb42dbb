/**
 * The console's live preview converts like a save, so it is charged like one and its body is
 * bounded before it is parsed: one unit of the account's write window per preview (shared with
 * the API), and a form over the size cap refused on its Content-Length or its streamed bytes.
 * The console session is opened directly in the database, as sign-in would (a keyed hash of the
 * cookie under the instance's SESSION_SECRET).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../support/api';
import { startExtraService, type ExtraService } from './media-helpers';
import { openConsoleSession as openConsoleSessionFor } from './console-session';

const SECRET = 'console-preview-test-secret-0123456789abcdefghij';

const openConsoleSession = (accountId: string) => openConsoleSessionFor(SECRET, accountId);

describe('console live preview', () => {
  let extra: ExtraService;
  beforeAll(async () => {
    extra = await startExtraService({ SESSION_SECRET: SECRET });
  });
  afterAll(async () => {
    await extra?.stop();
  });

  // As the editor's form sends it: browsers put the page's Origin on every POST.
  const preview = (
    session: { cookie: string; csrf: string },
    markdown: string,
    origin: string | null = extra.service.baseUrl,
  ) =>
    fetch(`${extra.service.baseUrl}/console/preview/live`, {
      method: 'POST',
      headers: { cookie: session.cookie, ...(origin === null ? {} : { origin }) },
      body: new URLSearchParams({ csrf: session.csrf, title: 'T', markdown }),
    }).then(async (r) => ({ status: r.status, text: await r.text() }));

  it("converts only for the console's own pages: a foreign, opaque or missing Origin is refused (403), never a 500", async () => {
    const account = await newAccount();
    const session = await openConsoleSession(account.id);
    for (const origin of ['https://evil.example', 'null', 'not a url', null]) {
      const refused = await preview(session, 'Hello.', origin);
      expect(refused.status, String(origin)).toBe(403);
      expect(refused.text).toContain('Cross-site request refused.');
    }
    expect((await preview(session, 'Hello.')).status).toBe(200);
  });

  it('refuses a console upload from a foreign, opaque or missing Origin (403) before reading the file', async () => {
    const account = await newAccount();
    const session = await openConsoleSession(account.id);
    for (const origin of ['https://evil.example', 'null', null]) {
      const form = new FormData();
      form.set('file', new Blob([new Uint8Array(16)], { type: 'image/png' }), 'x.png');
      const res = await fetch(`${extra.service.baseUrl}/console/media/upload`, {
        method: 'POST',
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, ...(origin === null ? {} : { origin }) },
        body: form,
      });
      expect(res.status, String(origin)).toBe(403);
      expect(await res.json()).toEqual({ ok: false, error: 'Cross-site request refused.' });
    }
  });

  it('spends one unit of the write window per preview, shared with the API, and says so in the console words', async () => {
    const account = await newAccount({ limits: { write_per_min: 2 } });
    const session = await openConsoleSession(account.id);
    // Stay inside one fixed window: start right after a boundary if the current one is nearly over.
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 15) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 500));
    const first = await preview(session, 'Hello *there*.');
    expect(first.status).toBe(200);
    expect(first.text).toContain('<em>there</em>');
    expect((await preview(session, 'Again.')).status).toBe(200);
    const refused = await preview(session, 'Once more.');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Your account has used all 2 changes allowed per minute');
    // The API's write window is the same one.
    const write = await extra.call('POST', '/posts', { token: account.token, json: { title: 'T', markdown: 'x' } });
    expect(write.status).toBe(429);
    expect(write.body).toEqual({
      error: expect.stringMatching(/^write limit of 2 requests per minute/),
      code: 'rate_limited',
    });
  });

  it('refuses a form whose Content-Length is over the cap before reading any of it (413), without spending a unit', async () => {
    const account = await newAccount({ limits: { write_per_min: 1 } });
    const session = await openConsoleSession(account.id);
    const { hostname, port } = new URL(extra.service.baseUrl);
    const socket = connect(Number(port), hostname);
    const head = await new Promise<string>((resolve, reject) => {
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
        if (received.includes('\r\n\r\n')) resolve(received);
      });
      socket.on('error', reject);
      // The headers only: the 20 MB body is never sent, so an answer proves it was not awaited.
      socket.write(
        [
          'POST /console/preview/live HTTP/1.1',
          `Host: ${hostname}:${port}`,
          `Cookie: ${session.cookie}`,
          `Origin: ${extra.service.baseUrl}`,
          'Content-Type: application/x-www-form-urlencoded',
          'Content-Length: 20000000',
          '',
          '',
        ].join('\r\n'),
      );
    });
    socket.destroy();
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect((await preview(session, 'Still allowed.')).status).toBe(200);
  });

  it('refuses a streamed form without Content-Length once its bytes pass the cap (413)', async () => {
    const account = await newAccount();
    const session = await openConsoleSession(account.id);
    const chunk = new TextEncoder().encode('a'.repeat(1024 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode(`csrf=${session.csrf}&markdown=`));
        if (sent >= 64) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${extra.service.baseUrl}/console/preview/live`, {
      method: 'POST',
      headers: {
        cookie: session.cookie,
        origin: extra.service.baseUrl,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
      duplex: 'half',
    } as RequestInit).catch((err: unknown) => err);
    // Either the answer arrives (413) or the service stops reading and closes the connection.
    if (res instanceof Response) expect(res.status).toBe(413);
    else expect(res).toBeInstanceOf(Error);
    // 64 MiB offered; reading stopped past the 12 MiB cap (socket and server buffers hold some more).
    expect(sent).toBeLessThan(64);
  });
});
