import { api, createPost, type ApiPost } from './support/api';
import {
  editorReady,
  expect,
  saveEditor,
  signIn,
  test,
  openEditor,
  openNewArticle,
  markdownText,
} from './support/console';
import { tokenOf } from './support/state';

/**
 * The editor's text and its saves: line endings are never a change, "Keep my text" sends only
 * what was changed here, Ctrl+S saves, the focus stays where it was, old messages go away, and
 * Publish never claims to publish text that is not saved.
 */

type StoredPost = ApiPost & { html: string; subtitle: string | null };

test('a console save stores \\n line endings, and reopening the article shows nothing unsaved', async ({ page }) => {
  const token = tokenOf('author');
  // Written through the API with \n; another one stored with \r\n by an integration.
  const post = await createPost(token, { title: 'Line endings', markdown: 'First line.\n\nSecond line.' });
  const crlf = await createPost(token, { title: 'Windows text', markdown: 'One.\r\n\r\nTwo.' });
  await signIn(page, token);

  await openEditor(page, crlf.id);
  await expect(markdownText(page)).toHaveValue('One.\n\nTwo.');
  await expect(page.getByText('Live preview of your unsaved text')).toHaveCount(0);
  await expect(page.getByText('Unsaved changes', { exact: true })).toHaveCount(0);

  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  await expect(markdownText(page)).toHaveValue('First line.\n\nSecond line.');
  await markdown.fill('First line.\n\nSecond line.\n\nThird line.');
  await saveEditor(page);
  const stored = await api<StoredPost>(token, 'GET', `/posts/${post.id}`);
  expect(stored.body.html).toContain('<p>Third line.</p>');

  await page.reload();
  await expect(markdownText(page)).toHaveValue('First line.\n\nSecond line.\n\nThird line.');
  await expect(page.getByText('Preview of the saved working version')).toBeVisible();
  await page.waitForTimeout(1000); // longer than the live preview's pause: no unsaved state appears
  await expect(page.getByText('Unsaved changes', { exact: true })).toHaveCount(0);
  await expect(page.getByText('Live preview of your unsaved text')).toHaveCount(0);
  // Leaving asks nothing.
  const asked: string[] = [];
  page.on('dialog', (d) => {
    asked.push(d.message());
    void d.dismiss();
  });
  await page.getByRole('link', { name: '← Articles' }).click();
  await expect(page.getByRole('heading', { name: 'Articles', level: 1 })).toBeVisible();
  expect(asked).toEqual([]);
});

test('"Keep my text" keeps a field changed elsewhere that was not touched here', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Two hands', subtitle: 'Old subtitle', markdown: 'Old body.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await expect(page.getByLabel('Subtitle')).toHaveValue('Old subtitle');

  await page.getByLabel('Markdown').fill('Body typed in the console.');
  expect((await api(token, 'PATCH', `/posts/${post.id}`, { subtitle: 'Subtitle from the API' })).status).toBe(200);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const conflict = page.getByRole('alert').filter({ hasText: 'This article was changed elsewhere' });
  await conflict.getByRole('button', { name: 'Compare with the current version' }).click();
  await conflict.getByRole('button', { name: /Keep my text/ }).click();
  await expect(page.getByLabel('Subtitle')).toHaveValue('Subtitle from the API');
  await saveEditor(page);

  const stored = await api<StoredPost>(token, 'GET', `/posts/${post.id}`);
  expect(stored.body.subtitle).toBe('Subtitle from the API');
  expect(stored.body.html).toContain('Body typed in the console.');
});

test('Ctrl+S saves; the focus stays where it was; old messages do not outlive a save', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Keyboard saves', markdown: 'Start.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  await expect(markdownText(page)).toHaveValue('Start.');

  // A refused upload leaves "Not stored…" on screen; the next save clears it.
  await markdown.evaluate((el) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array([37, 80, 68, 70])], 'notes.pdf', { type: 'application/pdf' }));
    el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await expect(page.getByText(/^Not stored\./)).toBeVisible();

  await markdown.click();
  await page.keyboard.press('End');
  await page.keyboard.type(' Typed, then Ctrl+S.');
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
  await page.keyboard.press('Control+s');
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();
  await expect(markdown).toBeFocused();
  expect((await api<StoredPost>(token, 'GET', `/posts/${post.id}`)).body.html).toContain('Start. Typed, then Ctrl+S.');
  await expect(page.getByText(/^Not stored\./)).toHaveCount(0);

  // Clicking Save: the focus stays on the button, not on the page's body.
  await markdown.fill('Saved with the button.');
  const save = page.getByRole('button', { name: 'Save', exact: true });
  await save.click();
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();
  await expect(save).toBeFocused();
});

test('after Create: the problems of the text, "Draft created" once, and no API words', async ({ page }) => {
  const token = tokenOf('author');
  await signIn(page, token);
  await openNewArticle(page);
  await expect(page.locator('#console-main')).not.toContainText(/\b(GET|POST|PATCH|PUT|DELETE) \//);
  await page.getByLabel('Title').fill('Created with problems');
  await page
    .getByLabel('Markdown')
    .fill(
      'Intro.\n\n![tern](http://203.0.113.9/tern.png)\n\n<p onclick="x()">Clicked</p>\n\nA [relative link](notes.html).',
    );
  await page.getByRole('button', { name: 'Create draft' }).click();

  await expect(page.getByText('Draft created.')).toBeVisible();
  const failed = page.locator('.warning-box').filter({ hasText: 'Images that could not be copied into storage' });
  await expect(failed).toContainText('http://203.0.113.9/tern.png');
  const removed = page.locator('.warning-box').filter({ hasText: 'Removed from what readers see' });
  await expect(removed).toContainText('The onclick attribute on <p> was removed');
  await expect(removed).toContainText('The link “relative link” was removed');
  await expect(page.locator('#console-main')).not.toContainText(/rehost_failed|\b(GET|POST|PATCH) \//);

  // A later save replaces the creation's messages. Typed once the article's editor has taken the
  // text box's place, as a person would (typing into the box being replaced hung a CI run).
  await editorReady(page);
  await page.getByLabel('Markdown').fill('Intro, rewritten.');
  await saveEditor(page);
  await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
  await expect(page.getByText('Draft created.')).toHaveCount(0);
  await page.reload();
  await expect(page.getByText('Draft created.')).toHaveCount(0);
});

test('Publish with unsaved text refuses until it is saved, and then publishes the saved text', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Publish what is saved', markdown: 'Saved words.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await expect(markdownText(page)).toHaveValue('Saved words.');
  await page.getByLabel('Markdown').fill('Unsaved words.');

  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('You have unsaved changes.');
  await expect(dialog.getByRole('button', { name: 'Publish', exact: true })).toBeDisabled();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect((await api<StoredPost>(token, 'GET', `/posts/${post.id}`)).body.status).toBe('draft');

  await saveEditor(page);
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(dialog).not.toContainText('You have unsaved changes.');
  await dialog.getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(page.getByText('Published: readers now see this version.')).toBeVisible();
  const published = await page.request.get(post.canonical_path);
  expect(await published.text()).toContain('Unsaved words.');
});

test('"Published" goes away once the text is edited or saved after it: no success message contradicts the page', async ({
  page,
}) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Stale news', markdown: 'First words.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const published = page.getByText('Published: readers now see this version.');

  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(published).toBeVisible();

  // An edit: readers do not see this text, so the message goes while the badge says so.
  await page.getByLabel('Markdown').fill('Second words.');
  await expect(published).toHaveCount(0);
  // Saved with Ctrl+S: still not what readers see.
  await page.keyboard.press('Control+s');
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();
  await expect(page.getByText('Unpublished changes')).toBeVisible();
  await expect(published).toHaveCount(0);

  // Publishing again says it again.
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(published).toBeVisible();
});
