// A piscina worker for worker-ports.test.ts: takes a task's `started` port as worker.ts does
// (says it started, closes the port), and on request counts the MessagePorts its heap still holds
// (v8.queryObjects runs a full garbage collection first).
import v8 from 'node:v8';
import { MessagePort } from 'node:worker_threads';

export default function task({ started, count }) {
  if (started) {
    started.postMessage('started');
    started.close();
  }
  return count ? v8.queryObjects(MessagePort, { format: 'count' }) : null;
}
