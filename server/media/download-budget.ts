/**
 * Bytes of one write's downloads, reserved before they are held. A download claims its declared
 * Content-Length when the response arrives (refused at once when the write has not that much
 * left), and every byte past its claim before the byte is kept, so parallel downloads can never
 * hold more together than the write's cap. Bytes fetched stay counted even when the file is then
 * refused (not an image, too large): they were downloaded and held all the same.
 *
 * The budget sits in front of the outbound fetcher as a wrapping Connector: the fetcher's own
 * address checks and caps are untouched.
 */
import type { Connector, HopResponse } from './fetch/types';

export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  get spent(): number {
    return this.used;
  }

  get left(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** Claims `bytes` if that many are left; claims nothing otherwise. */
  claim(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** The share of a ByteBudget one download holds. */
export interface DownloadClaim {
  /** Wraps `inner` so the successful response's body is claimed from the budget. */
  connector: Connector;
  /** True once the budget refused this download a byte. */
  readonly exceeded: boolean;
  /** Gives back what was claimed but not received (a Content-Length larger than the body). */
  settle(): void;
  /** Gives back everything claimed: the bytes are no longer held. */
  release(): void;
}

export function claimDownload(budget: ByteBudget, inner: Connector): DownloadClaim {
  let claimed = 0;
  let received = 0;
  let exceeded = false;
  const refuse = () => {
    exceeded = true;
    return new Error('download budget of this write exhausted');
  };
  const connector: Connector = async (request) => {
    const response = await inner(request);
    if (response.status < 200 || response.status > 299) return response;
    const declared = Number(headerValue(response, 'content-length'));
    if (Number.isFinite(declared) && declared > 0) {
      if (!budget.claim(declared)) {
        await response.dispose();
        throw refuse();
      }
      claimed += declared;
    }
    const body = response.body;
    return {
      ...response,
      body: (async function* () {
        for await (const chunk of body) {
          received += chunk.byteLength;
          if (received > claimed) {
            if (!budget.claim(received - claimed)) throw refuse();
            claimed = received;
          }
          yield chunk;
        }
      })(),
    };
  };
  return {
    connector,
    get exceeded() {
      return exceeded;
    },
    settle() {
      if (claimed > received) budget.release(claimed - received);
      claimed = received;
    },
    release() {
      budget.release(claimed);
      claimed = 0;
      received = 0;
    },
  };
}

function headerValue(response: HopResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
