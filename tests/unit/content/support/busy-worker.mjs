// Worker threads start without vitest's TypeScript transform: load busy-worker.ts through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./busy-worker.ts');
