'use server';

import { redirect } from 'next/navigation';
import { cookies } from 'next/headers';
import { TOKEN_PREFIX } from '@/server/model/token-secret';
import { authenticate } from '@/server/admission/token-match';
import { clearSessionCookie, consoleParts, currentSession, setSessionCookie } from '@/server/console/context';
import { SESSION_COOKIE } from '@/server/model/session';
import { closeSession, csrfMatches, openSession } from '@/server/console/session-store';
import { describeProblem } from '@/server/console/problems';
import { safeReturnPath } from '@/server/console/return-path';

export type SignInState = { error: string } | null;

/**
 * Sign-in: the one request in which the browser sends the API token. The token is checked
 * like a REST call's and then forgotten; the browser gets only an opaque session cookie.
 * Nothing from the submitted form is echoed back, not even on failure.
 */
export async function signIn(_prev: SignInState, formData: FormData): Promise<SignInState> {
  const raw = formData.get('token');
  const secret = typeof raw === 'string' ? raw.trim() : '';
  if (!secret) return { error: 'Paste an API token to sign in.' };
  if (!secret.startsWith(TOKEN_PREFIX))
    return { error: `Only API tokens that start with ${TOKEN_PREFIX} can sign in.` };
  try {
    const { db } = consoleParts();
    const auth = await authenticate(db, secret);
    if (!auth) return { error: 'That token is not valid: it is incomplete, revoked or was reissued.' };
    const { cookieValue } = await openSession(db, auth);
    await setSessionCookie(cookieValue);
  } catch (err) {
    return { error: describeProblem(err) };
  }
  // Back to the page that sent the browser here; only a console path of this origin.
  redirect(safeReturnPath(formData.get('next')));
}

export async function signOut(formData: FormData): Promise<void> {
  const session = await currentSession();
  // A forged sign-out would be harmless, but the same CSRF rule holds for every mutation.
  if (session && csrfMatches(session, formData.get('csrf'))) {
    const value = (await cookies()).get(SESSION_COOKIE)?.value;
    await closeSession(consoleParts().db, value);
    await clearSessionCookie();
  }
  redirect('/console');
}
