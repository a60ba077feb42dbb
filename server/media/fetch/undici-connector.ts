/**
 * Default Connector: one undici Agent per hop whose connect step dials the address safeFetch
 * already vetted instead of resolving the host again (no DNS rebinding window). The URL's host
 * still drives the Host header and TLS SNI/certificate checks, so HTTPS works as usual.
 */
import { isIP } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import type { Connector } from './types';

export class PeerRefusedError extends Error {
  constructor(readonly address: string) {
    super(`connected peer ${address} is not allowed`);
    this.name = 'PeerRefusedError';
  }
}

export const undiciConnector: Connector = async (hop) => {
  const base = buildConnector({ timeout: hop.connectTimeoutMs });
  const hostname = hop.url.hostname.replace(/^\[(.*)\]$/, '$1');
  const servername = isIP(hostname) ? undefined : hostname.replace(/\.$/, '');

  const agent = new Agent({
    connections: 1,
    headersTimeout: hop.readTimeoutMs,
    bodyTimeout: hop.readTimeoutMs,
    connect: (opts, callback) => {
      base({ ...opts, hostname: hop.address, servername }, (err, socket) => {
        if (err || !socket) return callback(err ?? new Error('connect failed'), null);
        // The socket must really be talking to a permitted peer; cheap to verify, and it
        // keeps the guarantee even if someone later swaps the dialing logic above.
        const peer = socket.remoteAddress;
        if (!peer || !hop.isPeerAllowed(peer)) {
          socket.destroy();
          return callback(new PeerRefusedError(peer ?? 'unknown'), null);
        }
        callback(null, socket);
      });
    },
  });

  const dispose = async () => {
    await agent.destroy().catch(() => undefined);
  };

  try {
    const response = await request(hop.url, {
      method: 'GET',
      headers: hop.headers,
      signal: hop.signal,
      dispatcher: agent,
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body,
      dispose: async () => {
        // Destroying an unread body makes undici emit an AbortError; nobody is reading any more.
        response.body.on('error', () => undefined);
        response.body.destroy();
        await dispose();
      },
    };
  } catch (err) {
    await dispose();
    throw err;
  }
};
