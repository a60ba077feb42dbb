import { ApiReference } from './api-reference';

export const metadata = { title: 'API reference' };

/**
 * Inside the console layout's <main>. Browsable reference of the served OpenAPI document. Read-only on purpose: "try it out" would
 * ask for a dp_live_ token inside a browser widget, which the contract forbids (tokens stay server-side).
 */
export default function ApiReferencePage() {
  return (
    <>
      <h1>API reference</h1>
      <p style={{ maxWidth: '60rem' }}>
        The contract of <code>/api/v1/author</code>. Download it from{' '}
        <a href="/api/v1/author/openapi.json">/api/v1/author/openapi.json</a> to generate a typed client. Call the
        API from server-side code only; never put a token in a browser.
      </p>
      <ApiReference url="/api/v1/author/openapi.json" />
    </>
  );
}
