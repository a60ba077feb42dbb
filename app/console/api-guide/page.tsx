import type { Metadata } from 'next';
import Link from 'next/link';
import { apiGuideHtml } from '@/server/console/api-guide';

export const metadata: Metadata = { title: 'API guide' };

/** The REST guide (docs/api.md) in the console, next to the reference generated from the code. */
export default function ApiGuidePage() {
  return (
    <>
      <p className="muted">
        The guide to the REST contract, from <code>docs/api.md</code> in the repository. Field-by-field details of every
        route are in the <Link href="/console/api-reference">API reference</Link>.
      </p>
      <article className="api-guide" data-testid="api-guide" dangerouslySetInnerHTML={{ __html: apiGuideHtml() }} />
    </>
  );
}
