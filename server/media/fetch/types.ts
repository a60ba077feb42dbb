/**
 * Seams of safeFetch. Both are injectable so unit tests can prove that a refused URL never
 * reaches the network: a stub resolver answers names, a stub connector counts calls.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name (never an IP literal) to every address it has. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** One HTTP GET to an already-checked address: no redirects followed, no DNS asked. */
interface HopRequest {
  url: URL;
  /** The vetted address to connect to; Host header and TLS SNI still come from `url`. */
  address: string;
  family: 4 | 6;
  headers: Record<string, string>;
  signal: AbortSignal;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /** Re-checks the socket's actual peer address (defence in depth against a misbehaving stack). */
  isPeerAllowed: (address: string) => boolean;
}

export interface HopResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array>;
  /** Releases the connection; safe to call more than once, and after partial reads. */
  dispose(): Promise<void>;
}

export type Connector = (request: HopRequest) => Promise<HopResponse>;
