import type { Page, Response } from '@playwright/test';
import { confirm, editorReady, expect, openNewArticle, saveEditor, screenshot, signIn, test } from './support/console';
import { tokenOf } from './support/state';

/**
 * After sign-in the API token never reaches the browser — not in HTML, RSC payloads,
 * JS chunks, headers, cookies, storage or URLs. This walks a whole console session, records
 * every response the browser receives (bodies and headers), every URL it requests, its
 * cookies and storage, and every page's final DOM, and looks for the token in all of them.
 */
test('the API token appears in no response, header, cookie, URL or storage of a whole console session', async ({
  page,
  context,
}) => {
  const token = tokenOf('leaky');
  const needles = [
    token,
    token.slice('dp_live_'.length),
    Buffer.from(token).toString('base64'),
    Buffer.from(token).toString('base64url'),
  ];

  const recorded: { url: string; what: string; text: string }[] = [];
  const pending: Promise<void>[] = [];
  // Chromium may never send the extra header information of a response whose frame went away
  // (a preview frame navigated again, a page left), and Playwright's allHeaders() then waits for
  // it forever (seen in CI: the test timed out in Promise.all below). Past a bound, the headers
  // Chromium did report are recorded instead; Set-Cookie is covered by the cookie jar.
  const within = <T>(work: Promise<T>, fallback: () => T, ms = 5_000): Promise<T> =>
    Promise.race([work, new Promise<T>((resolve) => setTimeout(() => resolve(fallback()), ms))]);
  let unanswered = 0;
  const record = (response: Response) => {
    pending.push(
      (async () => {
        const url = response.url();
        recorded.push({ url, what: 'url', text: url });
        const headers = await within(response.allHeaders(), () => {
          unanswered++;
          return response.headers();
        });
        recorded.push({ url, what: 'headers', text: JSON.stringify(headers) });
        try {
          const body = await within(response.body(), () => null);
          if (body) recorded.push({ url, what: 'body', text: body.toString('latin1') });
        } catch {
          // Redirects and aborted navigations have no body to read.
        }
      })(),
    );
  };
  context.on('response', record);
  context.on('request', (request) => recorded.push({ url: request.url(), what: 'request url', text: request.url() }));

  const doms: { url: string; html: string }[] = [];
  // A frame being navigated or torn down may never answer content(); its DOM is then left out
  // (counted, and the count printed), the page's own DOM never.
  let framesUnread = 0;
  const snapshotDom = async (p: Page) => {
    doms.push({ url: p.url(), html: await p.content() });
    for (const frame of p.frames().slice(1)) {
      const html = await within(
        frame.content().catch(() => null),
        () => null,
      );
      if (html === null) framesUnread++;
      else doms.push({ url: frame.url(), html });
    }
  };

  // The whole session: sign in, list, create, open, live preview, save, publish, versions,
  // public page, account (limits, a token created), moderation-free nav, sign out. Each part is
  // a step, so a run that times out names the part it was in.
  await test.step('sign in', async () => {
    await signIn(page, token);
    await snapshotDom(page);
  });
  await test.step('create, preview, save and publish', async () => {
    await openNewArticle(page);
    await page.getByLabel('Title').fill('Leak check');
    await page.getByLabel('Markdown').fill('First body.');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await expect(page.getByText('Draft created.')).toBeVisible();
    // The redirect after "Create draft" may still be settling (a second render of the page, the
    // editor taking the text box's place); type once it has, as a person would.
    await editorReady(page);
    await page.getByLabel('Markdown').fill('First body, edited live.');
    await expect(
      page.frameLocator('iframe[title="Article preview"]').getByText('First body, edited live.'),
    ).toBeVisible();
    await snapshotDom(page);
    await saveEditor(page);
    await confirm(page, 'Publish');
    await expect(page.getByText('Published: readers now see this version.')).toBeVisible();
    await page.getByLabel('Markdown').fill('Second body.');
    await saveEditor(page);
  });
  await test.step('the publish diff and the public page', async () => {
    await page.reload();
    await expect(
      page
        .frameLocator('iframe[title="Published and working versions, side by side"]')
        .getByRole('region', { name: 'Published version', exact: true })
        .getByText('First body, edited live.'),
    ).toBeVisible();
    await snapshotDom(page);
    const publicPath = await page.getByRole('link', { name: /^\/leak-check-/ }).getAttribute('href');
    await page.goto(publicPath!);
    await expect(page.getByText('First body, edited live.')).toBeVisible();
    await snapshotDom(page);
  });
  await test.step('account, media and the list', async () => {
    await page.goto('/console?status=published');
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByLabel('New token name').fill('second');
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByLabel('New secret (shown once)')).toHaveValue(/^dp_live_/);
    await snapshotDom(page);
    await page.getByRole('link', { name: 'Media' }).click();
    await snapshotDom(page);
    await page.goto('/console');
    await snapshotDom(page);
  });

  const state = await context.storageState({ indexedDB: true });
  const storage = await page.evaluate(() =>
    JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }),
  );
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('API token', { exact: true })).toBeVisible();
  await screenshot(page, 'signed-out');
  await test.step('every response read', () => Promise.all(pending));

  expect(recorded.filter((r) => r.what === 'body').length).toBeGreaterThan(20);
  // How many responses only had the headers Chromium reported (CI has seen from 0 to 63 of them
  // in one session): each was still searched, and Set-Cookie is covered by the cookie jar.
  console.log(
    `token leak: ${recorded.length} records, ${unanswered} responses with reported headers only, ` +
      `${framesUnread} frame DOMs unread of ${doms.length + framesUnread}`,
  );
  const haystacks = [
    ...recorded.map((r) => ({ where: `${r.what} of ${r.url}`, text: r.text })),
    ...doms.map((d) => ({ where: `DOM of ${d.url}`, text: d.html })),
    { where: 'cookies and storage state', text: JSON.stringify(state) },
    { where: 'localStorage/sessionStorage', text: storage },
  ];
  const leaks = haystacks.flatMap((h) => needles.filter((n) => h.text.includes(n)).map(() => h.where));
  expect(leaks).toEqual([]);
});
