import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP relay between a service and PostgreSQL that reads the client's side of the
 * wire protocol as it passes: which prepared statements are bound (each Bind names its statement)
 * and how many Sync and simple Query messages go out, the exchanges that each wait for an answer.
 * Bytes are forwarded unchanged; nothing is answered by the relay itself. `holdAnswers` keeps
 * PostgreSQL's answers back until released, so a test can make requests meet while one
 * statement is out.
 */
export interface WireTap {
  /** `postgres://…` of the relay, the given URL with its host and port replaced. */
  url: string;
  /** Statement names of every Bind since the last `reset`, in order. */
  binds: string[];
  syncs: number;
  queries: number;
  reset(): void;
  /** Keeps every answer from PostgreSQL back (in order) until the returned function is called. */
  holdAnswers(): () => void;
  close(): Promise<void>;
}

const STARTUP_CODE = 196608; // protocol 3.0

export async function startWireTap(databaseUrl: string): Promise<WireTap> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const tap = { binds: [] as string[], syncs: 0, queries: 0 };
  let held: (() => void)[] | null = null;

  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let started = false;
    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (!started) {
          // Untyped messages until the startup message: an SSL or GSS request may come first.
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          if (pending.readInt32BE(4) === STARTUP_CODE) started = true;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0]!);
        const body = pending.subarray(5, 1 + length);
        if (type === 'B') {
          const portalEnd = body.indexOf(0);
          const nameEnd = body.indexOf(0, portalEnd + 1);
          tap.binds.push(body.subarray(portalEnd + 1, nameEnd).toString('utf8'));
        } else if (type === 'S') tap.syncs++;
        else if (type === 'Q') tap.queries++;
        pending = pending.subarray(1 + length);
      }
    });
    upstream.on('data', (chunk: Buffer) => (held ? held.push(() => client.write(chunk)) : client.write(chunk)));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(databaseUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as AddressInfo).port);

  return {
    url: relayed.toString(),
    get binds() {
      return tap.binds;
    },
    get syncs() {
      return tap.syncs;
    },
    get queries() {
      return tap.queries;
    },
    reset() {
      tap.binds = [];
      tap.syncs = 0;
      tap.queries = 0;
    },
    holdAnswers() {
      held ??= [];
      return () => {
        const answers = held ?? [];
        held = null;
        for (const answer of answers) answer();
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
