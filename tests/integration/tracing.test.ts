import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../support/api';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { solidPng, startExtraService, startFileServer, type ExtraService, type FileServer } from './media-helpers';

/**
 * OpenTelemetry traces (docs/traces.md), on an instance of its own that sends its spans to an
 * OTLP/HTTP receiver on loopback: the tree of one PATCH across the HTTP thread and a conversion
 * worker, a caller's `traceparent` continued, the trace id in the request's log line, and no
 * token, cookie, Markdown, query string or URL beyond a host in anything sent.
 */

let receiver: OtlpReceiver;
let files: FileServer;
let extra: ExtraService;
let account: Awaited<ReturnType<typeof newAccount>>;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  files = await startFileServer({ '/photo.png': { type: 'image/png', body: await solidPng(8, 8) } });
  account = await newAccount();
  extra = await startExtraService({
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_SERVICE_NAME: 'tracing-test',
    // Spans go out within 100 ms instead of 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
});
afterAll(async () => {
  await extra?.stop();
  await files?.close();
  await receiver?.close();
});

const spansOf = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);

/** Waits until the spans of `traceId` satisfy `done` (they come from several threads, in batches). */
async function traceWhen(traceId: string, done: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 20_000;
  while (!done(spansOf(traceId))) {
    if (Date.now() > deadline)
      throw new Error(`trace ${traceId} incomplete: ${JSON.stringify(spansOf(traceId).map((s) => s.name))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return spansOf(traceId);
}

/** The `trace_id` of the request line the instance logged for `requestId`. */
function loggedTraceId(requestId: string): unknown {
  const line = extra.service.logs
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === 'request' && l.request_id === requestId);
  return line?.trace_id;
}

async function untilLogged(requestId: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const id = loggedTraceId(requestId);
    if (typeof id === 'string') return id;
    if (Date.now() > deadline) throw new Error(`no request line with a trace_id for ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const one = (spans: ReceivedSpan[], name: string, parent?: ReceivedSpan) => {
  const found = spans.filter((s) => s.name === name && (!parent || s.parentSpanId === parent.spanId));
  expect(
    found.map((s) => s.name),
    `one ${name} under ${parent?.name ?? 'the trace'}`,
  ).toEqual([name]);
  return found[0]!;
};

describe('traces', () => {
  it('show one PATCH as request → admission → statements → conversion (queue, worker) → response', async () => {
    const created = await extra.call('POST', '/posts', {
      token: account.token,
      json: { title: 'Traced', markdown: 'First version.' },
    });
    expect(created.status).toBe(201);
    const requestId = `trace-${randomBytes(6).toString('hex')}`;
    const patched = await extra.call('PATCH', `/posts/${created.body.id}`, {
      token: account.token,
      json: { markdown: 'Second *version*.' },
      headers: { 'x-request-id': requestId },
    });
    expect(patched.status).toBe(200);

    const traceId = await untilLogged(requestId);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const spans = await traceWhen(
      traceId,
      (all) => all.some((s) => s.name === 'conversion.worker') && all.some((s) => s.parentSpanId === ''),
    );

    const root = spans.find((s) => s.parentSpanId === '')!;
    expect(root).toMatchObject({
      name: 'PATCH /api/v1/author/posts/{id}',
      kind: 2, // SERVER
      thread: 'http',
      service: 'tracing-test',
      attributes: {
        'http.request.method': 'PATCH',
        'http.route': '/api/v1/author/posts/{id}',
        'http.response.status_code': 200,
      },
    });

    // The admission, and its statement in the batch it joined.
    const admission = one(spans, 'admission', root);
    expect(admission.attributes).toMatchObject({ 'admission.way': 'admit_and_read', 'admission.rate_class': 'write' });
    const batch = one(spans, 'admission.batch', admission);
    expect(batch.attributes['admission.batch.size']).toBe(1);
    expect(admission.attributes['admission.batch.size']).toBe(1);
    const admitted = spans.filter((s) => s.parentSpanId === batch.spanId);
    expect(admitted).toHaveLength(1);
    expect(admitted[0]!.name).toMatch(/^sql \w+$/);
    expect(admitted[0]!.attributes).toMatchObject({
      'db.system': 'postgresql',
      'db.statement.name': admitted[0]!.name.slice(4),
    });

    // Span times are exact within a span; between spans, within a millisecond (the SDK anchors
    // each span to the wall clock when it starts), and so between threads.
    const ms = 1_000_000n;

    // The conversion: its wait in the queue here, its time in a worker thread under it.
    const conversion = one(spans, 'conversion', root);
    const queue = one(spans, 'conversion.queue', conversion);
    const worker = one(spans, 'conversion.worker', conversion);
    expect(worker.thread).toBe('conversion');
    expect(worker.attributes['conversion.task']).toBe('render');
    expect(queue.endNs).toBeLessThanOrEqual(worker.startNs + ms);
    expect(worker.endNs).toBeLessThanOrEqual(conversion.endNs + ms);

    // The update's statement after the conversion, then the response.
    const written = spans.filter((s) => s.parentSpanId === root.spanId && s.name.startsWith('sql '));
    expect(written.some((s) => s.startNs + ms >= conversion.endNs)).toBe(true);
    const response = one(spans, 'response', root);
    expect(response.attributes['http.response.status_code']).toBe(200);

    expect(admission.endNs).toBeLessThanOrEqual(conversion.startNs + ms);
    expect(conversion.endNs).toBeLessThanOrEqual(response.startNs + ms);
    expect(response.endNs).toBeLessThanOrEqual(root.endNs + ms);
    for (const s of spans) expect(s.traceId).toBe(traceId);
  });

  it("continue a caller's traceparent: the caller's trace id, its span as the parent", async () => {
    const callerTrace = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const requestId = `parent-${randomBytes(6).toString('hex')}`;
    const res = await extra.call('GET', '/me', {
      token: account.token,
      headers: { traceparent: `00-${callerTrace}-${callerSpan}-01`, 'x-request-id': requestId },
    });
    expect(res.status).toBe(200);
    expect(await untilLogged(requestId)).toBe(callerTrace);
    const spans = await traceWhen(callerTrace, (all) => all.some((s) => s.parentSpanId === callerSpan));
    const server = spans.filter((s) => s.parentSpanId === callerSpan);
    expect(server).toHaveLength(1);
    expect(server[0]).toMatchObject({ name: 'GET /api/v1/author/me', kind: 2 });
    expect(one(spans, 'admission', server[0]).attributes['admission.batch.size']).toBe(1);
  });

  it('send no token, cookie, Markdown, query string or URL path, on the REST surface nor in the console', async () => {
    const mark = (what: string) => `${what}${randomBytes(6).toString('hex')}`;
    const markers = {
      token: mark('tokenmark'),
      cookie: mark('cookiemark'),
      markdown: mark('markdownmark'),
      query: mark('querymark'),
      imagePath: mark('pathmark'),
      imageQuery: mark('signaturemark'),
    };
    files.routes[`/${markers.imagePath}.png`] = { type: 'image/png', body: await solidPng(9, 9) };
    const image = files.url(`/${markers.imagePath}.png?sig=${markers.imageQuery}`);
    const cookie = `session=${markers.cookie}; console_session=${markers.cookie}`;
    const traced: string[] = [];
    const send = async (method: string, path: string, opts: Parameters<ExtraService['call']>[2], status: number) => {
      const requestId = `privacy-${randomBytes(6).toString('hex')}`;
      const res = await extra.call(method, path, {
        ...opts,
        headers: { ...opts?.headers, cookie, 'x-request-id': requestId },
      });
      expect(res.status).toBe(status);
      traced.push(await untilLogged(requestId));
    };

    const created = await extra.call('POST', '/posts', {
      token: account.token,
      json: { title: 'Private', markdown: 'x' },
    });
    expect(created.status).toBe(201);
    await send(
      'PATCH',
      `/posts/${created.body.id}`,
      { token: account.token, json: { markdown: `A ${markers.markdown} paragraph.\n\n![photo](${image})` } },
      200,
    );
    expect(files.hits[`/${markers.imagePath}.png`]).toBe(1);
    await send('GET', `/posts?limit=5&q=${markers.query}`, { token: account.token }, 200);
    await send('GET', '/me', { token: `dp_live_${markers.token}` }, 401);
    // A console page, answered by Next in the console's thread with spans of its own.
    const consoleId = `privacy-${randomBytes(6).toString('hex')}`;
    const page = await fetch(`${extra.service.baseUrl}/console?from=${markers.query}`, {
      headers: { cookie, 'x-request-id': consoleId },
      redirect: 'manual',
    });
    await page.arrayBuffer();
    const consoleTrace = await untilLogged(consoleId);

    // Every request's trace arrived, the worker's, the download's and the console thread's spans too.
    for (const traceId of traced) await traceWhen(traceId, (all) => all.some((s) => s.parentSpanId === ''));
    const patch = await traceWhen(traced[0]!, (all) => all.some((s) => s.name === 'conversion.worker'));
    expect(one(patch, 'media.download').attributes).toMatchObject({ 'server.address': '127.0.0.1' });
    expect(one(patch, 'rehost').attributes).toMatchObject({ 'rehost.urls': 1, 'rehost.stored': 1 });
    await traceWhen(consoleTrace, (all) => all.some((s) => s.thread === 'console'));
    await new Promise((resolve) => setTimeout(resolve, 500)); // stragglers of the last batches

    const sent = receiver.bodies.join('\n');
    expect(sent.length).toBeGreaterThan(0);
    for (const [where, marker] of Object.entries(markers)) expect(sent, where).not.toContain(marker);
    expect(sent).not.toContain(account.token);
    expect(sent).not.toContain(account.handle);
  });
});
