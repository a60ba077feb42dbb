import { randomUUID } from 'node:crypto';
import { api, createPost, publish } from './support/api';
import {
  expect,
  saveEditor,
  screenshot,
  signIn,
  test,
  openEditor,
  reloadEditor,
  markdownText,
} from './support/console';
import { tokenOf } from './support/state';

/**
 * The console as a daily tool, each at a phone's width and a desktop's: the tokens page fits a
 * phone, destructive dialogs open on Cancel, the saved preview keeps its place across a save and
 * a reload (and the reader width across a reload), a non-admin's moderation 404 is a console page
 * with a reason, the conflict view lists only real differences, and the list finds and sorts.
 */

const WIDTHS = [390, 1440];
const LONG = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} of a long article.`).join('\n\n');

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test.beforeEach(async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
    });

    test('the tokens page has no horizontal overflow, with a new secret shown', async ({ page }) => {
      await signIn(page, tokenOf('author'));
      await page.goto('/console/account');
      const name = `phone-${width}-${randomUUID().slice(0, 6)}`;
      await page.getByLabel('New token name').fill(name);
      await page.getByRole('button', { name: 'Create token' }).click();
      await expect(page.getByLabel('New secret (shown once)')).toBeVisible();
      const row = page.locator('tr', { hasText: name });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      // Every column is on screen: the last used time, the status, Reissue and Revoke side by side.
      const cells = [row.getByText('never'), row.getByText('Active'), row.getByRole('button', { name: 'Reissue' })];
      for (const cell of [...cells, row.getByRole('button', { name: 'Revoke', exact: true })]) {
        const box = (await cell.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
      }
      const reissue = (await row.getByRole('button', { name: 'Reissue' }).boundingBox())!;
      const revoke = (await row.getByRole('button', { name: 'Revoke', exact: true }).boundingBox())!;
      expect(Math.abs(reissue.y - revoke.y)).toBeLessThan(4);
      // Reissued, its new secret goes under both buttons, not between them.
      await row.getByRole('button', { name: 'Reissue' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Reissue' }).click();
      await expect(row.getByLabel('New secret (shown once)')).toBeVisible();
      const after = await Promise.all(
        ['Reissue', 'Revoke'].map(
          async (name) => (await row.getByRole('button', { name, exact: true }).boundingBox())!,
        ),
      );
      expect(Math.abs(after[0]!.y - after[1]!.y)).toBeLessThan(4);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
      await screenshot(page, `account-tokens-${width}`);
      // Leave the account as it was: revoke the token made here.
      await row.getByRole('button', { name: 'Revoke', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
      await expect(row).toContainText('Revoked');
    });

    test('destructive dialogs open with the focus on Cancel', async ({ page }) => {
      const token = tokenOf('author');
      const post = await publish(token, (await createPost(token, { title: 'Dialogs', markdown: 'Text.' })).id);
      await signIn(page, token);
      await openEditor(page, post.id);
      for (const action of ['Unpublish', 'Delete']) {
        await page.getByRole('button', { name: action, exact: true }).click();
        const dialog = page.getByRole('dialog');
        await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
        await page.keyboard.press('Enter'); // Enter on Cancel closes; nothing is confirmed
        await expect(dialog).toBeHidden();
      }
      expect((await api<{ status: string }>(token, 'GET', `/posts/${post.id}`)).body.status).toBe('published');
      await page.goto('/console/account');
      const row = page.locator('tr', { hasText: 'this session' });
      for (const action of ['Reissue', 'Revoke']) {
        await row.getByRole('button', { name: action, exact: true }).click();
        await expect(page.getByRole('dialog').getByRole('button', { name: 'Cancel' })).toBeFocused();
        await page.keyboard.press('Escape');
      }
      await expect(page.getByText('this session')).toBeVisible();
    });

    test('the saved preview keeps its place after Save and reload, and the reader width after reload', async ({
      page,
    }) => {
      const token = tokenOf('author');
      const post = await createPost(token, { title: `Long read ${width}`, markdown: LONG });
      await signIn(page, token);
      await openEditor(page, post.id);
      const markdown = page.getByLabel('Markdown');
      await expect(markdownText(page)).toHaveValue(LONG);
      // The cursor at the end of paragraph 30 (line 59), in the middle of the article.
      await markdown.click();
      await page.keyboard.press('Control+Home');
      for (let line = 1; line < 59; line++) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('End');
      await page.keyboard.type(' Saved in the middle.');
      await saveEditor(page);
      if (width < 960) await page.getByRole('button', { name: 'Preview', exact: true }).click();
      await expect(page.getByText('Preview of the saved working version')).toBeVisible();
      // Clicking Save scrolled the page to the button, at the foot of the form; the frame's top is
      // brought on screen (the page scrolls, never the frame's document: its place is what is
      // checked). Again at each try: the page's layout may still move while the preview loads.
      const preview = page.frameLocator('iframe[title="Article preview"]');
      const edited = preview.getByText('Paragraph 30 of a long article. Saved in the middle.');
      const firstParagraph = preview.getByText('Paragraph 1 of a long article.', { exact: true });
      const atItsPlace = () =>
        expect(async () => {
          await page.locator('iframe[title="Article preview"]').evaluate((el) => el.scrollIntoView({ block: 'start' }));
          await expect(edited).toBeInViewport({ timeout: 1000 });
          await expect(firstParagraph).not.toBeInViewport({ timeout: 1000 });
        }).toPass({ timeout: 10_000 });
      await atItsPlace();

      const section = page.getByRole('region', { name: 'Preview' });
      await section.getByLabel('Tablet (768 px)').check();
      await reloadEditor(page);
      if (width < 960) await page.getByRole('button', { name: 'Preview', exact: true }).click();
      await expect(section.getByLabel('Tablet (768 px)')).toBeChecked();
      await atItsPlace();
      await section.getByLabel('Fit the panel').check(); // the preference is this browser's: put it back
    });

    test("a non-admin's moderation page is a 404 inside the console, with the reason", async ({ page }) => {
      await signIn(page, tokenOf('author'));
      const response = await page.goto('/console/moderation');
      expect(response!.status()).toBe(404);
      await expect(page.getByRole('navigation', { name: 'Console sections' })).toBeVisible();
      await expect(page.getByRole('heading', { name: 'No moderation here' })).toBeVisible();
      await expect(page.getByText('Moderation is only for administrator accounts')).toBeVisible();
      await screenshot(page, `moderation-404-${width}`);
    });

    test('the conflict view lists only the fields that really differ', async ({ page }) => {
      const token = tokenOf('author');
      const post = await createPost(token, {
        title: 'Conflict title',
        markdown: 'Original text.',
        tags: ['harbour'],
      });
      await signIn(page, token);
      await openEditor(page, post.id);
      await page.getByLabel('Title', { exact: true }).fill('Title typed here');
      await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
      // Elsewhere: the title too, and the Markdown (which this editor never touched).
      await api(token, 'PATCH', `/posts/${post.id}`, {
        title: 'Title typed elsewhere',
        markdown: 'Text from the API.',
      });
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      const conflict = page.getByRole('alert').filter({ hasText: 'This article was changed elsewhere' });
      await expect(conflict).toBeVisible();
      await expect(conflict.getByText('changed elsewhere')).toHaveCount(1);
      await conflict.getByRole('button', { name: 'Compare with the current version' }).click();
      await expect(conflict.getByRole('heading', { level: 3 })).toHaveText(['Title']);
      const theirs = conflict.getByLabel('Current version', { exact: true });
      await expect(theirs).toHaveValue('Title typed elsewhere');
      expect(await theirs.evaluate((el) => el.tagName)).toBe('INPUT');
      await expect(conflict.getByLabel('Your unsaved text')).toHaveValue('Title typed here');
      await expect(conflict.getByText('Changed only in the current version: Markdown.')).toBeVisible();
      await screenshot(page, `conflict-${width}`);
    });

    test('the article list finds by title, slug and tag, and sorts by last saved and published', async ({ page }) => {
      const token = tokenOf('pager');
      const word = `w${randomUUID().replace(/-/g, '').slice(0, 10)}`;
      const byTitle = await createPost(token, { title: `Harbour ${word} notes`, markdown: 'One.' });
      const bySlug = await createPost(token, { title: 'Tides', markdown: 'Two.' });
      await api(token, 'PATCH', `/posts/${bySlug.id}`, { slug: `tides-${word}` });
      const byTag = await createPost(token, { title: 'Gulls', markdown: 'Three.', tags: [word] });
      await signIn(page, token);
      await page.getByLabel('Search').fill(word);
      await page.getByRole('button', { name: 'Find' }).click();
      const titles = page.locator('.article-row__title');
      await expect(titles).toHaveText(['Gulls', 'Tides', `Harbour ${word} notes`]); // newest first
      await page.getByLabel('Search').fill(`harb ${word}`); // every word, as a prefix
      await page.getByRole('button', { name: 'Find' }).click();
      await expect(titles).toHaveText([`Harbour ${word} notes`]);

      // Last saved: the oldest, edited now, comes first.
      await api(token, 'PATCH', `/posts/${byTitle.id}`, { markdown: 'One, edited.' });
      await page.getByLabel('Search').fill(word);
      await page.getByLabel('Sort').selectOption('updated');
      await page.getByRole('button', { name: 'Find' }).click();
      await expect(titles).toHaveText([`Harbour ${word} notes`, 'Gulls', 'Tides']);
      // Last published: published ones first, the latest at the top; drafts after them.
      await publish(token, bySlug.id);
      await publish(token, byTag.id);
      await page.getByLabel('Sort').selectOption('published');
      await page.getByRole('button', { name: 'Find' }).click();
      await expect(titles).toHaveText(['Gulls', 'Tides', `Harbour ${word} notes`]);
      await expect(page).toHaveURL(/sort=published/);
      // A status tab keeps the search and the sort.
      await page.getByRole('link', { name: /^Published/ }).click();
      await expect(titles).toHaveText(['Gulls', 'Tides']);
      await page.getByLabel('Search').fill(`${word}zzz`);
      await page.getByRole('button', { name: 'Find' }).click();
      await expect(page.getByText(/No article has a title, slug or tag matching/)).toBeVisible();
    });
  });
}
