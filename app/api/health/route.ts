import { checkHealth } from '@/server/health';

/** CONTRACT.md: 200 when the database answers, 503 otherwise. No auth. */
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET() {
  const health = await checkHealth();
  return Response.json(health, { status: health.status === 'ok' ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}
