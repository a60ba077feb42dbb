import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { proxyToConsole } from '../../../server/http/console-proxy';
import type { Conversions } from '../../../server/content';
import { startConsoleThread, type ConsoleThread } from '../../../server/runtime/console-thread-host';

/**
 * The host of the console's thread (runtime/console-thread-host.ts) with a stand-in thread
 * (fixtures/console-thread-stub.mjs: the host's protocol, no Next), reached as the REST thread
 * reaches it: through http/console-proxy.ts on a listener of its own.
 */
const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url);

const content: Conversions = {
  render: async (input, owner) =>
    ({ html: `<p>${input.markdown} for ${owner}</p>`, externalImages: [], writtenAs: {} }) as never,
  rewriteImageSources: async (html) => html,
  diffZones: async () => ({}) as never,
  queueFull: () => false,
};

const logged: Record<string, unknown>[] = [];
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  logged.length = 0;
});

async function hosted(entry: URL): Promise<{ thread: ConsoleThread; base: string }> {
  const thread = startConsoleThread({
    entry,
    data: { databaseUrl: 'postgres://unused', poolerMode: 'none', root: '/the/root', dev: false },
    content,
    log: (line) => void logged.push(line),
  });
  cleanup.push(() => thread.close());
  const toConsole = proxyToConsole(thread.socketPath);
  const server = http.createServer((req, res) => void toConsole(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        toConsole.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { thread, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const json = async (res: Response) => JSON.parse(await res.text()) as Record<string, unknown>;

describe('the console thread’s host', () => {
  it('starts the thread with its data and serves through its socket, in a directory of its own', async () => {
    const { thread, base } = await hosted(fixture('console-thread-stub.mjs'));
    await thread.ready;
    const answer = await json(await fetch(`${base}/`));
    expect(answer.root).toBe('/the/root');
    expect(answer.threadId).toBeGreaterThan(0); // a worker thread, not the main one
    expect(path.basename(thread.socketPath)).toBe('console.sock');
    expect(path.basename(path.dirname(thread.socketPath))).toMatch(/^author-console-/);
  });

  it('lends the thread the conversion pool over its port', async () => {
    const { thread, base } = await hosted(fixture('console-thread-stub.mjs'));
    await thread.ready;
    const answer = await json(await fetch(`${base}/convert`));
    expect(answer).toMatchObject({ id: 1, value: { html: '<p>x for stub</p>' } });
  });

  it('answers 503 service_unavailable while the thread is down, then serves again from a new thread', async () => {
    const { thread, base } = await hosted(fixture('console-thread-stub.mjs'));
    await thread.ready;
    const first = await json(await fetch(`${base}/`));
    // The thread ends in the middle of a request: that request fails, not the process.
    const crashed = await fetch(`${base}/crash`);
    expect(crashed.status).toBe(503);
    expect(await json(crashed)).toMatchObject({ code: 'service_unavailable' });
    const seen: number[] = [];
    let again: Record<string, unknown> | undefined;
    for (let i = 0; i < 200 && !again; i++) {
      const res = await fetch(`${base}/`);
      seen.push(res.status);
      if (res.status === 200) again = await json(res);
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(again, JSON.stringify(seen)).toBeDefined();
    expect(again!.threadId).not.toBe(first.threadId);
    expect(seen.every((s) => s === 200 || s === 503)).toBe(true);
    expect(logged.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['the console thread ended; restarting it', 'the console thread serves again']),
    );
  });

  it('fails its start when the thread cannot start, saying why', async () => {
    const thread = startConsoleThread({
      entry: fixture('console-thread-fails.mjs'),
      data: { databaseUrl: 'postgres://unused', poolerMode: 'none', root: '/', dev: false },
      content,
      log: (line) => void logged.push(line),
    });
    cleanup.push(() => thread.close());
    await expect(thread.ready).rejects.toThrow(/ended before it served/);
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: 'the console thread failed to start', error: 'no build here' }),
    );
  });

  it('closes the thread and removes its socket directory', async () => {
    const { thread } = await hosted(fixture('console-thread-stub.mjs'));
    await thread.ready;
    expect(existsSync(thread.socketPath)).toBe(true);
    await thread.close();
    expect(existsSync(path.dirname(thread.socketPath))).toBe(false);
  });
});
