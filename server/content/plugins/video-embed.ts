/**
 * Island "Video embed" (docs/api.md): `div[data-video][data-provider=<id>][data-source=embed] > iframe`
 * whose src is that provider's embed address (embed-allowlist.ts). The provider is taken from
 * the validated address; a direct video file or an unknown host drops the island.
 */
import type { Element, Root } from '../hast';
import { descendants, element, rewriteElements } from '../hast';
import { markBuilt } from '../context';
import { VIDEO_PROVIDERS, type VideoProvider } from '../embed-allowlist';
import { buildIframe, httpsUrl } from './iframe';

function videoProviderOf(url: URL): VideoProvider | undefined {
  return VIDEO_PROVIDERS.find(
    (provider) =>
      provider.hosts.includes(url.hostname) &&
      url.port === '' &&
      provider.embedPath.test(url.pathname) &&
      (provider.requiredQuery ?? []).every((name) => url.searchParams.has(name)),
  );
}

function rebuildVideoEmbed(wrapper: Element): Element | undefined {
  const iframe = descendants(wrapper).find((el) => el.tagName === 'iframe');
  const url = iframe && httpsUrl(iframe.properties.src);
  const provider = url && videoProviderOf(url);
  if (!iframe || !url || !provider) return undefined;
  return markBuilt(
    element('div', { dataVideo: '', dataProvider: provider.id, dataSource: 'embed' }, [buildIframe(iframe, url)]),
  );
}

export default function rehypeVideoEmbed() {
  return (tree: Root) => {
    rewriteElements(tree, (el) =>
      el.tagName === 'div' && el.properties.dataVideo !== undefined ? rebuildVideoEmbed(el) : el,
    );
  };
}
