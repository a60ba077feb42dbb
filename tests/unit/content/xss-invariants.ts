/**
 * The safety invariants every output must satisfy, checked on the parsed output (parse5), not by
 * string matching: only allowlisted elements; no event handler; no URL with another scheme than
 * http(s) (or a stored media path); iframes only on allowlisted hosts; style only as the link
 * card's regenerated background image.
 */
import type { Element } from 'hast';
import { GENERIC_EMBED_HOSTS } from '../../../server/content/embed-allowlist';
import { EMBED_REFERRER_POLICY, EMBED_SANDBOX } from '../../../server/content/plugins/iframe';
import { elements, parseHtml } from './render';

const ALLOWED_TAGS = new Set([
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'p',
  'br',
  'hr',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'img',
  'table',
  'tbody',
  'tr',
  'td',
  'th',
  'figure',
  'figcaption',
  'div',
  'span',
  'iframe',
  'video',
  'details',
  'summary',
]);
const URL_PROPERTIES = [
  'href',
  'src',
  'action',
  'formAction',
  'poster',
  'background',
  'srcSet',
  'data',
  'xLinkHref',
  'cite',
  'longDesc',
];
const SAFE_URL = /^(https?:\/\/[^\s]+|\/api\/media\/[0-9a-f-]{36})$/;
const MEDIA_STYLE = /^background-image:url\(\/api\/media\/[0-9a-f-]{36}\)$/;

export function safetyViolations(html: string): string[] {
  const problems: string[] = [];
  for (const el of elements(parseHtml(html)) as Element[]) {
    if (!ALLOWED_TAGS.has(el.tagName)) problems.push(`element <${el.tagName}>`);
    for (const [name, value] of Object.entries(el.properties)) {
      if (/^on/i.test(name)) problems.push(`handler ${name} on <${el.tagName}>`);
      if (URL_PROPERTIES.includes(name) && !SAFE_URL.test(String(value)))
        problems.push(`${name}=${String(value)} on <${el.tagName}>`);
      if (name === 'style' && !MEDIA_STYLE.test(String(value))) problems.push(`style=${String(value)}`);
      if (/^(javascript|vbscript|data):/i.test(String(value).replace(/[\s\u0000-\u001f]/g, '')))
        problems.push(`${name} carries a script URL`);
    }
    if (el.tagName === 'iframe') {
      const url = new URL(String(el.properties.src));
      if (!GENERIC_EMBED_HOSTS.includes(url.hostname)) problems.push(`iframe host ${url.hostname}`);
      if (url.username || url.password) problems.push(`iframe src with user-info ${url.href}`);
      const sandbox = Array.isArray(el.properties.sandbox) ? el.properties.sandbox.join(' ') : '';
      if (sandbox !== EMBED_SANDBOX.join(' ')) problems.push(`iframe sandbox "${sandbox}"`);
      if (el.properties.referrerPolicy !== EMBED_REFERRER_POLICY)
        problems.push(`iframe referrerpolicy ${String(el.properties.referrerPolicy)}`);
    }
  }
  return problems;
}
