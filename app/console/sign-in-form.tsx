'use client';

import { useActionState } from 'react';
import { signIn, type SignInState } from './actions/session';

/** `next`: the console page to return to after signing in (checked again by the action). */
export function SignInForm({ notice, next }: { notice?: string; next?: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signIn, null);
  return (
    <form action={action} className="card sign-in" aria-describedby="sign-in-help">
      <h1>Sign in to the console</h1>
      {next && <input type="hidden" name="next" value={next} />}
      {notice && !state && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <p id="sign-in-help" className="muted">
        Paste one of your API tokens. It is checked once and stays on the server: this browser only receives a session
        cookie, and the token is never shown again here.
      </p>
      <label htmlFor="token">API token</label>
      <input
        id="token"
        name="token"
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder="dp_live_…"
        required
        aria-invalid={state ? true : undefined}
        aria-describedby={state ? 'sign-in-error' : undefined}
      />
      {state && (
        <p id="sign-in-error" className="error" role="alert">
          {state.error}
        </p>
      )}
      <button type="submit" className="primary" disabled={pending}>
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
