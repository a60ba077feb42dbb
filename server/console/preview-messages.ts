import { escapeHtml } from '../reader-pages/article-document';

/** A one-sentence page for a preview frame that has nothing to show. */
export function messageDocument(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Preview</title>
<style>body{font:15px/1.5 system-ui,sans-serif;color:#57606a;margin:2rem;text-align:center}</style></head>
<body><p>${escapeHtml(message)}</p></body></html>`;
}
