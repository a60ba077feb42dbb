import Link from 'next/link';

/** A console page that does not exist (an unknown or deleted article, say), inside the console. */
export default function ConsoleNotFound() {
  return (
    <section className="card problem" role="alert">
      <h1>Not found</h1>
      <p>
        This page does not exist in the console: the article may have been deleted, or the address is mistyped, or it
        belongs to another account.
      </p>
      <p>
        <Link href="/console">← Back to your articles</Link>
      </p>
    </section>
  );
}
