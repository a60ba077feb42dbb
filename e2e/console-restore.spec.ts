import { api, createPost } from './support/api';
import { expect, openEditor, saveEditor, signIn, test, markdownText } from './support/console';
import { tokenOf } from './support/state';

/**
 * Restoring an older version from the history: it asks first (which version becomes the working
 * one, and that the current one stays listed), opens on Cancel since it replaces the working
 * text, changes nothing when cancelled, and the save it makes is labelled "Restored from <time>"
 * in the list, on the working version and on its copy once a later save replaced it.
 */

test('restore asks first, and its save is labelled with the version it restored', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Restore asks', markdown: 'Version one.' });
  expect((await api(token, 'PATCH', `/posts/${post.id}`, { markdown: 'Version two.' })).status).toBe(200);
  await signIn(page, token);
  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  const history = page.getByRole('region', { name: 'History' });
  const rows = history.getByRole('row');
  await expect(rows).toHaveCount(3); // the header and two saves
  await expect(history.getByText('Restored from')).toHaveCount(0);
  const firstSaved = (await rows.nth(2).locator('time').first().textContent())!.trim();
  const currentSaved = (await rows.nth(1).locator('time').first().textContent())!.trim();
  const restoreFirst = history.getByRole('button', { name: `Restore the version saved ${firstSaved}` });
  const dialog = page.getByRole('dialog');

  // With unsaved text the dialog does not open at all: the text would be lost.
  await markdown.fill('Unsaved.');
  await expect(history.getByText('save or discard them before restoring')).toBeVisible();
  await restoreFirst.click({ force: true });
  await expect(dialog).toBeHidden();
  await expect(markdownText(page)).toHaveValue('Unsaved.');
  // The stored text typed back: nothing is unsaved any more, and Restore asks again.
  await markdown.fill('Version two.');
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeHidden();
  await expect(history.getByText('save or discard them before restoring')).toBeHidden();

  // It asks first: which version becomes the working one, and that the current one stays.
  await restoreFirst.click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading', { name: `Restore the version saved ${firstSaved}?` })).toBeVisible();
  await expect(dialog).toContainText(`The version saved ${firstSaved} becomes the working version`);
  await expect(dialog).toContainText(`The current working version, saved ${currentSaved}, stays in the history`);
  // It replaces the working text, so it opens on Cancel: Enter there confirms nothing.
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await restoreFirst.click();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(markdownText(page)).toHaveValue('Version two.');
  await expect(rows).toHaveCount(3);
  expect((await api<{ html: string }>(token, 'GET', `/posts/${post.id}`)).body.html).toContain('Version two.');

  // Confirmed: the first save is the working version again, and the list says where it came from.
  await restoreFirst.click();
  await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(/^Restored the version saved .* it is the working version now, saved\.$/)).toBeVisible();
  await expect(markdownText(page)).toHaveValue('Version one.');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(1).getByRole('cell').first()).toContainText(`Restored from ${firstSaved}`);
  await expect(rows.nth(2)).not.toContainText('Restored from'); // the version it replaced
  await expect(rows.nth(3)).not.toContainText('Restored from');
  const stored = await api<Record<string, unknown>>(token, 'GET', `/posts/${post.id}`);
  expect(stored.body.html).toContain('Version one.');
  expect(Object.keys(stored.body).filter((k) => k.includes('restor'))).toEqual([]); // the REST view is unchanged

  // An ordinary save after it is labelled nothing; the restore's own entry keeps its label.
  await markdown.fill('Version three.');
  await saveEditor(page);
  await expect(rows).toHaveCount(5);
  await expect(rows.nth(1)).not.toContainText('Restored from');
  await expect(rows.nth(2).getByRole('cell').first()).toContainText(`Restored from ${firstSaved}`);
  await expect(history.getByText('Restored from')).toHaveCount(1);
});
