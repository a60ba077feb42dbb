import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import Link from 'next/link';
import { currentSession } from '@/server/console/context';
import { signOut } from './actions/session';
import { NavLink } from './components/nav-link';

export const metadata: Metadata = {
  title: { default: 'Console', template: '%s · Console' },
  robots: { index: false, follow: false },
};

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const session = await currentSession();
  return (
    <div className="console">
      <a className="skip-link" href="#console-main">
        Skip to content
      </a>
      <header className="console-header">
        <Link href="/console" className="brand">
          Author Publishing <span className="muted">console</span>
        </Link>
        {session && (
          <nav aria-label="Console sections" className="console-nav">
            <NavLink href="/console" exact>
              Articles
            </NavLink>
            <NavLink href="/console/media">Media</NavLink>
            <NavLink href="/console/account">Account</NavLink>
            {session.auth.account.isAdmin && <NavLink href="/console/moderation">Moderation</NavLink>}
            <NavLink href="/console/api-reference">API reference</NavLink>
            <NavLink href="/console/api-guide">API guide</NavLink>
            <span className="who" title="Signed in account">
              @{session.auth.account.handle}
            </span>
            <form action={signOut}>
              <input type="hidden" name="csrf" value={session.csrfToken} />
              <button type="submit" className="link-button">
                Sign out
              </button>
            </form>
          </nav>
        )}
      </header>
      <main id="console-main" className="console-main">
        {children}
      </main>
    </div>
  );
}
