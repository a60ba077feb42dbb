/**
 * An article's state (docs/api.md "States and moderation"): what the posts rows hold
 * (server/data/posts/rows.ts), the API returns and the console filters and labels by.
 */
export type PostStatus = 'draft' | 'pending_moderation' | 'published';
