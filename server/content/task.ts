/** Messages between pool.ts and worker.ts (plain data: class identity does not cross threads). */
import type { MessagePort } from 'node:worker_threads';
import type { RenderInput, RenderOutput } from './types';

export interface RenderTask {
  input: RenderInput;
  /** The worker posts one message here when it starts, so queueing time is not budget time. */
  started: MessagePort;
}

/** Image source substitution in already converted html (rewrite.ts). */
export interface RewriteTask {
  rewrite: { html: string; rehosted: Record<string, string> };
  started: MessagePort;
}

export type RenderResult = { ok: true; output: RenderOutput } | { ok: false; rejection: string };
export type RewriteResult = { ok: true; html: string } | { ok: false; rejection: string };
