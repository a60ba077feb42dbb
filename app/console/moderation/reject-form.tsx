'use client';

import { useActionState, useEffect, useId, useRef, useState } from 'react';
import type { ModerationOutcome } from '../actions/moderation';

/**
 * Reject needs a reason (the author reads it) and asks first, as Approve does: the reason is
 * checked, then a dialog shows it and asks for confirmation before the form is sent.
 */
export function RejectForm({
  action,
  id,
  csrf,
}: {
  action: (prev: ModerationOutcome, formData: FormData) => Promise<ModerationOutcome>;
  id: string;
  csrf: string;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  const fieldId = useId();
  const form = useRef<HTMLFormElement>(null);
  const reason = useRef<HTMLTextAreaElement>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const [asked, setAsked] = useState('');
  const titleId = `${fieldId}-confirm`;
  const ask = () => {
    if (!form.current?.reportValidity()) return;
    setAsked(reason.current?.value.trim() ?? '');
    dialog.current?.showModal();
  };
  useEffect(() => {
    if (state) dialog.current?.close();
  }, [state]);
  return (
    <form ref={form} action={formAction} className="reject-form">
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="csrf" value={csrf} />
      <label htmlFor={fieldId}>Reason for rejecting (shown to the author)</label>
      <textarea
        ref={reason}
        id={fieldId}
        name="reason"
        rows={2}
        maxLength={2000}
        required
        onInput={(e) => e.currentTarget.setCustomValidity('')}
        onInvalid={(e) => e.currentTarget.setCustomValidity('Write the reason the author will read.')}
      />
      <div>
        <button type="button" className="danger" disabled={pending} onClick={ask}>
          {pending ? 'Rejecting…' : 'Reject'}
        </button>
      </div>
      <dialog ref={dialog} aria-labelledby={titleId} className="dialog">
        <h2 id={titleId}>Reject this version?</h2>
        <p>It goes back to its author with your reason:</p>
        <blockquote className="reject-form__reason">{asked}</blockquote>
        <div className="dialog__buttons">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="submit" className="danger" autoFocus>
            Reject
          </button>
        </div>
      </dialog>
      {state && !state.ok && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
    </form>
  );
}
