/**
 * Shutdown hooks shared between the launcher and the code Next bundles: both are loaded in
 * one process but as separate module instances, so the registry lives on globalThis.
 */
type Hook = () => Promise<void> | void;
const registry = globalThis as unknown as { __publishingShutdownHooks?: Hook[]; __publishingDraining?: boolean };

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
