import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FrameLocator, Page } from '@playwright/test';
import { api, createPost, publish } from './support/api';
import { expect, signIn, test, openEditor } from './support/console';
import { tokenOf } from './support/state';

/**
 * "What changes on publish": the article list marks articles whose working version differs
 * from what readers see; the article page shows both versions side by side and the working
 * version with additions and removals marked, in the readers' own stylesheet, at a phone, a
 * tablet and a desktop width.
 */

const SHOTS = path.resolve('test-results', 'screenshots');

/** The highlighted-changes frame with its caption, as the maintainer sees it at that width. */
async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const figure = page.locator('figure').filter({ has: page.locator('iframe[title="Changes on publish"]') });
  await figure.scrollIntoViewIfNeeded();
  await figure.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** The first inline stylesheet of an HTML document. */
function firstStyle(html: string): string {
  return /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
}

test('the list marks unpublished changes and the article shows what publishing changes, as readers get it', async ({
  page,
  request,
}) => {
  const token = tokenOf('author');
  const post = await createPost(token, {
    title: 'Tide tables',
    subtitle: 'Read before sailing',
    tags: ['sea'],
    markdown:
      'High water at six.\n\nLow water at noon.\n\n<details><summary>Old spoiler</summary>The gull wins.</details>',
  });
  await publish(token, post.id);
  const untouched = await createPost(token, { title: 'Tide tables, unchanged', markdown: 'Nothing new.' });
  await publish(token, untouched.id);
  const patched = await api<{ has_unpublished_changes: boolean }>(token, 'PATCH', `/posts/${post.id}`, {
    title: 'Tide tables for spring',
    tags: ['sea', 'spring'],
    markdown:
      'High water at six.\n\nLow water at half past twelve.\n\n<details><summary>New spoiler</summary>The tern wins.</details>',
  });
  expect(patched.body.has_unpublished_changes).toBe(true);

  await page.setViewportSize({ width: 1400, height: 1000 }); // room for the desktop width
  await signIn(page, token);
  const changedRow = page.getByRole('listitem').filter({ hasText: 'Tide tables for spring' });
  await expect(changedRow.getByText('Unpublished changes')).toBeVisible();
  const untouchedRow = page.getByRole('listitem').filter({ hasText: 'Tide tables, unchanged' });
  await expect(untouchedRow.getByText('Published', { exact: true })).toBeVisible();
  await expect(untouchedRow.getByText('Unpublished changes')).toHaveCount(0);

  await changedRow.getByRole('link', { name: 'Tide tables for spring' }).click();
  const section = page.getByRole('region', { name: 'What changes on publish' });
  await expect(section).toBeVisible();

  // Fields around the body, as text: before and after.
  const fields = section.getByRole('table', { name: 'Fields that change on publish' });
  await expect(fields.getByRole('row', { name: /Title/ })).toContainText('Tide tables');
  await expect(fields.getByRole('row', { name: /Title/ }).locator('ins')).toHaveText('Tide tables for spring');
  await expect(fields.getByRole('row', { name: /Tags/ }).locator('del')).toHaveText('sea');
  await expect(fields.getByRole('row', { name: /Tags/ }).locator('ins')).toHaveText('sea, spring');
  await expect(fields.getByRole('row', { name: /Subtitle/ })).toHaveCount(0);

  // Side by side: what readers see now and the saved working version.
  const pair = page.frameLocator('iframe[title="Published and working versions, side by side"]');
  const published = pair.getByRole('region', { name: 'Published version', exact: true });
  const working = pair.getByRole('region', { name: 'Working version', exact: true });
  await expect(published.getByText('Low water at noon.')).toBeVisible();
  await expect(working.getByText('Low water at half past twelve.')).toBeVisible();
  await expect(published.getByText('Low water at half past twelve.')).toHaveCount(0);

  // The highlighted diff: text and islands, removed and added; unchanged blocks unmarked.
  const diff = page.frameLocator('iframe[title="Changes on publish"]');
  await expect(diff.locator('del.dp-diff')).toHaveCount(2); // the spoiler and the tag list
  // Text edited in place: one block, the changed words marked.
  const lowWater = diff.locator('.dp-diff--changed p', { hasText: 'Low water at' });
  // The full stop is not part of the change (words and punctuation are marked apart).
  await expect(lowWater.locator('del.dp-diff-word')).toHaveText('noon');
  await expect(lowWater.locator('ins.dp-diff-word')).toHaveText('half past twelve');
  await expect(diff.locator('.dp-diff--changed h1')).toHaveText('Tide tables for spring');
  await expect(diff.locator('.dp-diff--changed h1 ins.dp-diff-word')).toHaveText('for spring');
  // Islands as wholes.
  await expect(diff.locator('del.dp-diff details summary')).toHaveText('Old spoiler');
  await expect(diff.locator('ins.dp-diff details summary')).toHaveText('New spoiler');
  await expect(diff.locator('ins.dp-diff', { hasText: 'spring' }).locator('.dp-article__tags')).toBeVisible();
  await expect(diff.locator('.dp-article__body > p', { hasText: 'High water at six.' })).toBeVisible();

  // Exactly the readers' stylesheet: the public page's <style> is the preview frames' first one.
  const publicHtml = await (await request.get(post.canonical_path)).text();
  const readerCss = firstStyle(publicHtml);
  expect(readerCss.length).toBeGreaterThan(500);
  for (const src of [
    `/console/preview/${post.id}?version=published`,
    `/console/preview/${post.id}/side-by-side?left=published&right=working`,
    `/console/preview/${post.id}/changes`,
  ]) {
    const framed = await page.request.get(src);
    expect(framed.status(), src).toBe(200);
    expect(firstStyle(await framed.text()), src).toBe(readerCss);
  }

  // Reader widths: each toggle gives every frame that viewport width (each column of the
  // side-by-side frame that width, with the gap between them).
  const widths = [
    ['Phone (375 px)', 375, 'publish-diff-phone'],
    ['Tablet (768 px)', 768, 'publish-diff-tablet'],
    ['Desktop (1280 px)', 1280, 'publish-diff-desktop'],
  ] as const;
  for (const [label, px, name] of widths) {
    await section.getByRole('radio', { name: label }).check();
    await expect
      .poll(() => page.locator('iframe[title="Changes on publish"]').evaluate((el) => el.clientWidth))
      .toBe(px);
    await expect
      .poll(() =>
        page.locator('iframe[title="Published and working versions, side by side"]').evaluate((el) => el.clientWidth),
      )
      .toBe(2 * px + 24);
    for (const column of [published, working])
      await expect.poll(() => column.evaluate((el) => el.getBoundingClientRect().width)).toBe(px);
    // The article column inside the frame follows the width, as on a reader's screen.
    // (A sandboxed frame lays out in its own process, and only once it is on screen.)
    await page.locator('iframe[title="Changes on publish"]').scrollIntoViewIfNeeded();
    await expect
      .poll(() => diff.locator('article.dp-article').evaluate((el) => el.getBoundingClientRect().width))
      .toBeLessThanOrEqual(Math.min(px - 2 * 20, 42 * 18));
    await shot(page, name);
  }
});

test('the editor preview toggles reader widths', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Narrow screens', markdown: 'A line of text.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const frame = page.locator('iframe[title="Article preview"]');
  await expect(page.frameLocator('iframe[title="Article preview"]').getByText('A line of text.')).toBeVisible();
  const preview = page.getByRole('region', { name: 'Preview' });
  await preview.getByRole('radio', { name: 'Phone (375 px)' }).check();
  await expect.poll(async () => frame.evaluate((el) => el.clientWidth)).toBe(375);
  await preview.getByRole('radio', { name: 'Tablet (768 px)' }).check();
  await expect.poll(async () => frame.evaluate((el) => el.clientWidth)).toBe(768);
  // Keyboard: arrow keys move between the width choices.
  await page.keyboard.press('ArrowRight');
  await expect(preview.getByRole('radio', { name: 'Desktop (1280 px)' })).toBeChecked();
  await expect.poll(async () => frame.evaluate((el) => el.clientWidth)).toBe(1280);
});

test('a revoked token ends the session on the next request, the publish diff and a save included', async ({
  page,
  browser,
}) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Revocation check', markdown: 'Published text.' });
  await publish(token, post.id);
  expect((await api(token, 'PATCH', `/posts/${post.id}`, { markdown: 'Working text.' })).status).toBe(200);

  // A second token, signed in from another browser.
  await signIn(page, token);
  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByLabel('New token name').fill('diff-check');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = await page.getByLabel('New secret (shown once)').inputValue();
  const other = await browser.newContext({ baseURL: page.url() });
  const tab = await other.newPage();
  await signIn(tab, secret);
  await openEditor(tab, post.id);
  await expect(tab.frameLocator('iframe[title="Changes on publish"]').locator('ins.dp-diff-word')).toHaveText(
    'Working',
  );
  // The token never reaches the browser: not in the page, not in its storage.
  expect(await tab.content()).not.toContain(secret);
  expect(JSON.stringify(await tab.evaluate(() => ({ ...sessionStorage, ...localStorage })))).not.toContain(secret);

  await page.reload();
  await page.locator('tr', { hasText: 'diff-check' }).getByRole('button', { name: 'Revoke', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(page.locator('tr', { hasText: 'diff-check' })).toContainText('Revoked');

  const diff = await tab.request.get(`/console/preview/${post.id}/changes`);
  expect(diff.status()).toBe(401);
  expect(await diff.text()).toContain('Your console session has ended.');
  await tab.getByLabel('Markdown').fill('Typed after the revocation.');
  await tab.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(tab.getByLabel('API token', { exact: true })).toBeVisible();
  expect((await api<{ html: string }>(token, 'GET', `/posts/${post.id}`)).body.html).not.toContain(
    'after the revocation',
  );
  await other.close();
});

/**
 * The two versions shown side by side scroll together: one sandboxed document holds both
 * columns (a preview frame runs no script, and its opaque origin hides its scroll position from
 * the console), so wheel and keys move both to the same place, from either column.
 */
const LONG = Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1} of the tide notes.`).join('\n\n');

/** The top of each column's article, in the frame's viewport. */
async function tops(pair: FrameLocator, names: [string, string]): Promise<[number, number]> {
  const [a, b] = await Promise.all(
    names.map((name) =>
      pair
        .getByRole('region', { name, exact: true })
        .locator('article')
        .evaluate((el) => el.getBoundingClientRect().top),
    ),
  );
  return [a!, b!];
}

/** Scrolls with the wheel over one column and checks the other column followed to the same place. */
async function wheelOver(page: Page, title: string, names: [string, string], column: 0 | 1, dy: number) {
  const frame = page.locator(`iframe[title="${title}"]`);
  const pair = page.frameLocator(`iframe[title="${title}"]`);
  const before = await tops(pair, names);
  const box = (await frame.boundingBox())!;
  await page.mouse.move(box.x + box.width * (column === 0 ? 0.25 : 0.75), box.y + box.height / 2);
  await page.mouse.wheel(0, dy);
  // The column under the pointer moved…
  await expect.poll(async () => Math.sign((await tops(pair, names))[column] - before[column])).toBe(-Math.sign(dy));
  // …and the other one is at the same place.
  const [a, b] = await tops(pair, names);
  expect(Math.abs(a - b), `${names[0]} ${a}, ${names[1]} ${b}`).toBeLessThanOrEqual(1);
}

for (const [width, height] of [
  [390, 844],
  [1400, 900],
] as const) {
  test(`the published and working versions scroll together, by wheel and by keyboard (${width} px)`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height });
    const token = tokenOf('author');
    const post = await createPost(token, { title: `Scrolled together ${width}`, markdown: LONG });
    await publish(token, post.id);
    const edited = `A new opening paragraph.\n\n${LONG.replace('Paragraph 20 of', 'Paragraph twenty of')}`;
    expect((await api(token, 'PATCH', `/posts/${post.id}`, { markdown: edited })).status).toBe(200);
    await signIn(page, token);
    await openEditor(page, post.id);

    const title = 'Published and working versions, side by side';
    const names: [string, string] = ['Published version', 'Working version'];
    const frame = page.locator(`iframe[title="${title}"]`);
    const pair = page.frameLocator(`iframe[title="${title}"]`);
    await frame.scrollIntoViewIfNeeded();
    await expect(
      pair.getByRole('region', { name: 'Working version', exact: true }).getByText('A new opening'),
    ).toBeVisible();
    const [start] = await tops(pair, names);

    // The mouse wheel over the published column, then over the working one, down and up.
    await wheelOver(page, title, names, 0, 900);
    await wheelOver(page, title, names, 1, 900);
    await wheelOver(page, title, names, 1, -300);
    await wheelOver(page, title, names, 0, -300);

    // The keyboard: Tab reaches the frame after the width choice, End and Home move both columns.
    await page
      .getByRole('region', { name: 'What changes on publish' })
      .getByRole('radio', { name: 'Fit the panel' })
      .focus();
    await page.keyboard.press('Tab');
    const scroller = pair.getByRole('region', { name: 'Published version and Working version, side by side' });
    await expect(scroller).toBeFocused();
    await page.keyboard.press('End');
    await expect
      .poll(() => scroller.evaluate((el) => Math.round(el.scrollHeight - el.clientHeight - el.scrollTop)))
      .toBe(0);
    let [a, b] = await tops(pair, names);
    expect(a).toBeLessThan(start - 500);
    expect(Math.abs(a - b)).toBeLessThanOrEqual(1);
    await expect(
      pair.getByRole('region', { name: 'Published version', exact: true }).getByText('Paragraph 40 of'),
    ).toBeInViewport();
    await expect(
      pair.getByRole('region', { name: 'Working version', exact: true }).getByText('Paragraph 40 of'),
    ).toBeInViewport();
    await page.keyboard.press('Home');
    await expect.poll(async () => (await tops(pair, names))[0]).toBe(start);
    [a, b] = await tops(pair, names);
    expect(b).toBe(a);
  });
}

test('the two saves compared in the history scroll together too', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'History scrolled together', markdown: LONG });
  expect((await api(token, 'PATCH', `/posts/${post.id}`, { markdown: `Opening.\n\n${LONG}` })).status).toBe(200);
  await signIn(page, token);
  await openEditor(page, post.id);
  const history = page.getByRole('region', { name: 'History' });
  await history.getByRole('button', { name: 'Show changes' }).click();
  const title = 'The two saves, side by side';
  const pair = page.frameLocator(`iframe[title="${title}"]`);
  const columns = pair.locator('section.dp-pair__side');
  await expect(columns).toHaveCount(2);
  const names = (await columns.evaluateAll((els) => els.map((el) => el.getAttribute('aria-label')!))) as [
    string,
    string,
  ];
  expect(names[0]).toMatch(/^Compared: saved \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  expect(names[1]).toMatch(/^With: saved \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  await expect(pair.getByRole('region', { name: names[1], exact: true }).getByText('Opening.')).toBeVisible();
  await expect(pair.getByRole('region', { name: names[0], exact: true }).getByText('Opening.')).toHaveCount(0);
  await page.locator(`iframe[title="${title}"]`).scrollIntoViewIfNeeded();
  await wheelOver(page, title, names, 1, 900);
  await wheelOver(page, title, names, 0, -400);
});

test('the side-by-side frame shows only the signed-in author their versions, under the preview frames’ sandbox', async ({
  page,
  browser,
}) => {
  const token = tokenOf('author');
  const own = await createPost(token, { title: 'Own pair', markdown: 'Published words.' });
  await publish(token, own.id);
  expect((await api(token, 'PATCH', `/posts/${own.id}`, { markdown: 'Working words.' })).status).toBe(200);
  const other = tokenOf('pager');
  const theirs = await createPost(other, { title: 'Their pair', markdown: 'Not yours.' });
  await publish(other, theirs.id);
  await signIn(page, token);

  const pair = (id: string, left: string, right: string) =>
    page.request.get(`/console/preview/${id}/side-by-side?${new URLSearchParams({ left, right })}`);
  const shown = await pair(own.id, 'published', 'working');
  expect(shown.status()).toBe(200);
  const single = await page.request.get(`/console/preview/${own.id}?version=published`);
  // The same sandboxing header as every preview frame: no scripts, an opaque origin.
  expect(shown.headers()['content-security-policy']).toBe(single.headers()['content-security-policy']);
  expect(shown.headers()['content-security-policy']).toMatch(/^sandbox;/);
  const html = await shown.text();
  expect(html).toContain('Published words.');
  expect(html).toContain('Working words.');
  expect(html).not.toMatch(/<script/i);

  for (const [id, left, right] of [
    [theirs.id, 'published', 'working'], // another author's article
    [own.id, '999999', 'current'], // a revision it does not have
    [own.id, 'published', 'nonsense'],
  ] as const) {
    const refused = await pair(id, left, right);
    expect(refused.status(), `${left} ${right}`).toBe(404);
    expect(await refused.text()).toContain('One of these versions does not exist or is no longer kept.');
    expect(await refused.text()).not.toContain('Not yours.');
  }
  const stranger = await browser.newContext({ baseURL: page.url() });
  const anonymous = await stranger.request.get(`/console/preview/${own.id}/side-by-side?left=published&right=working`);
  expect(anonymous.status()).toBe(401);
  expect(await anonymous.text()).not.toContain('Working words.');
  await stranger.close();
});
