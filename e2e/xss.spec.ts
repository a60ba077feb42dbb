/**
 * Browser-level XSS check: every XSS corpus payload is converted by the real pipeline
 * (in-process, no server) and the output is rendered in Chromium. Nothing may execute: no dialog,
 * no console message or page error from injected code, no navigation, no request to a
 * non-http(s) URL. A control page with unsanitized markup proves the detectors work.
 */
import { expect, test, type Page } from '@playwright/test';
import { ContentRejectedError, renderArticleSync } from '../server/content';
import { xssPayloads } from '../tests/unit/content/corpus';

const BATCH = 100;

function outputs(): { label: string; html: string }[] {
  const wrappers: [string, (p: string) => string][] = [
    ['document', (p) => p],
    ['paragraph', (p) => `Intro ${p} outro`],
    ['spoiler', (p) => `<details open><summary>s</summary>\n${p}\n</details>`],
  ];
  const out: { label: string; html: string }[] = [];
  for (const { source, label, payload } of xssPayloads()) {
    for (const [where, wrap] of wrappers) {
      try {
        out.push({
          label: `${source} ${label} (${where})`,
          html: renderArticleSync({ markdown: wrap(payload), title: 'T' }).html,
        });
      } catch (error) {
        if (!(error instanceof ContentRejectedError)) throw error;
      }
    }
  }
  return out;
}

interface Observed {
  dialogs: string[];
  console: string[];
  errors: string[];
  navigations: string[];
  badRequests: string[];
}

async function observe(page: Page): Promise<Observed> {
  const seen: Observed = { dialogs: [], console: [], errors: [], navigations: [], badRequests: [] };
  page.on('dialog', (dialog) => {
    seen.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => undefined);
  });
  page.on('console', (message) => {
    // Chromium's own report of the requests this test aborts is not injected code.
    if (!message.text().startsWith('Failed to load resource:')) seen.console.push(message.text());
  });
  page.on('pageerror', (error) => seen.errors.push(error.message));
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && frame.url() !== 'about:blank') seen.navigations.push(frame.url());
  });
  // No network: external images just fail (which is when a surviving onerror would fire).
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (!/^https?:/i.test(url)) seen.badRequests.push(url);
    void route.abort();
  });
  return seen;
}

async function renderBatch(page: Page, htmls: string[]): Promise<string[]> {
  const body = htmls.map((html, i) => `<section data-case="${i}">\n${html}\n</section>`).join('\n');
  await page.setContent(
    `<!doctype html><html><head><meta charset="utf-8"><title>xss</title></head><body>${body}</body></html>`,
    {
      waitUntil: 'load',
    },
  );
  // Give timers, media errors and animation/transition handlers a moment to fire.
  await page.waitForTimeout(250);
  // DOM-level re-check with Chromium's own parser: no handlers, no script URLs, no scripts.
  return page.evaluate(() => {
    const problems: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      if (['SCRIPT', 'OBJECT', 'EMBED', 'BASE', 'META', 'LINK', 'FORM', 'STYLE'].includes(el.tagName))
        problems.push(`<${el.tagName}>`);
      for (const attr of Array.from(el.attributes)) {
        if (/^on/i.test(attr.name)) problems.push(`${el.tagName} ${attr.name}`);
        if (/^\s*(javascript|vbscript|data):/i.test(attr.value.replace(/[\s\u0000-\u001f]/g, '')))
          problems.push(`${el.tagName} ${attr.name}=${attr.value}`);
      }
    }
    return problems;
  });
}

test('the detectors see injected script execute (control)', async ({ page }) => {
  const seen = await observe(page);
  await renderBatch(page, [
    '<img src="https://x.invalid/a.png" onerror="alert(1)">',
    '<script>console.log("ran")</script>',
  ]);
  expect(seen.dialogs.length + seen.console.length).toBeGreaterThan(0);
});

test('no XSS corpus output executes anything in Chromium', async ({ page }) => {
  test.setTimeout(600_000);
  const cases = outputs();
  expect(cases.length).toBeGreaterThan(1000);
  const seen = await observe(page);
  const domProblems: string[] = [];
  for (let start = 0; start < cases.length; start += BATCH) {
    const batch = cases.slice(start, start + BATCH);
    const problems = await renderBatch(
      page,
      batch.map((c) => c.html),
    );
    domProblems.push(...problems.map((p) => `batch ${start / BATCH}: ${p}`));
  }
  expect(seen.dialogs, 'dialogs').toEqual([]);
  expect(seen.console, 'console messages').toEqual([]);
  expect(seen.errors, 'page errors').toEqual([]);
  expect(seen.navigations, 'navigations').toEqual([]);
  expect(seen.badRequests, 'non-http(s) requests').toEqual([]);
  expect(domProblems, 'script-capable DOM').toEqual([]);
});
