/**
 * Embed configuration for the "Video embed" and "Generic embed" islands, which keep iframes
 * only for hosts on a server-side allowlist (docs/api.md "HTML islands").
 * Data only: hosts are compared exactly against `new URL(src).hostname`, and the embed is
 * always served over https.
 */

export interface VideoProvider {
  /** Value of `data-provider`. */
  id: string;
  hosts: readonly string[];
  /** Embed addresses only: a player page, never a direct video file (video is shown only through embeds). */
  embedPath: RegExp;
  /** Required query parameters (e.g. VK's player takes the video id in the query). */
  requiredQuery?: readonly string[];
}

export const VIDEO_PROVIDERS: readonly VideoProvider[] = [
  {
    id: 'youtube',
    hosts: ['www.youtube.com', 'youtube.com', 'www.youtube-nocookie.com', 'youtube-nocookie.com'],
    embedPath: /^\/embed\/[\w-]{6,20}$/,
  },
  { id: 'vimeo', hosts: ['player.vimeo.com'], embedPath: /^\/video\/\d{1,12}$/ },
  { id: 'rutube', hosts: ['rutube.ru'], embedPath: /^\/play\/embed\/[\w-]{6,64}\/?$/ },
  { id: 'vk', hosts: ['vk.com', 'vkvideo.ru', 'vk.ru'], embedPath: /^\/video_ext\.php$/, requiredQuery: ['oid', 'id'] },
  {
    id: 'dailymotion',
    hosts: ['www.dailymotion.com', 'dailymotion.com'],
    embedPath: /^\/embed\/video\/[a-zA-Z0-9]{4,20}$/,
  },
  { id: 'dzen', hosts: ['dzen.ru'], embedPath: /^\/embed\/[\w-]{6,64}$/ },
  { id: 'ok', hosts: ['ok.ru'], embedPath: /^\/videoembed\/\d{1,20}$/ },
  { id: 'kinescope', hosts: ['kinescope.io'], embedPath: /^\/embed\/[\w-]{4,64}$/ },
  { id: 'loom', hosts: ['www.loom.com'], embedPath: /^\/embed\/[0-9a-f]{32}$/ },
];

/**
 * Hosts a generic `div.dp-embed[data-dp-embed] > iframe` may point at: a design tool, the video
 * providers above, and specialised embed hosts.
 */
export const GENERIC_EMBED_HOSTS: readonly string[] = [
  // Design tool.
  'www.figma.com',
  'embed.figma.com',
  // Video hosts.
  ...VIDEO_PROVIDERS.flatMap((provider) => provider.hosts),
  // Specialised embed hosts (code playgrounds, audio, charts, slides, diagrams).
  'codepen.io',
  'codesandbox.io',
  'stackblitz.com',
  'jsfiddle.net',
  'replit.com',
  'observablehq.com',
  'open.spotify.com',
  'w.soundcloud.com',
  'embed.music.apple.com',
  'datawrapper.dwcdn.net',
  'flo.uri.sh',
  'www.slideshare.net',
  'docs.google.com',
  'miro.com',
  'app.diagrams.net',
  'viewer.diagrams.net',
];
