import { ApiReference } from './api-reference';

export const metadata = { title: 'API reference' };

/**
 * Browsable reference of the served OpenAPI document. Read-only on purpose: "try it out" would
 * ask for a dp_live_ token inside a browser widget, which SPEC forbids (tokens stay server-side).
 */
export default function ApiReferencePage() {
  return (
    <main>
      <p style={{ margin: '1rem 1.25rem 0', maxWidth: '60rem' }}>
        The contract of <code>/api/v1/author</code>. Download it from{' '}
        <a href="/api/v1/author/openapi.json">/api/v1/author/openapi.json</a> to generate a typed client. Call the
        API from server-side code only; never put a token in a browser.
      </p>
      <ApiReference url="/api/v1/author/openapi.json" />
    </main>
  );
}
