/**
 * Island "GIF" (docs/api.md): `div.dp-gif[data-gif=<uuid>] > video[src=/api/media/<uuid>][autoplay][loop]
 * [muted][playsinline]`. Valid only when the video is a stored file and `data-gif` names the same
 * uuid (the wrapper may not name one file while the player shows another); an external GIF must
 * be stored first, so anything else is dropped.
 */
import type { Element, Root } from '../hast';
import { descendants, element, hasClass, rewriteElements } from '../hast';
import { markBuilt } from '../context';
import { localMediaPath, localMediaUuid } from '../urls';

function rebuildGif(wrapper: Element): Element | undefined {
  const video = descendants(wrapper).find((el) => el.tagName === 'video');
  const uuid = video && localMediaUuid(video.properties.src);
  const declared =
    typeof wrapper.properties.dataGif === 'string' ? wrapper.properties.dataGif.toLowerCase() : undefined;
  if (!uuid || declared !== uuid) return undefined;
  const player = markBuilt(
    element('video', { src: localMediaPath(uuid), autoPlay: true, loop: true, muted: true, playsInline: true }),
  );
  return markBuilt(element('div', { className: ['dp-gif'], dataGif: uuid }, [player]));
}

export default function rehypeGif() {
  return (tree: Root) => {
    rewriteElements(tree, (el) => (el.tagName === 'div' && hasClass(el, 'dp-gif') ? rebuildGif(el) : el));
  };
}
