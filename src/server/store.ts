/**
 * The job server's storage, behind one small interface: SQLite (`sqlite-store.ts`, the embedded default) and
 * PostgreSQL (`pg-store.ts`, for workers on several machines), both from the same numbered migrations in `sql/`.
 * Every method is async so the networked store fits the same shape.
 */

export const JOB_STATUSES = ['pending', 'processing', 'ocr_pending', 'done', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** States a job can still leave on its own; `/cancel` moves these to `cancelled`. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['pending', 'processing', 'ocr_pending'];

export interface ApiKey {
  keyId: number;
  email: string;
  created: number;
  /** When the key was revoked; null while it is active. */
  revoked: number | null;
}

export interface ApiKeyRow extends ApiKey {
  jobCount: number;
}

export interface Job {
  jobId: string;
  keyId: number;
  status: JobStatus;
  error: string | null;
  emailNotif: boolean;
  ocr: string | null;
  dpi: number | null;
  /** The file name the client uploaded. */
  uploadName: string;
  /** How the upload is stored in the job folder: `input.zip` or `input.pdf`. */
  inputExt: 'zip' | 'pdf';
  /** The document's name, known once the job is done. */
  docName: string | null;
  /** Pages of a done job that look out of focus or shaken (1-based), for the person to take again; null: none. */
  outOfFocus: number[] | null;
  hasMd: boolean;
  pagesDone: number;
  pagesTotal: number | null;
  /** What the running job is doing: `starting`, `pages`, `ocr`, `export` (as its worker last said). */
  progressStep: ProgressStep | null;
  attempts: number;
  workerId: string | null;
  heartbeat: number | null;
  /** The holder's lease runs out at this time (ms); past it, another worker may take the job back. */
  leaseUntil: number | null;
  /** When the job was last claimed (ms). */
  startedAt: number | null;
  /** Why the last attempt ended without finishing, when a later one may still mend it. */
  lastError: string | null;
  /** Where links in notifications point: `base_url`, else the address the job was submitted to. */
  linkBase: string | null;
  /** Posted when the job ends; null when the client asked for none. */
  webhook: JobWebhook | null;
  created: number;
  updated: number;
  /** `ocr_pending`: the service's batch ids, when the batch was submitted and when the ticker polls it next (ms). */
  ocrBatchIds: string[] | null;
  ocrSubmittedAt: number | null;
  ocrNextPollAt: number | null;
  /** A pending job put back after a transient cause is not run before this (ms), and says why in `notice`. */
  runAfter: number | null;
  notice: string | null;
  /** Bytes the job keeps on disk (its upload, its outputs); 0 once removed. */
  inputBytes: number;
  outputBytes: number;
  /** When it ended (done, failed, cancelled), ms; retention counts from here. */
  endedAt: number | null;
  /** Retention removed the outputs of this done job. */
  expired: boolean;
}

/** What parks a job in `ocr_pending`. */
export interface OcrPark {
  batchIds: string[];
  submittedAt: number;
  nextPollAt: number;
}

export const PROGRESS_STEPS = ['starting', 'pages', 'ocr', 'export'] as const;
export type ProgressStep = (typeof PROGRESS_STEPS)[number];

/** A webhook's state: `waiting` for the job to end, then `pending` (being delivered), `delivered` or `failed`. */
export type WebhookState = 'waiting' | 'pending' | 'delivered' | 'failed';

export interface WebhookAttempt {
  /** When it was made (ms). */
  at: number;
  /** The receiver's HTTP status; null when none came (refused, unreachable, timed out). */
  status: number | null;
  error: string | null;
}

export interface JobWebhook {
  url: string;
  state: WebhookState;
  /** When the next attempt is due (ms), while `pending`. */
  nextAt: number | null;
  attempts: WebhookAttempt[];
}

/** A webhook delivery a sender holds: the job as it ended, and its key's signing secret. */
export interface DueWebhook {
  job: Job;
  secret: string | null;
}

export type NewJob = Pick<Job, 'jobId' | 'keyId' | 'emailNotif' | 'ocr' | 'dpi' | 'uploadName' | 'inputExt'> & {
  inputBytes?: number;
  webhookUrl?: string | null;
  linkBase?: string | null;
};

/** Progress as a worker reports it. */
export interface Progress {
  pagesDone: number;
  pagesTotal: number | null;
  step?: ProgressStep;
}

/** A worker process as it says it is alive (`workers` table). */
export interface WorkerRow {
  workerId: string;
  host: string;
  pid: number;
  concurrency: number;
  startedAt: number;
  heartbeat: number;
  leaseUntil: number;
}

/** Something another process did that a worker should act on at once. */
export interface StoreEvent {
  type: 'queued' | 'stop';
  /** `stop`: the job that was cancelled or deleted. */
  jobId?: string;
}

/** How long a worker holds a job without renewing its lease, unless told otherwise. */
export const DEFAULT_LEASE_MS = 60_000;

/** How a worker ends a job it holds. */
export type JobOutcome =
  { status: 'done'; docName: string; hasMd: boolean; pages: number; outputBytes?: number; outOfFocus?: number[] } | { status: 'failed'; error: string };

export interface JobStore {
  getConfig(key: string): Promise<string | null>;
  setConfig(key: string, value: string): Promise<void>;
  deleteConfig(key: string): Promise<void>;
  /** Store `value` unless the key is set already; returns the value that is stored now (first writer wins). */
  setConfigOnce(key: string, value: string): Promise<string>;

  /** A new key; `webhookSecret` signs its webhooks. */
  createKey(email: string, keyHash: string, now: number, webhookSecret?: string): Promise<ApiKey>;
  /** The secret a key's webhooks are signed with; null for a key made before webhooks existed. */
  getWebhookSecret(keyId: number): Promise<string | null>;
  getKey(keyId: number): Promise<ApiKey | null>;
  /** The active key with this hash, or null for an unknown or revoked one. */
  findActiveKey(keyHash: string): Promise<ApiKey | null>;
  /** Returns the key, or null when there is no such key; revoking twice keeps the first time. */
  revokeKey(keyId: number, now: number): Promise<ApiKey | null>;
  listKeys(): Promise<ApiKeyRow[]>;

  insertJob(job: NewJob, now: number): Promise<Job>;
  getJob(jobId: string): Promise<Job | null>;
  /** The key's jobs, newest first. */
  listJobs(keyId: number, limit?: number): Promise<Job[]>;
  /**
   * The key's jobs, newest first, as `/list` shows them: a JSON array of `{ job_id, status, created, updated, ocr,
   * error }`, times in ISO 8601 UTC with milliseconds. Built by the database itself, because a key with 10,000
   * jobs must still list in a few milliseconds.
   */
  listJobsJson(keyId: number, limit?: number): Promise<string>;
  /**
   * One page of `/list`: at most `limit` of the key's jobs, newest first, from the `cursor` of the page before
   * (null: the newest); `next` is the cursor of the following page, null on the last.
   */
  listJobsPage(keyId: number, limit: number, cursor: number | null): Promise<{ json: string; next: number | null }>;
  countJobsByStatus(): Promise<Record<JobStatus, number>>;
  /** A key's jobs waiting to run (`pending`) and the bytes its jobs keep on disk, for its quotas. */
  keyUsage(keyId: number): Promise<{ queued: number; storedBytes: number }>;
  /** Jobs some worker holds, for finding the ones whose worker died. */
  listProcessing(): Promise<Job[]>;

  /**
   * Move a pending job to `processing` for `workerId` atomically and return it, or null when none is ready. Keys
   * take turns (the oldest pending job of the key served longest ago), so one key's long queue never holds up
   * another's; a job whose `runAfter` is still ahead waits. Two workers on one database never get the same job.
   * The worker holds it for `leaseMs` (default a minute) unless it renews the lease (`heartbeat`).
   */
  claimNextJob(workerId: string, now: number, leaseMs?: number): Promise<Job | null>;
  /**
   * Move a job the worker holds from `processing` to `ocr_pending` (its OCR batch was submitted), letting go of it;
   * false when it no longer holds it.
   */
  parkJob(jobId: string, workerId: string, park: OcrPark, now: number): Promise<boolean>;
  /** `ocr_pending` jobs whose next poll is due at `clockNow` (the OCR schedule's clock), oldest first. */
  listDueOcrJobs(clockNow: number, limit?: number): Promise<Job[]>;
  /**
   * Take an `ocr_pending` job for one poll, for `leaseMs`: no other worker holds it, or its holder's lease ran out.
   * Held like a processing job (heartbeat, `finishJob`); returns it, or null when it is not there to take.
   */
  leaseOcrJob(jobId: string, workerId: string, now: number, leaseMs: number): Promise<Job | null>;
  /** Let go of a leased `ocr_pending` job, setting its next poll when given; false when the worker no longer holds it. */
  releaseOcrJob(jobId: string, workerId: string, nextPollAt: number | null, now: number): Promise<boolean>;
  /**
   * Renew the lease for `leaseMs` from `now` (default a minute) and record progress; false when the worker no longer
   * holds the job (cancelled, deleted, taken back).
   */
  heartbeat(jobId: string, workerId: string, now: number, progress?: Progress, leaseMs?: number): Promise<boolean>;
  /** End a job the worker holds (`processing`, or `ocr_pending` under a poll's lease); false when it no longer holds it. */
  finishJob(jobId: string, workerId: string, outcome: JobOutcome, now: number): Promise<boolean>;
  /**
   * Put a held job back to `pending` (shutdown, or its worker died). `refundAttempt` when the stop was not the
   * job's doing (a graceful shutdown). `fromWorker` is the worker seen holding it, so a job another worker holds by now is left alone.
   */
  requeueJob(jobId: string, fromWorker: string, now: number, refundAttempt: boolean): Promise<boolean>;
  /**
   * Put a job the worker holds back to `pending` after a transient cause (a full disk): not run again before
   * `runAfter`, `notice` saying why; the attempt is given back.
   */
  deferJob(jobId: string, workerId: string, runAfter: number, notice: string, now: number): Promise<boolean>;
  /**
   * Take back a job whose worker is gone (`seen` as it was read, holder and lease included; a holder that renewed
   * since keeps it): back to `pending` with `lastError`, or `failed` with `finalError` once it had `maxAttempts`.
   * Returns the new status, or null when the job was not taken back.
   */
  reclaimJob(seen: Job, now: number, maxAttempts: number, lastError: string, finalError: string): Promise<'pending' | 'failed' | null>;
  /**
   * Put a job the worker holds back to `pending` after an attempt that failed in a way another may mend, not run
   * again before `runAfter`; `failed` with `error` instead once it had `maxAttempts`. Returns the new status, or null
   * when the worker no longer holds it.
   */
  retryJob(jobId: string, workerId: string, now: number, runAfter: number, maxAttempts: number, error: string): Promise<'pending' | 'failed' | null>;
  /** Move a pending, processing or ocr_pending job of this key to `cancelled`; returns the job as it was, or null. */
  cancelJob(jobId: string, keyId: number, now: number): Promise<Job | null>;
  /** Cancel every pending, processing or ocr_pending job of a key (it was revoked); returns them as they were. */
  cancelKeyJobs(keyId: number, now: number): Promise<Job[]>;
  /** Ended jobs whose upload (`input`) or outputs (`output`) are still kept and ended before `before`, oldest first. */
  listRetained(what: 'input' | 'output', before: number, limit: number): Promise<Job[]>;
  /** Record that the job's upload or outputs were removed (outputs: the job is `expired`). */
  markFilesRemoved(jobId: string, what: 'input' | 'output'): Promise<void>;
  /** Give jobs that ended before `ended_at` existed an end time, so retention can count from it. */
  stampEnded(now: number): Promise<void>;
  /** Remove the job row of this key; returns the job as it was, or null. */
  deleteJob(jobId: string, keyId: number): Promise<Job | null>;
  /** Whether a job row exists, to tell job folders from leftovers. */
  hasJob(jobId: string): Promise<boolean>;

  /** Ask for a poll of a parked job's batch at the next tick of any worker (a client looked at it). */
  requestOcrPoll(jobId: string, clockNow: number): Promise<void>;

  /**
   * Take the most overdue webhook delivery for `leaseMs` (no other sender holds it), or null when none is due.
   * Two senders never hold the same one.
   */
  claimWebhook(senderId: string, now: number, leaseMs: number): Promise<DueWebhook | null>;
  /**
   * Record the delivery attempts of a webhook this sender holds (the new one last), and what comes next: `pending` again at `nextAt`,
   * `delivered` or `failed`. False when the sender no longer holds it.
   */
  recordWebhookAttempt(
    jobId: string,
    senderId: string,
    attempts: WebhookAttempt[],
    next: { state: 'pending'; nextAt: number } | { state: 'delivered' | 'failed' },
  ): Promise<boolean>;

  /** Say this worker process is alive (inserting it the first time); `remove` when it stops. */
  workerAlive(worker: WorkerRow): Promise<void>;
  removeWorker(workerId: string): Promise<void>;
  /** Workers whose lease has not run out at `now`; ones long gone are forgotten. */
  listWorkers(now: number): Promise<WorkerRow[]>;
  /** Add to cluster-wide counters (`/metrics`), creating them at 0. */
  addCounters(increments: Record<string, number>): Promise<void>;
  readCounters(): Promise<Record<string, number>>;
  /** Whether the database answers (`/health`); throws when it does not. */
  ping(): Promise<void>;
  /**
   * Hear of jobs queued, cancelled or deleted by other processes at once (PostgreSQL LISTEN); returns how to stop
   * hearing. A store that cannot tell (SQLite) never calls back: workers then find out at their next tick.
   */
  subscribe(listener: (event: StoreEvent) => void): () => void;

  /** Admin page sessions, by the sha256 of their cookie token. */
  createAdminSession(session: AdminSession): Promise<void>;
  /** The session if it exists and has not expired at `now`. */
  getAdminSession(tokenHash: string, now: number): Promise<AdminSession | null>;
  /** Remove one session (log out), or all of them (the secret was rotated). */
  deleteAdminSessions(tokenHash?: string): Promise<void>;

  close(): Promise<void>;
}

export interface AdminSession {
  tokenHash: string;
  csrf: string;
  created: number;
  expires: number;
}
