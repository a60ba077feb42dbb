'use client';

import type { ActionOutcome } from '@/server/console/action';
import { SecretOnce } from './secret-once';

/**
 * What a token action answered, under its form: the message or the problem in words (announced
 * politely or at once), and the new secret when the action made one (SecretOnce).
 */
export function ActionResult({ state }: { state: ActionOutcome<{ message: string; secret?: string }> | null }) {
  if (!state) return null;
  return (
    <>
      <p className={state.ok ? 'success' : 'error'} role={state.ok ? 'status' : 'alert'}>
        {state.ok ? state.message : state.error}
      </p>
      {state.ok && state.secret && <SecretOnce secret={state.secret} />}
    </>
  );
}
