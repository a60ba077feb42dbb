'use client';

import { useActionState } from 'react';
import type { TokenOutcome } from '../actions/tokens';
import { ActionResult } from '../components/action-result';

export function CreateTokenForm({
  action,
  csrf,
  full,
  max,
}: {
  action: (prev: TokenOutcome, formData: FormData) => Promise<TokenOutcome>;
  csrf: string;
  full: boolean;
  max: number;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  return (
    <div className="create-token">
      <form action={formAction} className="inline-form">
        <input type="hidden" name="csrf" value={csrf} />
        <label htmlFor="token-name">New token name</label>
        <input id="token-name" name="name" placeholder="e.g. blog-sync" maxLength={100} disabled={full} />
        <button type="submit" className="primary" disabled={pending || full}>
          {pending ? 'Creating…' : 'Create token'}
        </button>
      </form>
      {full && (
        <p className="muted">
          You have {max} active tokens, the most an account can have. Revoke one to create another.
        </p>
      )}
      <ActionResult state={state} />
    </div>
  );
}
