import { hostname } from 'node:os';
import { describeError } from '../errors.js';
import type { ProcessorLog } from './processor-types.js';
import type { JobStore } from './store.js';

export interface Presence {
  /** Say this worker is gone (its row removed), and stop saying it is alive. */
  stop(): Promise<void>;
}

/**
 * A worker process says it is alive in the `workers` table, busy or idle, every `heartbeatMs`, holding a lease of
 * `leaseMs`: `/metrics` counts the workers whose lease has not run out, and shows when each last beat.
 */
export function startPresence(
  store: JobStore,
  options: { workerId: string; concurrency: number; leaseMs: number; heartbeatMs: number; log: ProcessorLog },
): Presence {
  const startedAt = Date.now();
  const beat = (): Promise<void> => {
    const now = Date.now();
    return store
      .workerAlive({
        workerId: options.workerId,
        host: hostname(),
        pid: process.pid,
        concurrency: options.concurrency,
        startedAt,
        heartbeat: now,
        leaseUntil: now + options.leaseMs,
      })
      .catch((e: unknown) => options.log.warn({ err: describeError(e) }, 'worker heartbeat failed'));
  };
  let last = beat();
  const timer = setInterval(() => {
    last = last.then(beat);
  }, options.heartbeatMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await last;
      await store.removeWorker(options.workerId).catch((e: unknown) => options.log.warn({ err: describeError(e) }, 'worker could not sign off'));
    },
  };
}
