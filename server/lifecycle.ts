/**
 * Shutdown hooks shared between the launcher and the code Next bundles: both are loaded in
 * one process but as separate module instances, so the registry lives on globalThis.
 */
type Hook = () => Promise<void> | void;
const registry = globalThis as unknown as { __publishingShutdownHooks?: Hook[] };

export function onShutdown(hook: Hook): void {
  (registry.__publishingShutdownHooks ??= []).push(hook);
}

export async function runShutdownHooks(): Promise<void> {
  const hooks = registry.__publishingShutdownHooks ?? [];
  registry.__publishingShutdownHooks = [];
  await Promise.allSettled(hooks.map((h) => h()));
}
