import type { Locator, Page } from '@playwright/test';
import { api, createPost, publish } from './support/api';
import { expect, screenshot, signIn, signOut, test, openEditor } from './support/console';
import { tokenOf } from './support/state';

/**
 * Every reader width fills its frame, measured on the rendered boxes at a phone's width and a
 * laptop's: the frame's page covers the whole box drawn around it, the page's viewport has the
 * box's proportions (a frame that kept its unscaled height showed its page in the top half of
 * the box), the element around the box ends where the box ends (no room left empty under it),
 * and the page has the reader's width. In the editor's preview, the publish diff (the versions
 * side by side and the marked changes), the history comparison and the moderation preview.
 */

const BODY = Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1} of an article long enough to scroll.`).join(
  '\n\n',
);

interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

async function rect(el: Locator): Promise<Rect> {
  return el.evaluate((node) => {
    const r = node.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
}

/** Checks one frame at the chosen reader width (`readers`: 2 for a side-by-side frame). */
async function expectFills(page: Page, title: string, px: number, readers: 1 | 2 = 1): Promise<void> {
  const frame = page.locator(`iframe[title="${title}"]`);
  const box = frame.locator('xpath=..');
  await frame.scrollIntoViewIfNeeded();
  const inner = page.frameLocator(`iframe[title="${title}"]`);
  const span = readers * px + (readers - 1) * 24;
  // The page has the reader's width (two of them, and the gap, side by side).
  await expect.poll(() => inner.locator('html').evaluate(() => window.innerWidth), { message: title }).toBe(span);
  if (readers === 2)
    for (const column of await inner.locator('.dp-pair__side').all())
      expect(await column.evaluate((el) => el.getBoundingClientRect().width)).toBeCloseTo(px, 0);

  const shown = await rect(frame);
  const drawn = await rect(box);
  // The page covers the box inside its 1 px border, on every side.
  expect(Math.abs(shown.left - (drawn.left + 1)), `${title}: left`).toBeLessThanOrEqual(1);
  expect(Math.abs(shown.right - (drawn.right - 1)), `${title}: right`).toBeLessThanOrEqual(1);
  expect(Math.abs(shown.top - (drawn.top + 1)), `${title}: top`).toBeLessThanOrEqual(1);
  expect(Math.abs(shown.bottom - (drawn.bottom - 1)), `${title}: bottom`).toBeLessThanOrEqual(1);
  // The page's viewport has the shown box's proportions: scaled, it reaches the box's bottom.
  const [w, h] = await inner.locator('html').evaluate(() => [window.innerWidth, window.innerHeight]);
  const scale = (shown.right - shown.left) / w!;
  expect(Math.abs(h! * scale - (shown.bottom - shown.top)), `${title}: viewport height × scale`).toBeLessThanOrEqual(2);
  // The article's own text is there to the frame's lower half (it is long enough).
  await expect(inner.locator('p', { hasText: 'Paragraph 1 of' }).first()).toBeVisible();
  // The box fits in the room it has (the panel or figure its group sits in), and the layout
  // goes on right under it: what follows starts there, or what holds it ends there.
  const after = await box.evaluate((el) => {
    const group = el.parentElement!;
    const room = group.parentElement!.getBoundingClientRect();
    const next = group.nextElementSibling?.getBoundingClientRect();
    return { roomRight: room.right, nextTop: next ? next.top : room.bottom, last: !next };
  });
  expect(drawn.right, `${title}: within its room`).toBeLessThanOrEqual(after.roomRight + 1);
  const gap = after.nextTop - drawn.bottom;
  expect(gap, `${title}: nothing empty under the frame`).toBeGreaterThanOrEqual(-1);
  expect(gap, `${title}: nothing empty under the frame`).toBeLessThanOrEqual(after.last ? 1 : 17);
}

async function chooseDesktop(group: Locator): Promise<void> {
  await group.getByRole('radio', { name: 'Desktop (1280 px)' }).check();
}

for (const [width, height] of [
  [390, 844],
  [1400, 900],
] as const) {
  test(`the Desktop width fills its frame in every preview (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const token = tokenOf('author');
    const post = await createPost(token, { title: `Fills its frame ${width}`, markdown: BODY });
    await publish(token, post.id);
    expect((await api(token, 'PATCH', `/posts/${post.id}`, { markdown: `A new opening.\n\n${BODY}` })).status).toBe(
      200,
    );
    await signIn(page, token);
    await openEditor(page, post.id);

    // The editor's preview (on a phone, behind the Preview switch).
    if (width < 600) await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await chooseDesktop(preview);
    await expect(preview.getByText(/shown at \d+ %/)).toBeVisible();
    await expectFills(page, 'Article preview', 1280);

    // What changes on publish: the two versions side by side, and the marked changes.
    const changes = page.getByRole('region', { name: 'What changes on publish' });
    await chooseDesktop(changes);
    await expectFills(page, 'Published and working versions, side by side', 1280, 2);
    await expectFills(page, 'Changes on publish', 1280);

    // The history's comparison of two saves: the same two frames.
    const history = page.getByRole('region', { name: 'History' });
    await history.getByRole('button', { name: 'Show changes' }).click();
    await chooseDesktop(history);
    await expectFills(page, 'The two saves, side by side', 1280, 2);
    await expectFills(page, 'Changes between the two saves', 1280);
    await screenshot(page, `reader-widths-fill-${width}`);

    // The moderation preview.
    await signOut(page);
    const moderated = tokenOf('moderated');
    const waiting = await createPost(moderated, { title: `Waiting to fill ${width}`, markdown: BODY });
    expect((await publish(moderated, waiting.id)).status).toBe('pending_moderation');
    await signIn(page, tokenOf('admin'));
    await page.goto('/console/moderation');
    const item = page.locator('.queue__item', { hasText: `Waiting to fill ${width}` });
    await chooseDesktop(item);
    await expectFills(page, `Submitted version of Waiting to fill ${width}`, 1280);
    await screenshot(page, `reader-widths-moderation-${width}`);
    // Leave the queue as it was.
    await item.getByLabel('Reason for rejecting').fill('Measured, thank you.');
    await item.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
    await expect(page.getByText('Rejected: the article is back to draft')).toBeVisible();
  });
}
