'use client';

import { useActionState } from 'react';
import type { TokenOutcome } from '../actions/tokens';
import { ActionResult } from '../components/action-result';

export function CreateTokenForm({
  action,
  csrf,
  full,
  max,
  activeTokenIds,
}: {
  action: (prev: TokenOutcome, formData: FormData) => Promise<TokenOutcome>;
  csrf: string;
  full: boolean;
  max: number;
  /** The account's active tokens: a secret created here stays on screen only while its token is one of them. */
  activeTokenIds: string[];
}) {
  const [state, formAction, pending] = useActionState(action, null);
  const revoked = Boolean(state?.ok && state.tokenId && !activeTokenIds.includes(state.tokenId));
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
      <ActionResult
        state={
          revoked
            ? { ok: true, message: 'The token created here has been revoked: its secret no longer works.' }
            : state
        }
      />
    </div>
  );
}
