import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ContentRejectedError,
  ConversionBusyError,
  conversionsOverPort,
  serveConversions,
  type Conversions,
} from '../../../server/content';
import type { RenderInput } from '../../../server/content/types';

/**
 * The console thread reaches the REST thread's conversion pool through conversions-link.ts. Both
 * ends here sit on one MessageChannel: what crosses it is what crosses between the threads
 * (structured clones), and the pool at the far end records what it was asked.
 */
const calls: { method: string; args: unknown[] }[] = [];

const pool: Conversions = {
  async render(input: RenderInput, owner?: string) {
    calls.push({ method: 'render', args: [input, owner] });
    if (input.markdown === 'too complex')
      throw new ContentRejectedError('too complex to convert within the time budget');
    if (input.markdown === 'busy') throw new ConversionBusyError();
    if (input.markdown === 'broken') throw new TypeError('the worker broke');
    return { html: `<p>${input.markdown}</p>`, externalImages: [], writtenAs: {} } as never;
  },
  async rewriteImageSources(html, rehosted, owner) {
    calls.push({ method: 'rewriteImageSources', args: [html, rehosted, owner] });
    return html.replace('https://x.example/a.png', rehosted['https://x.example/a.png']!);
  },
  async diffZones(before, after, owner) {
    calls.push({ method: 'diffZones', args: [before, after, owner] });
    return { cover: [], body: [], tags: [] } as never;
  },
  queueFull(owner) {
    calls.push({ method: 'queueFull', args: [owner] });
    return owner === 'backed-up';
  },
};

const links: { close(): void }[] = [];
function link() {
  const { port1, port2 } = new MessageChannel();
  serveConversions(port1, pool);
  const far = conversionsOverPort(port2);
  links.push(far, { close: () => port1.close() });
  return far;
}

afterEach(() => {
  for (const l of links.splice(0)) l.close();
  calls.length = 0;
});

describe('the console thread’s link to the conversion pool', () => {
  it('passes each call with its owner and gives back what the pool answered', async () => {
    const far = link();
    const out = await far.render({ markdown: 'Hello', title: 'T' }, 'account-1');
    expect(out.html).toBe('<p>Hello</p>');
    expect(calls[0]).toEqual({ method: 'render', args: [{ markdown: 'Hello', title: 'T' }, 'account-1'] });
    expect(
      await far.rewriteImageSources(
        '<img src="https://x.example/a.png">',
        { 'https://x.example/a.png': '/api/media/1' },
        'a',
      ),
    ).toBe('<img src="/api/media/1">');
    expect(await far.queueFull('backed-up')).toBe(true);
    expect(await far.queueFull('idle')).toBe(false);
    expect(calls.map((c) => c.method)).toEqual(['render', 'rewriteImageSources', 'queueFull', 'queueFull']);
  });

  it('answers concurrent calls each with its own result', async () => {
    const far = link();
    const words = Array.from({ length: 50 }, (_, i) => `word ${i}`);
    const outs = await Promise.all(words.map((w) => far.render({ markdown: w, title: '' }, w)));
    expect(outs.map((o) => o.html)).toEqual(words.map((w) => `<p>${w}</p>`));
  });

  it('keeps the pool’s refusals as themselves: a 400 stays a 400, a 503 a 503', async () => {
    const far = link();
    const rejected = await far.render({ markdown: 'too complex', title: '' }).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(ContentRejectedError);
    expect((rejected as Error).message).toBe('markdown: too complex to convert within the time budget');
    const busy = await far.render({ markdown: 'busy', title: '' }).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ConversionBusyError);
    const broken = await far.render({ markdown: 'broken', title: '' }).catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(Error);
    expect(broken).not.toBeInstanceOf(ContentRejectedError);
    expect((broken as Error).message).toBe('the worker broke');
  });

  it('refuses a method the pool does not offer, and fails what is pending when the link closes', async () => {
    const { port1, port2 } = new MessageChannel();
    serveConversions(port1, pool);
    const answered = new Promise((resolve) => port2.once('message', resolve));
    port2.postMessage({ id: 7, method: 'close', args: [] });
    expect(await answered).toEqual({ id: 7, error: { name: 'Error', message: 'no conversion method close' } });
    port1.close();
    port2.close();

    const { port1: silent, port2: near } = new MessageChannel(); // nobody serves `silent`
    const far = conversionsOverPort(near);
    const pending = far.render({ markdown: 'never answered', title: '' });
    far.close();
    await expect(pending).rejects.toBeInstanceOf(ConversionBusyError);
    silent.close();
  });
});
