'use client';

import type { StateChangeOutcome } from '../../actions/articles';
import { ConfirmAction } from '../../components/confirm-action';
import { useEditorChange, useUnsavedText } from './unsaved-state';

/**
 * Publish publishes the saved working version. While the editor holds unsaved text, the dialog
 * says so and refuses until it is saved, so "readers now see this version" is never wrong.
 */
export function PublishAction(props: {
  action: (prev: StateChangeOutcome, formData: FormData) => Promise<StateChangeOutcome>;
  fields: Record<string, string>;
  detail: string;
  unavailable?: string;
  /** Where the page shows what publishing changes (the dialog links to it), when it does. */
  changesLink?: string;
}) {
  const unsaved = useUnsavedText();
  // "Published: readers now see this version" stops being true once the text is edited or saved.
  const editorChange = useEditorChange();
  const { changesLink, ...rest } = props;
  return (
    <ConfirmAction
      {...rest}
      link={changesLink ? { href: changesLink, label: 'See what changes on publish' } : undefined}
      pageState={editorChange}
      label="Publish"
      question="Publish the working version?"
      confirmLabel="Publish"
      blocked={
        unsaved
          ? 'You have unsaved changes. Publish publishes the saved text only: save first (Save or Ctrl+S), then publish.'
          : undefined
      }
    />
  );
}
