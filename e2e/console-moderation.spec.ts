import { api, createPost, publish, type ApiPost } from './support/api';
import { confirm, expect, screenshot, signIn, signOut, test } from './support/console';
import { tokenOf } from './support/state';

/** Moderation: approve → published; reject (a reason required, confirmed first) → back to draft, reason kept. */
test('moderation queue: approve publishes, reject returns the article with a reason', async ({ page, request }) => {
  const author = tokenOf('moderated');
  const good = await createPost(author, { title: 'A careful essay', markdown: 'Measured words.' });
  const bad = await createPost(author, { title: 'A hasty rant', markdown: 'Too many exclamation marks!!!' });
  expect((await publish(author, good.id)).status).toBe('pending_moderation');
  expect((await publish(author, bad.id)).status).toBe('pending_moderation');
  // Pending only: nothing public yet.
  expect((await request.get(good.canonical_path)).status()).toBe(404);

  // Non-admins have no moderation section.
  await signIn(page, author);
  await expect(page.getByRole('link', { name: 'Moderation', exact: true })).toHaveCount(0);
  expect((await page.goto('/console/moderation'))!.status()).toBe(404);
  await page.goto(`/console/articles/${good.id}`);
  await expect(page.getByText('This version waits for a moderator.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Publish', exact: true })).toBeDisabled();
  await signOut(page);

  // The administrator sees both, with previews of the submitted versions.
  await signIn(page, tokenOf('admin'));
  await page.getByRole('link', { name: 'Moderation', exact: true }).click();
  const goodItem = page.locator('.queue__item', { hasText: 'A careful essay' });
  const badItem = page.locator('.queue__item', { hasText: 'A hasty rant' });
  await expect(goodItem).toBeVisible();
  await expect(badItem).toContainText('by @moderated');
  await expect(goodItem.frameLocator('iframe').getByText('Measured words.')).toBeVisible();
  await screenshot(page, 'moderation-queue');

  await confirm(page, 'Approve', goodItem);
  await expect(page.getByText('Approved: the submitted version is public now.')).toBeVisible();
  await expect(page.locator('.queue__item', { hasText: 'A careful essay' })).toHaveCount(0);

  // Reject needs a reason, then asks first, as Approve does.
  await badItem.getByRole('button', { name: 'Reject' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(
    await badItem.getByLabel('Reason for rejecting').evaluate((el: HTMLTextAreaElement) => el.validity.valid),
  ).toBe(false);
  await badItem.getByLabel('Reason for rejecting').fill('Please tone it down and cite sources.');
  await badItem.getByRole('button', { name: 'Reject' }).click();
  const ask = page.getByRole('dialog', { name: 'Reject this version?' });
  await expect(ask).toContainText('Please tone it down and cite sources.');
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await expect(ask).toBeHidden();
  expect((await api<ApiPost>(author, 'GET', `/posts/${bad.id}`)).body.status).toBe('pending_moderation');
  await badItem.getByRole('button', { name: 'Reject' }).click();
  await ask.getByRole('button', { name: 'Reject' }).click();
  await expect(page.getByText('Rejected: the article is back to draft')).toBeVisible();
  await expect(page.getByText('Nothing is waiting for moderation.')).toBeVisible();
  await screenshot(page, 'moderation-done');

  // Approved: public. Rejected: draft, not public, reason visible to its author.
  const approved = await request.get(good.canonical_path);
  expect(approved.status()).toBe(200);
  expect(await approved.text()).toContain('Measured words.');
  expect((await request.get(bad.canonical_path)).status()).toBe(404);
  const after = await api<ApiPost>(author, 'GET', `/posts/${bad.id}`);
  expect(after.body.status).toBe('draft');

  await signOut(page);
  await signIn(page, author);
  await page.goto(`/console/articles/${bad.id}`);
  await expect(
    page.getByText('A moderator rejected the last submitted version: Please tone it down and cite sources.'),
  ).toBeVisible();
});

/**
 * The moderator is told what the sanitizer removed from the submitted version, in the editor's
 * words, from the Markdown it was submitted with (kept with the submission: an edit of the
 * working version while it waits changes nothing here), at a phone's width and a laptop's.
 */
for (const [width, height] of [
  [390, 844],
  [1400, 900],
] as const) {
  test(`the moderation preview lists what the sanitizer removed from the submitted version (${width} px)`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height });
    const author = tokenOf('moderated');
    const title = `Removals to moderate ${width}`;
    const submitted = [
      'An innocent opening.',
      '',
      '<script>alert("hi")</script>',
      '',
      'More words.',
      '',
      '<iframe src="https://tracker.example/embed/1"></iframe>',
    ].join('\n');
    const risky = await createPost(author, { title, markdown: submitted });
    expect((await publish(author, risky.id)).status).toBe('pending_moderation');
    // The author edits the working version while it waits: the submission is what is moderated.
    expect((await api(author, 'PATCH', `/posts/${risky.id}`, { markdown: 'A clean rewrite.' })).status).toBe(200);
    const clean = await createPost(author, { title: `Nothing removed ${width}`, markdown: 'Plain words only.' });
    expect((await publish(author, clean.id)).status).toBe('pending_moderation');

    await signIn(page, tokenOf('admin'));
    await page.goto('/console/moderation');
    const item = page.locator('.queue__item', { hasText: title });
    const removed = item.locator('.warning-box', {
      has: page.getByRole('heading', { name: 'Removed from what readers see' }),
    });
    await expect(removed).toBeVisible();
    await expect(removed).toContainText('the sanitizer took them out of the page readers would get');
    await expect(removed.getByRole('listitem')).toHaveText([
      'Line 3: 1 <script> element(s) removed: articles carry no scripts or styles of their own.',
      'Line 7: An iframe from tracker.example was removed: that host is not on the embed allowlist.',
    ]);
    // The preview beside it is the submitted version, without them.
    const preview = item.frameLocator('iframe');
    await expect(preview.getByText('An innocent opening.')).toBeVisible();
    await expect(preview.locator('script, iframe')).toHaveCount(0);
    await expect(preview.getByText('A clean rewrite.')).toHaveCount(0);
    await removed.scrollIntoViewIfNeeded();
    await screenshot(page, `moderation-removed-${width}`);

    const plain = page.locator('.queue__item', { hasText: `Nothing removed ${width}` });
    await expect(plain.getByText('The sanitizer removed nothing from the submitted Markdown.')).toBeVisible();
    await expect(plain.getByRole('heading', { name: 'Removed from what readers see' })).toHaveCount(0);

    // Leave the queue empty for the other specs: reject both.
    for (const done of [item, plain]) {
      await done.getByLabel('Reason for rejecting').fill('Checked by the removal spec.');
      await done.getByRole('button', { name: 'Reject' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
      await expect(page.getByText('Rejected: the article is back to draft')).toBeVisible();
    }
    await expect(page.getByText('Nothing is waiting for moderation.')).toBeVisible();
  });
}
