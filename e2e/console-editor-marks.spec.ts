import sharp from 'sharp';
import { api, createPost } from './support/api';
import { expect, markdownText, openEditor, openNewArticle, saveEditor, signIn, test } from './support/console';
import { tokenOf } from './support/state';

/**
 * The Markdown editor (app/console/articles/[id]/code-editor.ts, README "Writing in the editor"):
 * CodeMirror with Markdown colouring in place of the text box once the page has loaded; the
 * toolbar and its shortcuts write the documented Markdown (markdown-marks.ts); images come in
 * through the upload and alt-text flow, islands through their form; and the text stays exactly
 * as typed.
 */

for (const [width, height] of [
  [390, 844],
  [1400, 900],
] as const) {
  test(`toolbar and shortcuts write the documented Markdown: bold, italic, link, code, heading, list, image, island (${width} px)`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height });
    const token = tokenOf('illustrator');
    const post = await createPost(token, { title: `Marks ${width}`, markdown: 'Calm sea' });
    await signIn(page, token);
    await openEditor(page, post.id);
    const markdown = page.getByLabel('Markdown');
    const text = markdownText(page);
    await markdown.click();

    // Ctrl+B on a selected word wraps it; again, takes the marks off.
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 'Calm'.length; i++) await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Control+b');
    await expect(text).toHaveValue('**Calm** sea');
    await page.keyboard.press('Control+b');
    await expect(text).toHaveValue('Calm sea');
    // The toolbar's Italic on the same selection: the focus stays in the text.
    await page.getByRole('button', { name: 'Italic' }).click();
    await expect(text).toHaveValue('*Calm* sea');
    await expect(markdown).toBeFocused();

    // A link on the selection, with the address placeholder selected to type over.
    await page.keyboard.press('End');
    for (let i = 0; i < 'sea'.length; i++) await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('Control+k');
    await page.keyboard.type('https://example.org/sea');
    await expect(text).toHaveValue('*Calm* [sea](https://example.org/sea)');

    // Inline code with nothing selected: a placeholder, selected, typed over.
    await page.keyboard.press('End');
    await page.keyboard.type(' at ');
    await page.keyboard.press('Control+e');
    await page.keyboard.type('noon');
    await expect(text).toHaveValue('*Calm* [sea](https://example.org/sea) at `noon`');

    // Line marks from the toolbar: a heading on the first line, a list over two new lines.
    await page.getByRole('button', { name: 'Heading' }).click();
    await expect(text).toHaveValue('## *Calm* [sea](https://example.org/sea) at `noon`');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.keyboard.type('gulls');
    await page.keyboard.press('Enter');
    // Enter writes a newline and nothing else: no list marker, no reformatting.
    await page.keyboard.type('terns');
    await expect(text).toHaveValue('## *Calm* [sea](https://example.org/sea) at `noon`\n\ngulls\nterns');
    await page.keyboard.press('Shift+ArrowUp');
    await page.keyboard.press('Shift+Home');
    await page.getByRole('button', { name: 'Bulleted list' }).click();
    await expect(text).toHaveValue('## *Calm* [sea](https://example.org/sea) at `noon`\n\n- gulls\n- terns');

    // Syntax colouring: the heading and the code are marked up as such in the editor.
    await expect(page.locator('.cm-content .tok-heading').first()).toBeVisible();
    await expect(page.locator('.cm-content .tok-monospace').first()).toBeVisible();

    // An image through the upload and its alternative-text question.
    await page.keyboard.press('Control+End');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Add image from file…' }).click();
    const image = await sharp({ create: { width: 30, height: 20, channels: 3, background: { r: 20, g: 90, b: 40 } } })
      .png()
      .toBuffer();
    await (await chooser).setFiles({ name: `reef-${width}.png`, mimeType: 'image/png', buffer: image });
    await page.getByLabel(new RegExp(`^Alternative text for reef-${width}\\.png`)).fill('A green reef');
    await page.getByRole('button', { name: 'Insert image' }).click();
    await expect(text).toHaveValue(/\n- terns\n\n!\[A green reef\]\(\/api\/media\/[0-9a-f-]{36}\)\n$/);

    // An island through its form: a spoiler's two texts.
    await page.getByRole('button', { name: 'Insert island…' }).click();
    const menu = page.getByRole('group', { name: 'Insert an island' });
    await menu.getByLabel('Island').selectOption({ label: 'Spoiler' });
    await menu.getByLabel('Visible summary').fill('Ending');
    await menu.getByLabel('Hidden text').fill('They sail home.');
    await menu.getByRole('button', { name: 'Insert at cursor' }).click();
    await expect(text).toHaveValue(/\)\n\n<details><summary>Ending<\/summary>They sail home\.<\/details>\n$/);

    // Saved as typed, and the pipeline renders each mark.
    await saveEditor(page);
    const { body } = await api<{ html: string }>(token, 'GET', `/posts/${post.id}`);
    expect(body.html).toContain('<em>Calm</em>');
    expect(body.html).toContain('<a href="https://example.org/sea"');
    expect(body.html).toContain('<code>noon</code>');
    expect(body.html).toMatch(/<li>gulls<\/li>\s*<li>terns<\/li>/);
    expect(body.html).toContain('alt="A green reef"');
    expect(body.html).toContain('<summary>Ending</summary>');
  });
}

test('before the editor loads, the page holds a plain text box with the whole text, usable without JavaScript', async ({
  page,
}) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Plain first', markdown: 'Words <b>kept</b> & "as typed".' });
  await signIn(page, token);
  // The page's HTML as the browser gets it, before any script runs.
  const html = await (await page.request.get(`/console/articles/${post.id}`)).text();
  expect(html).toMatch(
    /<textarea[^>]*id="markdown"[^>]*name="markdown"[^>]*>Words &lt;b&gt;kept&lt;\/b&gt; &amp; &quot;as typed&quot;\.<\/textarea>/,
  );
  expect(html).toMatch(/<label[^>]*for="markdown"[^>]*>Markdown<\/label>/);

  // Once loaded, the editor has the same id, label and description, and the box is out of the way.
  await openEditor(page, post.id);
  const editor = page.getByRole('textbox', { name: 'Markdown' });
  await expect(editor).toHaveAttribute('id', 'markdown');
  await expect(editor).toHaveAttribute('aria-describedby', 'markdown-help');
  await expect(editor).toHaveAttribute('contenteditable', 'true');
  await expect(markdownText(page)).toBeHidden();
  await expect(markdownText(page)).toHaveValue('Words <b>kept</b> & "as typed".');
});

test('a new article is written in the same editor, with images and a live preview before the draft exists', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  const token = tokenOf('illustrator');
  await signIn(page, token);
  await openNewArticle(page);
  await page.getByLabel('Title').fill('Written from the start');
  await page.getByLabel('Markdown').click();
  await page.keyboard.press('Control+b');
  await page.keyboard.type('Harbour');
  await expect(markdownText(page)).toHaveValue('**Harbour**');
  const preview = page.frameLocator('iframe[title="Article preview"]');
  await expect(preview.locator('strong', { hasText: 'Harbour' })).toBeVisible();
  await expect(preview.getByRole('heading', { name: 'Written from the start' })).toBeVisible();

  await page.keyboard.press('Control+End');
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Add image from file…' }).click();
  const image = await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 90, g: 20, b: 40 } } })
    .png()
    .toBuffer();
  await (await chooser).setFiles({ name: 'first-light.png', mimeType: 'image/png', buffer: image });
  await page.getByRole('button', { name: 'Insert image' }).click();
  await expect(markdownText(page)).toHaveValue(
    /^\*\*Harbour\*\*\n\n!\[first-light\]\(\/api\/media\/[0-9a-f-]{36}\)\n$/,
  );
  await expect(preview.locator('img[alt="first-light"]')).toBeVisible();

  await page.getByRole('button', { name: 'Create draft' }).click();
  await expect(page.getByText('Draft created.')).toBeVisible();
  await expect(markdownText(page)).toHaveValue(/^\*\*Harbour\*\*\n\n!\[first-light\]/);
  await expect(page.getByLabel('Title', { exact: true })).toHaveValue('Written from the start');
});
