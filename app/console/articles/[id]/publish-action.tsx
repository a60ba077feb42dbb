'use client';

import { useState } from 'react';
import type { StateChangeOutcome } from '../../actions/articles';
import { ConfirmAction } from '../../components/confirm-action';
import { PreviewFrame } from '../../components/preview-frame';
import { useEditorChange, useUnsavedText } from './unsaved-state';

/**
 * Publish publishes the saved working version. While the editor holds unsaved text, the dialog
 * says so and refuses until it is saved, so "readers now see this version" is never wrong.
 * When publishing changes what readers see, the dialog holds the diff itself ("What changes",
 * also a button of its own), so the writer reads it and publishes without leaving the dialog.
 * The diff frame is loaded only when opened: each frame spends a unit of the write window.
 */
export function PublishAction(props: {
  action: (prev: StateChangeOutcome, formData: FormData) => Promise<StateChangeOutcome>;
  fields: Record<string, string>;
  detail: string;
  unavailable?: string;
  /** The frame of what publishing changes (the working version, additions and removals marked), when it does. */
  changesSrc?: string;
}) {
  const unsaved = useUnsavedText();
  // "Published: readers now see this version" stops being true once the text is edited or saved.
  const editorChange = useEditorChange();
  const [showChanges, setShowChanges] = useState(false);
  const { changesSrc, ...rest } = props;
  return (
    <ConfirmAction
      {...rest}
      pageState={editorChange}
      label="Publish"
      question="Publish the working version?"
      confirmLabel="Publish"
      also={changesSrc ? { label: 'What changes', onOpen: () => setShowChanges(true) } : undefined}
      blocked={
        unsaved
          ? 'You have unsaved changes. Publish publishes the saved text only: save first (Save or Ctrl+S), then publish.'
          : undefined
      }
    >
      {changesSrc && (
        <details
          className="publish-dialog__changes"
          open={showChanges}
          onToggle={(e) => setShowChanges(e.currentTarget.open)}
        >
          <summary>What changes on publish</summary>
          <p className="muted">
            The saved working version as readers will get it: green is added on publish, red removed, yellow edited in
            place.
          </p>
          {showChanges && (
            <PreviewFrame title="Changes on publish, in the dialog" className="diff-frame" src={changesSrc} />
          )}
        </details>
      )}
    </ConfirmAction>
  );
}
