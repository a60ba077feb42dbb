import Link from 'next/link';

export default function Home() {
  return (
    <main>
      <h1>Author Publishing</h1>
      <p>
        Authors&apos; integrations manage articles and images through the REST API under <code>/api/v1/author</code>.
      </p>
      <ul>
        <li>
          <Link href="/console">Console</Link> — sign in with an API token to preview articles, publish them and manage
          tokens
        </li>
        <li>
          <Link href="/console/api-reference">API reference</Link> and the{' '}
          <a href="/api/v1/author/openapi.json">OpenAPI document</a>
        </li>
      </ul>
    </main>
  );
}
