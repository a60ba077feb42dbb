/**
 * How the unsaved text reaches the preview frame, for the article's editor (use-live-preview.ts)
 * and the new-article page alike: a hidden form posts it to app/console/preview/live, whose
 * answer the frame shows, once typing has paused.
 */

/** How long typing pauses before the preview shows the text. */
export const PREVIEW_PAUSE_MS = 600;

/**
 * Fills the hidden form's inputs named in `values` and posts it into its frame. The values are
 * set just before each post, not rendered with the fields: a copy of a large article's Markdown
 * in the page doubled it and made React update it on every keystroke. `cursor` (the Markdown
 * offset of the editor's cursor) makes the converted page open where the editing is.
 */
export function postToPreview(form: HTMLFormElement, values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    const input = form.elements.namedItem(name);
    if (input instanceof HTMLInputElement) input.value = value;
  }
  form.requestSubmit();
}
