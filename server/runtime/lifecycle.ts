/**
 * The process's state as its health check tells it, and what runs at shutdown: starting (the
 * console's routes still loading, next-warm-up.ts), serving, draining (after SIGTERM, for
 * SHUTDOWN_DRAIN_MS). Held by the composition root (create-app.ts) and handed to whoever needs it.
 */
type Hook = () => Promise<void> | void;

export class Lifecycle {
  private starting = false;
  private draining = false;
  private hooks: Hook[] = [];

  /**
   * From the moment the listener opens until the console's routes are loaded: requests are
   * served, but /api/health answers 503, so no proxy sends readers here while the first request
   * of a route would still hold the event loop for seconds.
   */
  beginStarting(): void {
    this.starting = true;
  }

  endStarting(): void {
    this.starting = false;
  }

  /**
   * From SIGTERM until the listener closes (SHUTDOWN_DRAIN_MS): requests are still served, but
   * /api/health answers 503 so a proxy's health check moves traffic to the other instances first.
   */
  beginDraining(): void {
    this.draining = true;
  }

  /** Whether /api/health should answer 503 whatever the database says. */
  get unready(): boolean {
    return this.starting || this.draining;
  }

  onShutdown(hook: Hook): void {
    this.hooks.push(hook);
  }

  async runShutdownHooks(): Promise<void> {
    const hooks = this.hooks;
    this.hooks = [];
    await Promise.allSettled(hooks.map((h) => h()));
  }
}
