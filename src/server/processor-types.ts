import type { ConvertEngine } from '../convert/index.js';
import type { Clock } from './clock.js';
import type { Retention } from './config.js';
import type { Job, JobStatus, JobStore } from './store.js';

export interface ProcessorLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface TickResult {
  jobId: string;
  status: JobStatus;
}

/**
 * What is done with a parked job's remote OCR batch (its job waits in `ocr_pending`): `/check` and `/get` poll it at
 * once, the ticker on its schedule, and it is cancelled before the job is cancelled or deleted. The processor's own
 * polls through the engine (`ocr-poller.ts`); a test of the routes alone may stand in for it.
 */
export interface OcrBatch {
  /** Ask the service for the batch's result, and end the job when it has one; `scheduled` moves the schedule on. */
  poll(job: Job, scheduled: boolean): Promise<TickResult | void>;
  /** Cancel the batch on the service's side; a failure is logged, never thrown (the job goes anyway). */
  cancel(job: Job): Promise<void>;
}

export interface ProcessorOptions {
  store: JobStore;
  dataDir: string;
  /** Converts a job, and polls or cancels the OCR batch of a parked one. */
  engine: ConvertEngine;
  log: ProcessorLog;
  /** Identifies this worker in the jobs table: `host:pid:nonce`. */
  workerId?: string;
  /**
   * How long this worker holds a job without renewing its lease (default a minute); another worker takes the job
   * back once it has run out. Renewed every `heartbeatMs` (default a third of it, at most 5 s).
   */
  leaseMs?: number;
  heartbeatMs?: number;
  /** Attempts of one job (a crash, a lost lease or an unexpected fault ends one) before it fails; default 3. */
  maxAttempts?: number;
  /**
   * Poll parked OCR batches and apply retention on the background ticker (default true); of several processors in
   * one process, one does it.
   */
  housekeeping?: boolean;
  /** Pipeline threads per job; default the number of cores. */
  workers?: number;
  /** A job still converting after this long is stopped at its next frame and failed; default none. */
  jobTimeMs?: number;
  /** Stands in for the processor's own batch poller (tests of the routes alone). */
  ocrBatch?: OcrBatch;
  /** What decides leases, retries, the OCR batch schedule and retention (default the wall clock). */
  clock?: Clock;
  /** Called once a job is done (the completion email); errors are logged, never fatal. */
  onDone?: (job: Job) => Promise<void>;
  /** No job starts while the data folder's disk has less than this free (bytes); default 0. */
  minFreeDisk?: number;
  /** How long a job put back for a full disk, or for another attempt, waits before it runs again; default a minute. */
  retryMs?: number;
  /** How long a job's files are kept once it ended (see `retention.ts`). */
  retention?: Retention;
  /** Polls of parked OCR batches running at once, beside the queue; default 2. */
  pollConcurrency?: number;
  /** A poll a client asks for (`/check`) is not repeated for the same job within this; default 10 s. */
  clientPollEveryMs?: number;
}

export interface Processor {
  readonly workerId: string;
  /**
   * One step of everything, for a test driving the worker by hand: poll the parked jobs that are due, beside taking
   * back orphaned jobs and running the next ready job to its end; the job's result, or null when none was ready.
   */
  tick(): Promise<TickResult | null>;
  /** Take back orphaned jobs, then claim the next ready job and run it to its end (what the background loop does). */
  runNext(): Promise<TickResult | null>;
  /**
   * Run ticks in the background: right after a job ends, else every `intervalMs`, or at once when the store tells of a
   * job queued by another process (PostgreSQL).
   */
  start(intervalMs: number): void;
  /** Tick soon (a job was just submitted). */
  kick(): void;
  /** Stop the job this worker runs, if it is `jobId` (cancelled or deleted): it ends at the next frame boundary. */
  abort(jobId: string): void;
  /** Ask the parked OCR batch of a job for its result now, and wait for the answer; the schedule is left as it is. */
  poll(job: Job): Promise<void>;
  /**
   * A client asked about a parked job (`/check`, `/get`): poll its batch in the background, unless a poll of it is
   * running or one ran within the last few seconds. Returns at once; the answer is read from the database.
   */
  requestPoll(job: Job): void;
  /** Apply the retention setting: remove uploads and outputs of jobs that ended long enough ago. */
  sweep(now?: number): Promise<number>;
  /** Resolves once no poll of a parked job is running (those `requestPoll` started included). */
  pollsSettled(): Promise<void>;
  /** Poll the parked jobs whose scheduled poll is due (part of every tick). */
  pollDue(): Promise<TickResult[]>;
  /** Cancel a parked job's batch on the service's side; a failure is logged, never thrown (the job goes anyway). */
  cancelBatch(job: Job): Promise<void>;
  /**
   * Shut down: take no new job, stop the running one at its next frame boundary and put it back to `pending`,
   * waiting at most `graceMs` for it.
   */
  stop(graceMs: number): Promise<void>;
  /**
   * After `stop`: resolves once the run left past the grace period has ended too (the job processes were ended
   * meanwhile, so it ends at once, its project removed), or after `graceMs` more.
   */
  finished(graceMs: number): Promise<void>;
}
