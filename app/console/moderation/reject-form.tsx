'use client';

import { useActionState, useId } from 'react';
import type { ModerationOutcome } from '../actions/moderation';

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
  return (
    <form action={formAction} className="reject-form">
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="csrf" value={csrf} />
      <label htmlFor={fieldId}>Reason for rejecting (shown to the author)</label>
      <textarea id={fieldId} name="reason" rows={2} maxLength={2000} />
      <div>
        <button type="submit" className="danger" disabled={pending}>
          {pending ? 'Rejecting…' : 'Reject'}
        </button>
      </div>
      {state && !state.ok && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
    </form>
  );
}
