import { VIDEO_PROVIDERS } from '@/server/content/embed-allowlist';

/**
 * Markup of each HTML island of the contract (docs/api.md "HTML islands"), built from the values
 * the insert menu asks for. Texts and addresses are escaped; each island is one raw HTML block
 * with no blank line inside, surrounded by blank lines when inserted, as Markdown needs.
 */

export type IslandKind = 'image' | 'gallery' | 'video' | 'embed' | 'link-card' | 'spoiler' | 'gif';

export const ISLANDS: { kind: IslandKind; label: string }[] = [
  { kind: 'image', label: 'Captioned image' },
  { kind: 'gallery', label: 'Gallery' },
  { kind: 'video', label: 'Video embed' },
  { kind: 'embed', label: 'Generic embed' },
  { kind: 'link-card', label: 'Link card' },
  { kind: 'spoiler', label: 'Spoiler' },
  { kind: 'gif', label: 'GIF' },
];

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Text for inside an island: one line, since a blank line would end the raw HTML block. */
function line(text: string): string {
  return esc(text.replace(/\s+/g, ' ').trim());
}

export function mediaUrl(id: string): string {
  return `/api/media/${id}`;
}

function figure(id: string, alt: string, caption: string): string {
  const cap = caption.trim() ? `<figcaption class="dp-figure__caption">${line(caption)}</figcaption>` : '';
  return `<figure class="dp-figure"><img src="${mediaUrl(id)}" alt="${line(alt)}">${cap}</figure>`;
}

export function captionedImage(id: string, alt: string, caption: string): string {
  return figure(id, alt, caption);
}

export function gallery(ids: string[], caption: string): string {
  const cap = caption.trim() ? `<figcaption class="dp-figure__caption">${line(caption)}</figcaption>` : '';
  return `<figure class="dp-gallery"><div class="dp-gallery__items">${ids.map((id) => figure(id, '', '')).join('')}</div>${cap}</figure>`;
}

/** The provider of a player address, or null when no provider of the allowlist plays it. */
function videoProvider(src: string): string | null {
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:') return null;
  const provider = VIDEO_PROVIDERS.find(
    (p) =>
      p.hosts.includes(url.hostname) &&
      p.embedPath.test(url.pathname) &&
      (p.requiredQuery ?? []).every((q) => url.searchParams.has(q)),
  );
  return provider?.id ?? null;
}

/**
 * The address people copy from YouTube's address bar or share button (watch?v=…, youtu.be/…,
 * shorts/…) turned into its player address; any other address is returned as it is.
 */
export function playerAddress(src: string): string {
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return src;
  }
  const host = url.hostname.replace(/^(www\.|m\.)/, '');
  let id: string | null = null;
  if (host === 'youtube.com' && url.pathname === '/watch') id = url.searchParams.get('v');
  else if (host === 'youtube.com' && url.pathname.startsWith('/shorts/')) id = url.pathname.split('/')[2] ?? null;
  else if (host === 'youtu.be') id = url.pathname.slice(1);
  if (!id || !/^[\w-]{6,20}$/.test(id)) return src;
  const start = /^(\d+)s?$/.exec(url.searchParams.get('t') ?? url.searchParams.get('start') ?? '')?.[1];
  return `https://www.youtube.com/embed/${id}${start ? `?start=${start}` : ''}`;
}

export function videoEmbed(address: string): string {
  const src = playerAddress(address);
  const provider = videoProvider(src);
  if (!provider)
    throw new Error(
      'This is not the address of a video on a known provider (for YouTube: the address of the video’s page, https://www.youtube.com/watch?v=…).',
    );
  return `<div data-video data-provider="${provider}" data-source="embed"><iframe src="${esc(src)}"></iframe></div>`;
}

export function genericEmbed(src: string, title: string): string {
  if (!/^https:\/\//.test(src)) throw new Error('An embed address starts with https://.');
  return `<div class="dp-embed" data-dp-embed><iframe src="${esc(src)}" loading="lazy" allowfullscreen title="${line(title)}"></iframe></div>`;
}

export function linkCard(href: string, title: string, description: string): string {
  if (!/^https?:\/\//.test(href)) throw new Error('A link card needs an address starting with http:// or https://.');
  const host = new URL(href).hostname;
  const desc = description.trim() ? `<div class="dp-link-card__desc">${line(description)}</div>` : '';
  return `<a class="dp-link-card" href="${esc(href)}" data-dp-link-card><div class="dp-link-card__body"><div class="dp-link-card__title">${line(title || host)}</div>${desc}<div class="dp-link-card__domain"><span class="dp-link-card__domain-label">${esc(host)}</span></div></div></a>`;
}

export function spoiler(summary: string, body: string): string {
  return `<details><summary>${line(summary || 'Spoiler')}</summary>${line(body)}</details>`;
}

export function gif(id: string): string {
  return `<div class="dp-gif" data-gif="${id}"><video src="${mediaUrl(id)}" autoplay loop muted playsinline></video></div>`;
}

/** `snippet` placed at the cursor as its own block: blank lines before and after as needed. */
export function insertBlock(
  text: string,
  start: number,
  end: number,
  snippet: string,
): { text: string; cursor: number } {
  const before = text.slice(0, start);
  const after = text.slice(end);
  const lead = before === '' ? '' : before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n';
  const trail = after === '' ? '\n' : after.startsWith('\n\n') ? '' : after.startsWith('\n') ? '\n' : '\n\n';
  const inserted = lead + snippet + trail;
  return { text: before + inserted + after, cursor: before.length + inserted.length };
}
