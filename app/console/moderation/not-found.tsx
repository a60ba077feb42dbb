import Link from 'next/link';

/**
 * Moderation for an account that is not an administrator: still a 404 (to everyone else the
 * section does not exist), but inside the console and with the reason.
 */
export default function ModerationNotFound() {
  return (
    <section className="card problem" role="alert">
      <h1>No moderation here</h1>
      <p>
        Moderation is only for administrator accounts, and the account signed in here is not one. An operator can make
        it one (<code>account update &lt;handle&gt; --admin</code>).
      </p>
      <p>
        <Link href="/console">← Back to your articles</Link>
      </p>
    </section>
  );
}
