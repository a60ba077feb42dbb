import { createPost } from './support/api';
import { expect, saveEditor, screenshot, signIn, test, openEditor, markdownText } from './support/console';
import { tokenOf } from './support/state';

/**
 * Problems in words, in place: after a save the editor lists each image that could not be
 * copied (with why, and a one-click retry where trying again can help), explains each warning,
 * and names what the sanitizer took out of the author's text.
 */
test('after a save: failed images with reasons and a retry, and the markup the sanitizer removed', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Problems explained', markdown: 'Start.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await expect(markdownText(page)).toHaveValue('Start.');

  // A loopback port where nothing listens: the download fails now and may work later.
  const image = 'http://127.0.0.1:9/gull.png';
  // A documentation-range address: refused by the address policy, no socket opened, never retryable.
  const refused = 'http://203.0.113.9/tern.png';
  await page
    .getByLabel('Markdown')
    .fill(
      [
        `![gull](${image}) ![tern](${refused})`,
        '',
        '<div class="dp-embed" data-dp-embed><iframe src="https://evil.example/player"></iframe></div>',
        '',
        '<p onclick="steal()">Kept text</p>',
      ].join('\n'),
    );
  await saveEditor(page);

  const failed = page.locator('.warning-box').filter({ hasText: 'Images that could not be copied into storage' });
  const item = failed.getByRole('listitem').filter({ hasText: image });
  await expect(item).toContainText('The download failed');
  const refusedItem = failed.getByRole('listitem').filter({ hasText: refused });
  await expect(refusedItem).toContainText('Its address is in a private, local or otherwise refused network');
  await expect(refusedItem.getByRole('button', { name: /^Retry/ })).toHaveCount(0);
  // Each problem leads to its line.
  await refusedItem.getByRole('button', { name: 'Line 1' }).click();
  await expect(page.getByLabel('Markdown')).toBeFocused();
  const removed = page.locator('.warning-box').filter({ hasText: 'Removed from what readers see' });
  await expect(removed).toContainText(
    'An iframe from evil.example was removed: that host is not on the embed allowlist.',
  );
  await expect(removed).toContainText('The onclick attribute on <p> was removed: articles run no scripts.');
  await screenshot(page, 'save-problems');

  // One click retries: the article is saved again, which tries the failed image again.
  const retried = page.waitForRequest((r) => r.method() === 'POST' && r.url().includes(`/console/articles/${post.id}`));
  await item.getByRole('button', { name: `Retry copying ${image}` }).click();
  await retried;
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeEnabled();
  await expect(failed.getByRole('listitem').filter({ hasText: image })).toBeVisible();
  await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
});
