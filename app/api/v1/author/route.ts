import { errorResponse } from '@/server/http/rest-adapter';
import { notFound } from '@/server/errors';

/** The bare prefix is not a route; answer in the contract's error shape, not Next's HTML 404. */
export const dynamic = 'force-dynamic';

const answer = () => errorResponse(notFound('Not found'), new Headers());
export { answer as GET, answer as POST, answer as PATCH, answer as PUT, answer as DELETE };
