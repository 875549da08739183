import { describeError } from '../errors.js';
import type { Clock } from './clock.js';
import type { ProcessorLog } from './processor-types.js';
import { jobTag } from './secrets.js';
import type { JobStore, Progress } from './store.js';

export interface LeaseOptions {
  store: JobStore;
  jobId: string;
  workerId: string;
  leaseMs: number;
  /** Renewed this often, and with every progress report. */
  heartbeatMs: number;
  clock: Clock;
  log: ProcessorLog;
  /** The lease as the claim left it. */
  leaseUntil: number;
  /** The job is no longer this worker's (the store said so, or the database did not answer for a whole lease). */
  onLost(): void;
}

export interface Lease {
  /** Renew now, with progress for `/check` when given. */
  renew(progress?: Progress): void;
  /** Stop renewing (the job ended or left this worker's hands). */
  release(): void;
}

/** Hold a job's lease while a worker has it: renewed on a timer and with each progress report. */
export function holdLease(options: LeaseOptions): Lease {
  const { store, jobId, workerId, leaseMs, clock, log } = options;
  // The lease as this worker last renewed it: past it without a renewal, another worker may have the job.
  let leaseUntil = options.leaseUntil;
  // One write at a time, the latest progress only: on a networked store, writes in flight must not land out of order.
  let writing: Promise<void> | null = null;
  let next: { progress?: Progress } | null = null;
  const write = async (progress?: Progress): Promise<void> => {
    const at = clock();
    try {
      if (!(await store.heartbeat(jobId, workerId, at, progress, leaseMs))) return options.onLost();
      leaseUntil = Math.max(leaseUntil, at + leaseMs);
    } catch (e) {
      log.warn({ job: jobTag(jobId), err: describeError(e) }, progress ? 'progress update failed' : 'lease renewal failed');
      // The database did not answer for a whole lease: the job may be running elsewhere by now.
      if (clock() > leaseUntil) options.onLost();
    }
  };
  const renew = (progress?: Progress): void => {
    // A plain renewal queued behind a progress write adds nothing; progress replaces whatever is queued.
    if (!next || progress) next = { ...(progress ? { progress } : next) };
    if (writing) return;
    writing = (async () => {
      while (next) {
        const { progress: p } = next;
        next = null;
        await write(p);
      }
      writing = null;
    })();
  };
  const timer = setInterval(() => renew(), options.heartbeatMs);
  timer.unref();
  return { renew, release: () => clearInterval(timer) };
}
