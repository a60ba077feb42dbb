/**
 * Success statuses that are not 200 (contract: "Endpoints"). trpc-to-openapi has no per-route
 * status in its meta, so the adapter looks the procedure up here.
 */
export const SUCCESS_STATUS: Record<string, 201 | 204> = {
  'posts.create': 201,
  'posts.unpublish': 204,
  'posts.delete': 204,
};
