/**
 * Shutdown hooks shared between the launcher and the code Next bundles: both are loaded in
 * one process but as separate module instances, so the registry lives on globalThis.
 */
type Hook = () => Promise<void> | void;
const registry = globalThis as unknown as {
  __publishingShutdownHooks?: Hook[];
  __publishingDraining?: boolean;
  __publishingStarting?: boolean;
};

/**
 * From the moment the listener opens until the console's routes are loaded (next-warm-up.ts):
 * requests are served, but /api/health answers 503, so no proxy sends readers here while the
 * first request of a route would still hold the event loop for seconds.
 */
export function beginStarting(): void {
  registry.__publishingStarting = true;
}

export function endStarting(): void {
  registry.__publishingStarting = false;
}

export function isStarting(): boolean {
  return registry.__publishingStarting === true;
}

/**
 * From SIGTERM until the listener closes (SHUTDOWN_DRAIN_MS): requests are still served, but
 * /api/health answers 503 so a proxy's health check moves traffic to the other instances first.
 */
export function beginDraining(): void {
  registry.__publishingDraining = true;
}

export function isDraining(): boolean {
  return registry.__publishingDraining === true;
}

export function onShutdown(hook: Hook): void {
  (registry.__publishingShutdownHooks ??= []).push(hook);
}

export async function runShutdownHooks(): Promise<void> {
  const hooks = registry.__publishingShutdownHooks ?? [];
  registry.__publishingShutdownHooks = [];
  await Promise.allSettled(hooks.map((h) => h()));
}
