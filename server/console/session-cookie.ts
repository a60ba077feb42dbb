/**
 * The console session cookie's name, in a module of its own (no `server-only`, no database):
 * the launcher's warm-up sends one too (server/runtime/next-warm-up.ts).
 */
export const SESSION_COOKIE = 'dp_console';
