/**
 * The one outbound fetcher for images (POST /media/from-url and rehost): a URL supplied by an
 * author must never reach this machine, its network or a cloud metadata service (SSRF).
 *
 * Per hop: parse with WHATWG URL (canonicalizes decimal/hex/octal/short IPv4 and IDNA forms),
 * allow http/https only, resolve the host ONCE, refuse if any answer is forbidden, connect to the
 * vetted address. Redirects are followed by hand so every hop gets the same checks. The body is
 * read with a byte cap; connect, read-idle and total timeouts bound the time.
 *
 * What the author reads is "address not allowed" or "could not fetch the image": never what an
 * internal name resolved to, which port refused, or a DNS or socket error code, since those
 * would map the inside of the network for whoever sends URLs. The details go to the log.
 */
import { isIP } from 'node:net';
import { logLine } from '../foundation/log';
import { inSpan, SpanKind, TRACING } from '../foundation/tracing';
import { checkDestination, PUBLIC_ONLY, type AllowList } from './address-policy';
import { systemResolver } from './fetch/dns-resolver';
import { FetchError } from './fetch/fetch-error';
import type { Connector, HopResponse, ResolvedAddress, Resolver } from './fetch/types';
import { PeerRefusedError, undiciConnector } from './fetch/undici-connector';

export { FetchError, isFetchError } from './fetch/fetch-error';
export type { Connector, HopResponse, ResolvedAddress, Resolver } from './fetch/types';

export const MAX_FETCH_BYTES = 50 * 1024 * 1024; // the same 50 MiB cap as an upload

export interface SafeFetchOptions {
  /** Parsed ALLOWED_PRIVATE_ADDRESSES and ALLOWED_OUTBOUND_PORTS (parseAllowList); default: public addresses on 80 and 443. */
  allowList?: AllowList;
  maxBytes?: number;
  maxRedirects?: number;
  connectTimeoutMs?: number;
  /** Longest wait for response headers or between two body chunks. */
  readTimeoutMs?: number;
  /** Whole call, all hops included. */
  totalTimeoutMs?: number;
  resolver?: Resolver;
  connector?: Connector;
  signal?: AbortSignal;
  /** Request headers added to the defaults (user-agent, accept). */
  headers?: Record<string, string>;
  /** Prefix of error messages, naming the request field the URL came from. */
  field?: string;
  /** Where the details kept out of error messages go; default: the service log. */
  log?: (fields: Record<string, unknown>) => void;
}

export interface SafeFetchResult {
  buffer: Buffer;
  /** Content-Type as the server sent it (informative only: callers must sniff the bytes). */
  contentType: string | null;
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const NOT_ALLOWED = 'address not allowed';
const NOT_FETCHED = 'could not fetch the image';

const logToService = (fields: Record<string, unknown>) =>
  logLine({ level: 'info', msg: 'outbound fetch failed', ...fields });

const DEFAULT_HEADERS: Record<string, string> = {
  'user-agent': 'AuthorPublishingAPI-ImageFetcher/1.0',
  accept: 'image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.1',
};

export function safeFetch(input: string, opts: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  return TRACING ? tracedFetch(input, opts) : fetchNow(input, opts);
}

/**
 * Traces on: a download as a `media.download` span: the source's host, never its URL (its path
 * and query may carry a signature or the author's data), the bytes and a failure's problem.
 */
function tracedFetch(input: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  let host = 'invalid';
  try {
    host = new URL(input.trim()).hostname;
  } catch {
    // refused below as bad_url
  }
  return inSpan('media.download', { kind: SpanKind.CLIENT, attributes: { 'server.address': host } }, async (span) => {
    try {
      const fetched = await fetchNow(input, opts);
      span.setAttribute('media.download.bytes', fetched.buffer.length);
      return fetched;
    } catch (err) {
      if (err instanceof FetchError && err.httpStatus !== undefined)
        span.setAttribute('http.response.status_code', err.httpStatus);
      throw err;
    }
  });
}

async function fetchNow(input: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  const field = opts.field ?? 'url';
  const fail = (kind: FetchError['problem'], what: string, httpStatus?: number) =>
    new FetchError(kind, `${field}: ${what}`, httpStatus);
  const allow = opts.allowList ?? PUBLIC_ONLY;
  const log = opts.log ?? logToService;
  const maxBytes = opts.maxBytes ?? MAX_FETCH_BYTES;
  const maxRedirects = opts.maxRedirects ?? 5;
  const connector = opts.connector ?? undiciConnector;
  const resolver = opts.resolver ?? systemResolver;

  const deadline = AbortSignal.timeout(opts.totalTimeoutMs ?? 30_000);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;

  let url = parseHttpUrl(input, fail);
  for (let redirects = 0; ; redirects++) {
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const target = await vetHost(url, port, allow, resolver, fail, log, signal);
    let response: HopResponse;
    try {
      response = await connector({
        url,
        address: target.address,
        family: target.family,
        headers: { ...DEFAULT_HEADERS, ...opts.headers },
        signal,
        connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
        readTimeoutMs: opts.readTimeoutMs ?? 10_000,
        isPeerAllowed: (peer) => checkDestination(peer, port, allow).allowed,
      });
    } catch (err) {
      throw translate(err, fail, deadline, (fields) =>
        log({ url: url.href, address: target.address, port, ...fields }),
      );
    }

    try {
      const location = header(response.headers, 'location');
      if (REDIRECT_STATUSES.has(response.status) && location) {
        if (redirects >= maxRedirects) throw fail('too_many_redirects', `more than ${maxRedirects} redirects`);
        url = parseHttpUrl(new URL(location, url).href, fail, 'redirect to ');
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        throw fail('http_status', `source answered HTTP ${response.status}`, response.status);
      }
      const buffer = await readCapped(response, maxBytes, fail);
      return { buffer, contentType: header(response.headers, 'content-type') ?? null, finalUrl: url.href };
    } catch (err) {
      throw translate(err, fail, deadline, (fields) =>
        log({ url: url.href, address: target.address, port, ...fields }),
      );
    } finally {
      await response.dispose();
    }
  }
}

type Fail = (kind: FetchError['problem'], what: string, httpStatus?: number) => FetchError;

function parseHttpUrl(input: string, fail: Fail, context = ''): URL {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw fail('bad_url', `${context}not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fail('bad_scheme', `${context}only http and https URLs are accepted (got ${url.protocol.replace(/:$/, '')})`);
  }
  // Credentials in an image URL are never needed and are the classic parser-confusion vector
  // ("http://allowed@internal/"); refusing them removes the whole class.
  if (url.username || url.password) throw fail('bad_url', `${context}URLs with credentials are not accepted`);
  if (!url.hostname) throw fail('bad_url', `${context}URL has no host`);
  return url;
}

/** RFC 6761: "localhost" and "*.localhost" are loopback by definition; never ask DNS about them. */
const isLocalhostName = (name: string) => name === 'localhost' || name.endsWith('.localhost');

async function vetHost(
  url: URL,
  port: number,
  allow: AllowList,
  resolver: Resolver,
  fail: Fail,
  log: NonNullable<SafeFetchOptions['log']>,
  signal: AbortSignal,
): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let candidates: ResolvedAddress[];
  if (isIP(host)) {
    candidates = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    const name = host.replace(/\.$/, '').toLowerCase();
    if (isLocalhostName(name)) {
      candidates = [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    } else {
      try {
        candidates = await raceAbort(resolver(name), signal);
      } catch (err) {
        const code = err instanceof Error && 'code' in err ? String(err.code) : undefined;
        log({ url: url.href, host: name, problem: signal.aborted ? 'dns timeout' : 'dns failure', code });
        if (signal.aborted) throw fail('timeout', `${NOT_FETCHED} (the source took too long)`);
        throw fail('network', NOT_FETCHED);
      }
      if (candidates.length === 0) {
        log({ url: url.href, host: name, problem: 'dns answered no address' });
        throw fail('network', NOT_FETCHED);
      }
    }
  }
  // ANY internal answer refuses the name: otherwise a record set mixing a public and a private
  // address would let the attacker win whenever the connector picks the private one.
  for (const candidate of candidates) {
    const verdict = checkDestination(candidate.address, port, allow);
    if (!verdict.allowed) {
      log({ url: url.href, host, address: verdict.address, port, problem: verdict.reason });
      throw fail('forbidden_address', NOT_ALLOWED);
    }
  }
  return candidates[0];
}

async function readCapped(response: HopResponse, maxBytes: number, fail: Fail): Promise<Buffer> {
  const declared = Number(header(response.headers, 'content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw fail('too_large', `source file is larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    // Stop at the first byte past the cap rather than trusting Content-Length.
    if (total > maxBytes) throw fail('too_large', `source file is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function header(headers: HopResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Maps transport errors to FetchError problems (details to the log); FetchErrors pass through unchanged. */
function translate(
  err: unknown,
  fail: Fail,
  deadline: AbortSignal,
  log: (fields: Record<string, unknown>) => void,
): FetchError {
  if (err instanceof FetchError) return err;
  if (err instanceof PeerRefusedError) {
    log({ problem: 'connected peer not allowed', peer: err.address });
    return fail('forbidden_address', NOT_ALLOWED);
  }
  const code = typeof err === 'object' && err && 'code' in err ? String(err.code) : '';
  log({ problem: deadline.aborted ? 'deadline passed' : 'transport error', code, detail: String(err) });
  if (deadline.aborted || TIMEOUT_CODES.has(code)) return fail('timeout', `${NOT_FETCHED} (the source took too long)`);
  return fail('network', NOT_FETCHED);
}
