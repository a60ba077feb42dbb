import type { PostVersion } from '../data/posts/rows';
import { GENERIC_EMBED_HOSTS } from '../content/embed-allowlist';

/**
 * One rendering of an article, used both by the public page and by the console's preview
 * frames, so the preview is exactly what readers get: the same markup and the same CSS.
 * The body HTML is the content pipeline's sanitized output; everything added around it
 * (subtitle, tags, cover) is escaped here.
 */
export type ArticleView = Pick<PostVersion, 'title' | 'subtitle' | 'html' | 'tags' | 'cover'>;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The article body with its cover, subtitle and tags around it. */
export function articleMarkup(view: ArticleView): string {
  const cover = view.cover
    ? `<img class="dp-article__cover" src="${escapeHtml(view.cover.url)}" width="${view.cover.width}" height="${view.cover.height}" alt="">`
    : '';
  const subtitle = view.subtitle ? `<p class="dp-article__subtitle">${escapeHtml(view.subtitle)}</p>` : '';
  const tags =
    view.tags.length > 0
      ? `<ul class="dp-article__tags" aria-label="Tags">${view.tags.map((t) => `<li>${escapeHtml(t.name)}</li>`).join('')}</ul>`
      : '';
  // The pipeline guarantees exactly one H1 (plugins/h1.ts); the subtitle reads best right under
  // it when it opens the body, otherwise it leads the body.
  const h1End = view.html.startsWith('<h1') ? view.html.indexOf('</h1>') : -1;
  // A code block scrolls sideways when its lines are long: keyboard users reach it to scroll it
  // (axe: scrollable-region-focusable). The sanitizer never lets a tabindex through itself.
  const html = view.html.includes('<pre') ? view.html.replace(/<pre(?=[\s>])/g, '<pre tabindex="0"') : view.html;
  const body = h1End >= 0 ? html.slice(0, h1End + 5) + subtitle + html.slice(h1End + 5) : subtitle + html;
  return `${cover}<div class="dp-article__body">${body}</div>${tags}`;
}

/** Plain text of the first paragraph, for meta description when there is no subtitle. */
export function excerpt(html: string, max = 180): string {
  const paragraph = /<p>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '';
  const text = paragraph
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!)
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

/**
 * Header CSP of every preview frame (article HTML is author content, so the frame is locked down
 * by a response header the content cannot touch, not by markup inside it): `sandbox` gives the
 * document an opaque origin with no scripts, forms or popups, even if the frame is opened on
 * its own; nothing loads but our own media and the allow-listed embed players.
 */
const PREVIEW_CSP = [
  'sandbox',
  "default-src 'none'",
  "img-src 'self'",
  "media-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  `frame-src ${[...new Set(GENERIC_EMBED_HOSTS)].map((h) => `https://${h}`).join(' ')}`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

export function previewDocument(view: ArticleView, banner?: string): string {
  const note = banner ? `<p class="dp-preview-note">${escapeHtml(banner)}</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(view.title)}</title><style>${READER_STYLESHEET}</style>
<style>.dp-preview-note{max-width:42rem;margin:0 auto 1rem;padding:.5rem .75rem;background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;font:14px/1.4 system-ui,sans-serif;color:#3b2300}</style></head>
<body><div class="reader">${note}<article class="dp-article">${articleMarkup(view)}</article></div></body></html>`;
}

export function previewHeaders(): HeadersInit {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': PREVIEW_CSP,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

/** Reader typography, shared by the public page (inline <style>) and the preview frames. */
const ARTICLE_CSS = `
.dp-article{max-width:42rem;margin:0 auto;font:18px/1.65 Georgia,'Iowan Old Style','Times New Roman',serif;color:#1b1f24;overflow-wrap:anywhere}
.dp-article h1{font:700 2.1rem/1.2 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1rem 0 .5rem}
.dp-article h2,.dp-article h3,.dp-article h4,.dp-article h5,.dp-article h6{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;line-height:1.3;margin:1.8rem 0 .6rem}
.dp-article__subtitle{font:400 1.2rem/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#57606a;margin:0 0 1.5rem}
.dp-article__cover{display:block;width:100%;height:auto;border-radius:8px;margin:0 0 1rem}
.dp-article__tags{list-style:none;display:flex;flex-wrap:wrap;gap:.4rem;padding:0;margin:2rem 0 0;font:14px/1 system-ui,sans-serif}
.dp-article__tags li{background:#eef1f4;color:#24292f;border-radius:999px;padding:.35rem .7rem}
.dp-article img,.dp-article video{max-width:100%;height:auto}
.dp-article a{color:#0a58ca}
.dp-article blockquote{margin:1.2rem 0;padding:.2rem 1rem;border-left:4px solid #d0d7de;color:#424a53}
.dp-article pre{background:#f6f8fa;border-radius:6px;padding:.8rem 1rem;overflow:auto;font-size:.85rem;line-height:1.5}
.dp-article code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em}
.dp-article :not(pre)>code{background:#eff1f3;border-radius:4px;padding:.1em .3em}
.dp-article table{border-collapse:collapse;margin:1rem 0;display:block;overflow:auto}
.dp-article td,.dp-article th{border:1px solid #d0d7de;padding:.35rem .6rem}
.dp-article tbody tr:first-child td{font-weight:600;background:#f6f8fa}
.dp-article hr{border:0;border-top:1px solid #d0d7de;margin:2rem 0}
.dp-article figure{margin:1.5rem 0}
.dp-article figure[data-layout=full]{margin-left:0;margin-right:0}
.dp-article figure>img,.dp-article figure>a>img,.dp-article figure>video{display:block;margin-left:auto;margin-right:auto}
.dp-article figcaption{font:14px/1.4 system-ui,sans-serif;color:#57606a;margin-top:.4rem;text-align:center}
.dp-gallery__items{display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:.5rem}
.dp-gallery__items figure{margin:0}
.dp-embed,[data-video]{position:relative;margin:1.5rem 0;aspect-ratio:16/9}
.dp-embed iframe,[data-video] iframe{position:absolute;inset:0;width:100%;height:100%;border:0}
.dp-gif video{display:block;max-width:100%}
.dp-link-card{display:flex;gap:1rem;border:1px solid #d0d7de;border-radius:8px;padding:.8rem 1rem;margin:1.5rem 0;text-decoration:none;color:inherit;font-family:system-ui,sans-serif}
.dp-link-card__title{font-weight:600}
.dp-link-card__desc{color:#57606a;font-size:.9rem}
.dp-link-card__domain{display:flex;align-items:center;gap:.4rem;font-size:.8rem;color:#57606a}
.dp-link-card__media{width:6rem;min-height:4rem;background-size:cover;background-position:center;border-radius:6px;flex:none}
.dp-article details{border:1px solid #d0d7de;border-radius:6px;padding:.5rem .8rem;margin:1rem 0}
.dp-article summary{cursor:pointer;font-weight:600}
`;

/** Page chrome around the article: the reader column and the byline. */
export const READER_CSS = `
*{box-sizing:border-box}
body{margin:0;background:#fff;color:#1b1f24;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;line-height:1.5}
.reader{padding:1rem 1.25rem 3rem}
.reader__byline{max-width:42rem;margin:2rem auto 0;color:#57606a;font-size:.95rem}
`;

/**
 * The one stylesheet readers get: the public page inlines it and every console preview frame
 * (live, saved, published, the publish diff) uses it unchanged, so a width the console shows is
 * the layout a reader at that width gets.
 */
export const READER_STYLESHEET = ARTICLE_CSS + READER_CSS;
