'use client';

import dynamic from 'next/dynamic';
import 'swagger-ui-react/swagger-ui.css';

// Swagger UI touches `window` while loading: render it in the browser only. It is bundled from
// npm and served by this app, so no third-party CDN sees the page.
const SwaggerUI = dynamic(() => import('swagger-ui-react'), {
  ssr: false,
  loading: () => <p style={{ margin: '1rem 1.25rem' }}>Loading the API reference…</p>,
});

// With nothing to submit, the Authorize dialogs would only invite typing a token into the page.
const noAuthorizeDialogs = () => ({ components: { authorizeBtn: () => null, authorizeOperationBtn: () => null } });

export function ApiReference({ url }: { url: string }) {
  return (
    <div data-testid="api-reference">
      {/* No methods may be submitted: "Try it out" disappears, so nobody types a token here. */}
      <SwaggerUI
        url={url}
        supportedSubmitMethods={[]}
        tryItOutEnabled={false}
        plugins={[noAuthorizeDialogs]}
        docExpansion="list"
        defaultModelsExpandDepth={1}
      />
    </div>
  );
}
