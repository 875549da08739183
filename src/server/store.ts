/**
 * The job server's storage, behind one small interface: SQLite now (`sqlite-store.ts`), PostgreSQL later, both
 * from the same numbered migrations in `sql/`. Every method is async so a networked store fits the same shape.
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
  hasMd: boolean;
  pagesDone: number;
  pagesTotal: number | null;
  attempts: number;
  workerId: string | null;
  heartbeat: number | null;
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

export type NewJob = Pick<Job, 'jobId' | 'keyId' | 'emailNotif' | 'ocr' | 'dpi' | 'uploadName' | 'inputExt'> & { inputBytes?: number };

/** How a worker ends a job it holds. */
export type JobOutcome =
  | { status: 'done'; docName: string; hasMd: boolean; pages: number; outputBytes?: number }
  | { status: 'failed'; error: string };

export interface JobStore {
  getConfig(key: string): Promise<string | null>;
  setConfig(key: string, value: string): Promise<void>;
  deleteConfig(key: string): Promise<void>;
  /** Store `value` unless the key is set already; returns the value that is stored now (first writer wins). */
  setConfigOnce(key: string, value: string): Promise<string>;

  createKey(email: string, keyHash: string, now: number): Promise<ApiKey>;
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
   */
  claimNextJob(workerId: string, now: number): Promise<Job | null>;
  /**
   * Move a job the worker holds from `processing` to `ocr_pending` (its OCR batch was submitted), letting go of it;
   * false when it no longer holds it.
   */
  parkJob(jobId: string, workerId: string, park: OcrPark, now: number): Promise<boolean>;
  /** `ocr_pending` jobs whose next poll is due at `clockNow` (the OCR schedule's clock), oldest first. */
  listDueOcrJobs(clockNow: number, limit?: number): Promise<Job[]>;
  /**
   * Take an `ocr_pending` job for one poll: no other worker holds it, or its holder last beat before `staleBefore`.
   * Held like a processing job (heartbeat, `finishJob`); returns it, or null when it is not there to take.
   */
  leaseOcrJob(jobId: string, workerId: string, now: number, staleBefore: number): Promise<Job | null>;
  /** Let go of a leased `ocr_pending` job, setting its next poll when given; false when the worker no longer holds it. */
  releaseOcrJob(jobId: string, workerId: string, nextPollAt: number | null, now: number): Promise<boolean>;
  /** Record progress and liveness; false when the worker no longer holds the job (cancelled, deleted, taken back). */
  heartbeat(jobId: string, workerId: string, now: number, progress?: { pagesDone: number; pagesTotal: number | null }): Promise<boolean>;
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
  /** Fail a job that was interrupted too often; `fromWorker` as for `requeueJob`. */
  abandonJob(jobId: string, fromWorker: string, error: string, now: number): Promise<boolean>;
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
  /** Ids of every job row, to tell job folders from leftovers. */
  hasJob(jobId: string): Promise<boolean>;

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
