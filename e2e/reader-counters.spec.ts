/**
 * Reader counters as a browser produces them: the public page runs no script, so opens, reads
 * and full reads come from the images Chromium itself requests (server/reader-pages/reader-beacons.ts).
 * Counts are read back through the author API, as an integration would.
 */
import type { Browser, Page } from '@playwright/test';
import { api, createPost, publish } from './support/api';
import { startCachingProxy } from './support/caching-proxy';
import { expect, signIn, test } from './support/console';
import { e2eState, tokenOf } from './support/state';

const token = () => tokenOf('author');
const VIEWPORT = { width: 1280, height: 720 };
const UA = (name: string) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 ${name}`;

interface Counts {
  open_count: number;
  read_count: number;
  complete_count: number;
}

async function counts(id: string): Promise<Counts> {
  const res = await api<Counts>(token(), 'GET', `/posts/${id}`);
  expect(res.status).toBe(200);
  const { open_count, read_count, complete_count } = res.body;
  return { open_count, read_count, complete_count };
}

/** Counts as they are once the flush has run (at most 5 s) — the contract's 10 s bound. */
const eventually = (id: string, expected: Partial<Counts>) =>
  expect.poll(() => counts(id), { timeout: 10_000, intervals: [250] }).toMatchObject(expected);

/** Enough time for any beacon to have been flushed: a count that did not rise by then never will. */
const oneFlushLater = () => new Promise((r) => setTimeout(r, 6_500));

async function article(title: string, paragraphs: number) {
  const sentence = 'The reader goes on through a paragraph long enough to take several lines on a desktop screen. ';
  const markdown = Array.from({ length: paragraphs }, (_, i) => `Paragraph ${i + 1}. ${sentence.repeat(4)}`).join(
    '\n\n',
  );
  const post = await createPost(token(), { title, markdown });
  return publish(token(), post.id);
}

/** The beacons a page has requested, recorded from its first request on. */
type Beacons = Set<string>;

async function reader(browser: Browser, name: string) {
  const context = await browser.newContext({ userAgent: UA(name), viewport: VIEWPORT });
  const page = await context.newPage();
  const beacons: Beacons = new Set();
  page.on('request', (r) => {
    const kind = /\/(open|read|complete)\.gif/.exec(r.url())?.[1];
    if (kind) beacons.add(kind);
  });
  return { context, page, beacons };
}

/** Where the article is on the page, in document coordinates. */
async function articleBox(page: Page) {
  return page.evaluate(() => {
    const box = document.querySelector('article')!.getBoundingClientRect();
    return {
      top: box.top + window.scrollY,
      middle: box.top + window.scrollY + box.height / 2,
      end: box.bottom + window.scrollY,
      maxScroll: document.documentElement.scrollHeight - window.innerHeight,
      viewport: window.innerHeight,
    };
  });
}

/**
 * Scrolls down until the beacon of `kind` has been requested; returns the viewport's bottom edge
 * (document y) at the step that triggered it. The page jumps to `from` (a scroll position well
 * before the beacon is due) and goes on from there in steps of `step` px: a few dozen steps
 * rather than the hundreds from the top, each waiting for the browser. Not requested before the
 * jump, nor at it: the beacons recorded since the page's first request say so.
 */
async function scrollUntilBeacon(page: Page, beacons: Beacons, kind: 'read' | 'complete', from: number, step = 100) {
  const box = await articleBox(page);
  expect(beacons.has(kind), `the ${kind} beacon was requested before the page reached ${from} px`).toBe(false);
  for (let y = Math.max(0, from); y <= box.maxScroll + step; y += step) {
    const top = Math.min(y, box.maxScroll);
    await page.evaluate((t) => window.scrollTo(0, t), top);
    // A lazy image starts within a frame or two of crossing its distance; wait a few.
    await page.waitForTimeout(120);
    if (beacons.has(kind)) {
      expect(y, `the ${kind} beacon was requested at the jump to ${from} px`).toBeGreaterThan(from);
      return top + box.viewport;
    }
  }
  throw new Error(`the ${kind} beacon was never requested`);
}

/**
 * Scroll positions to jump to: 1,500 px before a read is due (the middle at the screen's bottom
 * edge) and before a full read is due (the end within Chromium's 1,250 px loading distance), so
 * that a beacon early by up to that much is still seen in the steps.
 */
const MARGIN = 1500;
const beforeRead = (box: Awaited<ReturnType<typeof articleBox>>) => box.middle - box.viewport - MARGIN;
const beforeComplete = (box: Awaited<ReturnType<typeof articleBox>>) => box.end - 1250 - box.viewport - MARGIN;

test('an open counts once per reader and day; a second reader counts again; a short article is read at once', async ({
  browser,
  page,
}) => {
  const post = await article('Short enough for one screen', 1);
  const a = await reader(browser, 'ReaderA');
  await a.page.goto(`${e2eState().baseUrl}${post.canonical_path}`);
  // Shorter than a screen: opened, read and completed by being displayed.
  await eventually(post.id, { open_count: 1, read_count: 1, complete_count: 1 });

  await a.page.reload();
  await a.page.goto(`${e2eState().baseUrl}${post.canonical_path}`);
  await oneFlushLater();
  expect(await counts(post.id)).toEqual({ open_count: 1, read_count: 1, complete_count: 1 });

  const b = await reader(browser, 'ReaderB');
  await b.page.goto(`${e2eState().baseUrl}${post.canonical_path}`);
  await eventually(post.id, { open_count: 2, read_count: 2, complete_count: 2 });
  await a.context.close();
  await b.context.close();

  // The console's editor shows them, with the read ratio and today's point in the 30-day chart.
  await signIn(page, token());
  await page.goto(`${e2eState().baseUrl}/console/articles/${post.id}`);
  const stats = page.getByRole('region', { name: 'Readers' });
  // One line above the editor, opening to the counters and the chart.
  await expect(stats).toContainText('2 opens · 2 reads · 2 full reads · read ratio 100 %');
  await stats.getByText('Readers', { exact: true }).click();
  await expect(stats.getByRole('definition').first()).toHaveText('2');
  await expect(stats).toContainText('Read ratio100 %');
  await expect(stats.getByRole('img')).toHaveAttribute('aria-label', 'Last 30 days: 2 opens, 2 reads, 2 full reads.');
});

test('a read counts when the middle of the article reaches the screen, a full read near its end (measured)', async ({
  browser,
}) => {
  const post = await article('A long article to scroll', 160);
  const { context, page, beacons } = await reader(browser, 'Scroller');
  await page.goto(`${e2eState().baseUrl}${post.canonical_path}`);
  await eventually(post.id, { open_count: 1 });
  const box = await articleBox(page);
  expect(box.end - box.top).toBeGreaterThan(10 * VIEWPORT.height);

  const readAt = await scrollUntilBeacon(page, beacons, 'read', beforeRead(box));
  await eventually(post.id, { open_count: 1, read_count: 1, complete_count: 0 });
  const completeAt = await scrollUntilBeacon(page, beacons, 'complete', beforeComplete(box));
  await eventually(post.id, { open_count: 1, read_count: 1, complete_count: 1 });

  const report = {
    viewport: VIEWPORT,
    articleHeight: Math.round(box.end - box.top),
    readFiredAtViewportBottom: Math.round(readAt),
    readRelativeToMiddle: Math.round(readAt - box.middle),
    completeFiredAtViewportBottom: Math.round(completeAt),
    completeRelativeToEnd: Math.round(completeAt - box.end),
  };
  console.log(`reader beacons in Chromium: ${JSON.stringify(report)}`);
  // Not before the middle has reached the bottom of the screen (one 100 px scroll step of slack)…
  expect(readAt).toBeGreaterThanOrEqual(box.middle - 100);
  expect(readAt).toBeLessThanOrEqual(box.middle + 200);
  // …and the full read within Chromium's loading distance (1,250 px) of the article's end.
  expect(completeAt).toBeGreaterThanOrEqual(box.end - 1250 - 100);
  await context.close();
});

test('behind a caching reverse proxy (nginx) serving the page from its cache, the counts still rise', async ({
  browser,
}) => {
  const proxy = await startCachingProxy(e2eState().baseUrl);
  try {
    const post = await article('Read through a cache', 160);
    const url = `${proxy.baseUrl}${post.canonical_path}`;
    // The first request fills the cache (an HTML-only fetch: it counts nothing).
    const warm = await fetch(url);
    expect(warm.status).toBe(200);
    expect(warm.headers.get('x-cache')).toBe('MISS');

    const a = await reader(browser, 'CachedA');
    const first = await a.page.goto(url);
    expect(first!.headers()['x-cache']).toBe('HIT');
    await eventually(post.id, { open_count: 1, read_count: 0, complete_count: 0 });

    const b = await reader(browser, 'CachedB');
    const second = await b.page.goto(url);
    expect(second!.headers()['x-cache']).toBe('HIT');
    await eventually(post.id, { open_count: 2 });
    const box = await articleBox(b.page);
    await scrollUntilBeacon(b.page, b.beacons, 'read', beforeRead(box));
    await eventually(post.id, { open_count: 2, read_count: 1, complete_count: 0 });
    await scrollUntilBeacon(b.page, b.beacons, 'complete', beforeComplete(box));
    await eventually(post.id, { open_count: 2, read_count: 1, complete_count: 1 });
    await a.context.close();
    await b.context.close();
  } finally {
    await proxy.stop();
  }
});
