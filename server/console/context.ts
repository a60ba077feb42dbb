import 'server-only';
import { cache } from 'react';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { partsFromConsoleThread } from '../runtime/next-bridge';
import type { ConsoleParts } from '../runtime/parts';
import { SESSION_COOKIE } from '../model/session';
import { SESSION_TTL_SECONDS, findSession, type ConsoleSession } from './session-store';
import { REQUESTED_PATH_HEADER, signInPath } from './return-path';

/**
 * How console pages, actions and route handlers reach the session. Authorization happens
 * here, at each page, action and route handler, never in proxy.ts: every Server Action is a
 * public endpoint of its own, and a check in a proxy protects only the paths its matcher covers.
 */

/**
 * The console thread's parts (its statement pools and storage, the link to the conversion
 * pool…), as that thread built them: this code is Next's own copy of the server modules, so it
 * takes them from the bridge (runtime/next-bridge.ts) rather than building its own.
 */
export function consoleParts(): ConsoleParts {
  return partsFromConsoleThread();
}

/** The signed-in session of this request, or null. Cached so layout and page share one lookup. */
export const currentSession = cache(async (): Promise<ConsoleSession | null> => {
  const value = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!value) return null;
  return findSession(consoleParts().db, value);
});

/** A cookie that no longer opens a session: its token was revoked or reissued, or it expired. */
export async function hasStaleSessionCookie(): Promise<boolean> {
  return Boolean((await cookies()).get(SESSION_COOKIE)?.value) && !(await currentSession());
}

/** For pages: no session → the sign-in form, which returns to this page afterwards. */
export async function requireSession(): Promise<ConsoleSession> {
  const session = await currentSession();
  if (!session) redirect(signInPath((await headers()).get(REQUESTED_PATH_HEADER)));
  return session;
}

/** Secure when the browser reached us over https (directly or through a TLS-terminating proxy). */
async function requestIsHttps(): Promise<boolean> {
  const h = await headers();
  const forwarded = h.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === 'https';
  return (h.get('origin') ?? '').startsWith('https://');
}

export async function setSessionCookie(value: string): Promise<void> {
  (await cookies()).set(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    secure: await requestIsHttps(),
    path: '/console',
    maxAge: SESSION_TTL_SECONDS,
  });
}

export async function clearSessionCookie(): Promise<void> {
  (await cookies()).set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/console', maxAge: 0 });
}
