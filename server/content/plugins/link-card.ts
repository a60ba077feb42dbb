/**
 * Island "Link card" (docs/api.md): `a.dp-link-card[href][target][rel][data-dp-link-card]` holding
 * `div.dp-link-card__body` (title, desc, domain with optional favicon and label) and an optional
 * `div.dp-link-card__media`. The card is rebuilt from validated values only: texts become plain
 * text, the favicon and the media exist only with a stored `/api/media/<uuid>` address (otherwise
 * the element is omitted), and the media style is regenerated, never copied (no author CSS).
 * A card without an absolute http(s) href is dropped.
 */
import type { Element, ElementContent, Root } from '../hast';
import { descendants, element, hasClass, rewriteElements, text, textContent } from '../hast';
import { markBuilt } from '../context';
import { absoluteHttpUrl, localMediaPath, localMediaUuid } from '../urls';
import { UUID_SOURCE } from '../../foundation/uuid';

const MEDIA_URL = new RegExp(`url\\(\\s*['"]?/api/media/(${UUID_SOURCE})['"]?\\s*\\)`, 'i');

const collapse = (value: string) => value.replace(/\s+/g, ' ').trim();

function part(parts: Element[], className: string): Element | undefined {
  return parts.find((el) => hasClass(el, className));
}

function textDiv(className: string, source: Element | undefined): Element {
  const value = source ? collapse(textContent(source)) : '';
  return markBuilt(element('div', { className: [className] }, value ? [text(value)] : []));
}

function favicon(source: Element | undefined): Element | undefined {
  const uuid = source && localMediaUuid(source.properties.src);
  if (!source || !uuid) return undefined;
  const properties: Element['properties'] = { className: ['dp-link-card__favicon'], src: localMediaPath(uuid) };
  if (typeof source.properties.alt === 'string') properties.alt = source.properties.alt;
  if (source.properties.width !== undefined) properties.width = source.properties.width;
  if (source.properties.height !== undefined) properties.height = source.properties.height;
  return markBuilt(element('img', properties));
}

function media(source: Element | undefined): Element | undefined {
  const style = source?.properties.style;
  const match = typeof style === 'string' ? MEDIA_URL.exec(style) : null;
  const uuid = match && localMediaUuid(localMediaPath(match[1]!));
  if (!uuid) return undefined;
  return markBuilt(
    element('div', {
      className: ['dp-link-card__media'],
      style: `background-image:url(${localMediaPath(uuid)})`,
      role: 'presentation',
    }),
  );
}

function rebuildLinkCard(card: Element): Element | undefined {
  const href = absoluteHttpUrl(card.properties.href);
  if (!href) return undefined;
  const parts = descendants(card);
  const domainChildren: ElementContent[] = [];
  const icon = favicon(parts.find((el) => el.tagName === 'img' && hasClass(el, 'dp-link-card__favicon')));
  if (icon) domainChildren.push(icon);
  const label = part(parts, 'dp-link-card__domain-label');
  const labelText = label ? collapse(textContent(label)) : '';
  domainChildren.push(
    markBuilt(element('span', { className: ['dp-link-card__domain-label'] }, labelText ? [text(labelText)] : [])),
  );
  const body = markBuilt(
    element('div', { className: ['dp-link-card__body'] }, [
      textDiv('dp-link-card__title', part(parts, 'dp-link-card__title')),
      textDiv('dp-link-card__desc', part(parts, 'dp-link-card__desc')),
      markBuilt(element('div', { className: ['dp-link-card__domain'] }, domainChildren)),
    ]),
  );
  const children: ElementContent[] = [body];
  const picture = media(part(parts, 'dp-link-card__media'));
  if (picture) children.push(picture);
  return markBuilt(
    element(
      'a',
      {
        className: ['dp-link-card'],
        href,
        target: '_blank',
        rel: ['noopener', 'noreferrer'],
        dataDpLinkCard: '',
      },
      children,
    ),
  );
}

export default function rehypeLinkCard() {
  return (tree: Root) => {
    rewriteElements(tree, (el) => (el.tagName === 'a' && hasClass(el, 'dp-link-card') ? rebuildLinkCard(el) : el));
  };
}
