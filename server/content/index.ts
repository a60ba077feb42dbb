/** Content pipeline: Markdown + HTML islands -> sanitized HTML (docs/api.md "Article body"). */
export type { RenderInput } from './types';
export { ContentRejectedError, ConversionBusyError } from './errors';
export { renderArticleSync } from './pipeline';
export { ContentPool, contentPoolSettings, type Conversions } from './pool';
export { conversionsOverPort, serveConversions } from './conversions-link';
export { rewriteImageSourcesSync, storedMediaReferences } from './rewrite';
export { absoluteHttpUrl, localMediaPath, localMediaUuid } from './urls';
export { pointsAtThisService } from './self-origins';
