import { handleRestRequest } from '@/server/http/rest-adapter';

/** Every /api/v1/author route except the multipart upload goes through the tRPC adapter. */
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = handleRestRequest;
export const POST = handleRestRequest;
export const PATCH = handleRestRequest;
export const PUT = handleRestRequest;
export const DELETE = handleRestRequest;
