import net from 'node:net';

/**
 * A loopback port free now, below Linux's ephemeral range (32768–60999 by default), for a
 * server a test starts itself later (PostgreSQL, Varnish, nginx, an instance, and again after a
 * restart). A port from the ephemeral range could meanwhile be taken by any process that listens
 * on port 0 or connects out, as the test projects running beside each other do all the time.
 */
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(port)) continue;
    const server = net.createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!free) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    handedOut.add(port);
    return port;
  }
}
