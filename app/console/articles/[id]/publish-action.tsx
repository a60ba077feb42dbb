'use client';

import type { StateChangeOutcome } from '../../actions/articles';
import { ConfirmAction } from '../../components/confirm-action';
import { useUnsavedText } from './unsaved-state';

/**
 * Publish publishes the saved working version. While the editor holds unsaved text, the dialog
 * says so and refuses until it is saved, so "readers now see this version" is never wrong.
 */
export function PublishAction(props: {
  action: (prev: StateChangeOutcome, formData: FormData) => Promise<StateChangeOutcome>;
  fields: Record<string, string>;
  detail: string;
  unavailable?: string;
}) {
  const unsaved = useUnsavedText();
  return (
    <ConfirmAction
      {...props}
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
