import type { Metadata } from 'next';
import Link from 'next/link';
import { openApiDocument } from '@/server/api/openapi/document';
import { referenceOperations, type FieldRow } from '@/server/api/openapi/reference';

export const metadata: Metadata = { title: 'API reference' };

/**
 * The served OpenAPI document, rendered on the server as plain HTML: every operation with its
 * parameters, body fields, responses and headers. Read-only on purpose: a "try it" form would
 * invite typing a dp_live_ token into a browser, and tokens stay server-side.
 */
export default function ApiReferencePage() {
  const operations = referenceOperations(openApiDocument);
  const info = openApiDocument.info as { title: string; version: string; description?: string };
  return (
    <>
      <h1>API reference</h1>
      <p className="api-intro">
        {info.title} {info.version}: the contract of <code>/api/v1/author</code>, generated from the code that serves
        it. Read the <Link href="/console/api-guide">API guide</Link> for the rules in prose; download{' '}
        <a href="/api/v1/author/openapi.json">openapi.json</a> to generate a typed client. Call the API from server-side
        code only; never put a token in a browser.
      </p>
      <nav aria-label="Operations" className="api-toc">
        <ul>
          {operations.map((op) => (
            <li key={op.id}>
              <a href={`#${op.id}`}>
                <span className={`method method-${op.method.toLowerCase()}`}>{op.method}</span> <code>{op.path}</code>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {operations.map((op) => (
        <section key={op.id} id={op.id} className="api-operation" data-operation={`${op.method} ${op.path}`}>
          <h2>
            <span className={`method method-${op.method.toLowerCase()}`}>{op.method}</span> <code>{op.path}</code>
          </h2>
          {op.summary && <p className="api-summary">{op.summary}</p>}
          {op.description && <p>{op.description}</p>}
          {op.parameters.length > 0 && (
            <>
              <h3>Parameters</h3>
              <Fields rows={op.parameters} where />
            </>
          )}
          {op.requestFields.length > 0 && (
            <>
              <h3>
                Request body <span className="muted">({op.requestContentType})</span>
              </h3>
              <Fields rows={op.requestFields} />
            </>
          )}
          <h3>Responses</h3>
          <dl className="api-responses">
            {op.responses.map((r) => (
              <div key={r.status} data-status={r.status}>
                <dt>
                  <code>{r.status}</code> {r.schemaName && <span className="muted">{r.schemaName}</span>}
                </dt>
                <dd>
                  <p>{r.description}</p>
                  {r.headers.length > 0 && (
                    <p className="muted">
                      Headers: {r.headers.map((h, i) => [i > 0 && ', ', <code key={h}>{h}</code>])}
                    </p>
                  )}
                  {r.fields.length > 0 && r.status.startsWith('2') && (
                    <details>
                      <summary>Body fields</summary>
                      <Fields rows={r.fields} />
                    </details>
                  )}
                </dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </>
  );
}

function Fields({ rows, where = false }: { rows: (FieldRow & { in?: string })[]; where?: boolean }) {
  return (
    <div className="table-wrap">
      <table className="api-fields">
        <thead>
          <tr>
            <th scope="col">Name</th>
            {where && <th scope="col">In</th>}
            <th scope="col">Type</th>
            <th scope="col">Rules</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.in ?? ''}:${row.name}`}>
              <td>
                <code>{row.name || '(body)'}</code>
                {row.required && <span className="required"> required</span>}
              </td>
              {where && <td>{row.in}</td>}
              <td>
                <code>{row.type}</code>
              </td>
              <td>
                {row.constraints.join('; ')}
                {row.description && <p className="muted">{row.description}</p>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
