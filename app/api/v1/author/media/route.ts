import { handleMediaUpload, mediaMethodNotFound } from '@/server/http/media-upload';

/**
 * POST /api/v1/author/media: the multipart upload. A static segment wins over the [...trpc]
 * catch-all, so this handler owns the path; /media/from-url still goes to the catch-all.
 */
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const POST = handleMediaUpload;
export const GET = mediaMethodNotFound;
export const PUT = mediaMethodNotFound;
export const PATCH = mediaMethodNotFound;
export const DELETE = mediaMethodNotFound;
