import 'server-only';
import { redirect, unstable_rethrow } from 'next/navigation';
import { isDomainError } from '../foundation/errors';
import { inSpan, TRACING } from '../foundation/tracing';
import type { ConsoleParts } from '../runtime/parts';
import { consoleParts, currentSession } from './context';
import { AutosaveWaits, spend, type ConsoleCharge } from './console-charges';
import { describeProblem } from './problems';
import { csrfMatches, type ConsoleSession } from './session-store';

/**
 * The frame of every console Server Action. Each exported action is a public HTTP endpoint
 * (Next docs, "Data security"), so each one: finds the session itself, checks the form's
 * CSRF token against the session's (on top of Next's own Origin check for actions), spends
 * the account's limit for its class (or an autosave's share of `write`: console-charges.ts), and turns any
 * failure into a sentence.
 */
/**
 * `conflict`: the write was refused because the article changed since the form was loaded (412).
 * `autosaveWaits`: an autosave found the minute's share for autosaves used and was neither
 * charged nor saved; seconds until the window resets, when it can try again.
 */
type ActionFailure = { ok: false; error: string; conflict?: true; autosaveWaits?: number };
export type ActionOutcome<T extends object = object> = ({ ok: true } & T) | ActionFailure;

export interface ActionContext {
  /** The process's parts (`parts.db`: the one way to the data). */
  parts: ConsoleParts;
  session: ConsoleSession;
}

export function runConsoleAction<T extends object>(
  formData: FormData,
  cls: ConsoleCharge | null,
  fn: (ctx: ActionContext) => Promise<T>,
): Promise<ActionOutcome<T>> {
  return TRACING ? inActionSpan(cls, () => runAction(formData, cls, fn)) : runAction(formData, cls, fn);
}

/**
 * Traces on: every action in a `console.action` span (the one place: each action goes through
 * runConsoleAction), with its charge and how it ended, never the form's fields.
 */
function inActionSpan<T extends object>(cls: ConsoleCharge | null, run: () => Promise<ActionOutcome<T>>) {
  return inSpan('console.action', { attributes: { 'console.action.charge': cls ?? 'none' } }, async (span) => {
    const outcome = await run();
    const ended = outcome.ok ? 'ok' : outcome.conflict ? 'conflict' : 'refused';
    span.setAttribute('console.action.outcome', ended);
    return outcome;
  });
}

async function runAction<T extends object>(
  formData: FormData,
  cls: ConsoleCharge | null,
  fn: (ctx: ActionContext) => Promise<T>,
): Promise<ActionOutcome<T>> {
  const session = await currentSession();
  if (!session) redirect('/console');
  if (!csrfMatches(session, formData.get('csrf'))) {
    return { ok: false, error: 'This page is out of date. Reload it and try again.' };
  }
  const parts = consoleParts();
  try {
    if (cls) await spend(parts.db, session.auth, cls);
    return { ok: true, ...(await fn({ parts, session })) };
  } catch (err) {
    unstable_rethrow(err); // redirect()/notFound() inside fn must keep working
    const conflict = isDomainError(err, 'stale');
    return {
      ok: false,
      error: describeProblem(err),
      ...(conflict ? { conflict: true as const } : {}),
      ...(err instanceof AutosaveWaits ? { autosaveWaits: err.seconds } : {}),
    };
  }
}

export function formString(formData: FormData, name: string): string {
  const value = formData.get(name);
  return typeof value === 'string' ? value : '';
}
