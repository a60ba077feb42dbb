/**
 * A throwaway HTTP server bound to 127.0.0.1 only (the one address tests may contact), which
 * counts TCP connections so tests can prove that a refused fetch never reached it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface LocalServer {
  origin: string;
  port: number;
  connections: number;
  requests: IncomingMessage[];
  close(): Promise<void>;
}

export async function startLocalServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  const state = { connections: 0, requests: [] as IncomingMessage[] };
  const server = createServer((req, res) => {
    state.requests.push(req);
    handler(req, res);
  });
  server.on('connection', (socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return state.connections;
    },
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
