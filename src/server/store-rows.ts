import type { ApiKey, Job, JobStatus, ProgressStep, WebhookAttempt, WebhookState, WorkerRow } from './store.js';

/** A `jobs` row as both stores read it (the columns of the migrations in `sql/`). */
export interface JobRow {
  job_id: string;
  key_id: number;
  status: JobStatus;
  error: string | null;
  email_notif: number;
  ocr: string | null;
  dpi: number | null;
  upload_name: string;
  input_ext: 'zip' | 'pdf';
  doc_name: string | null;
  out_of_focus: string | null;
  has_md: number;
  pages_done: number;
  pages_total: number | null;
  progress_step: string | null;
  attempts: number;
  worker_id: string | null;
  heartbeat_at: number | null;
  lease_until: number | null;
  started_at: number | null;
  last_error: string | null;
  link_base: string | null;
  created_at: string;
  updated_at: string;
  ocr_batch: string | null;
  ocr_submitted_at: number | null;
  ocr_next_poll_at: number | null;
  run_after: number | null;
  notice: string | null;
  input_bytes: number;
  output_bytes: number;
  ended_at: number | null;
  expired: number;
  webhook_url: string | null;
  webhook_state: string | null;
  webhook_next_at: number | null;
  webhook_attempts: string | null;
}

export interface KeyRow {
  key_id: number;
  email: string;
  created_at: number;
  revoked_at: number | null;
  job_count?: number;
}

export interface WorkerDbRow {
  worker_id: string;
  host: string;
  pid: number;
  concurrency: number;
  started_at: number;
  heartbeat_at: number;
  lease_until: number;
}

/** A job's created/updated times are kept as the API shows them, ISO 8601 UTC text (see 000001.sql). */
export const iso = (ms: number): string => new Date(ms).toISOString();

export function toJob(r: JobRow): Job {
  return {
    jobId: r.job_id,
    keyId: r.key_id,
    status: r.status,
    error: r.error,
    emailNotif: r.email_notif === 1,
    ocr: r.ocr,
    dpi: r.dpi,
    uploadName: r.upload_name,
    inputExt: r.input_ext,
    docName: r.doc_name,
    outOfFocus: r.out_of_focus ? (JSON.parse(r.out_of_focus) as number[]) : null,
    hasMd: r.has_md === 1,
    pagesDone: r.pages_done,
    pagesTotal: r.pages_total,
    progressStep: r.progress_step as ProgressStep | null,
    attempts: r.attempts,
    workerId: r.worker_id,
    heartbeat: r.heartbeat_at,
    leaseUntil: r.lease_until,
    startedAt: r.started_at,
    lastError: r.last_error,
    linkBase: r.link_base,
    webhook:
      r.webhook_url === null
        ? null
        : {
            url: r.webhook_url,
            state: (r.webhook_state ?? 'waiting') as WebhookState,
            nextAt: r.webhook_state === 'pending' ? r.webhook_next_at : null,
            attempts: r.webhook_attempts === null ? [] : (JSON.parse(r.webhook_attempts) as WebhookAttempt[]),
          },
    created: Date.parse(r.created_at),
    updated: Date.parse(r.updated_at),
    ocrBatchIds: r.ocr_batch === null ? null : (JSON.parse(r.ocr_batch) as string[]),
    ocrSubmittedAt: r.ocr_submitted_at,
    ocrNextPollAt: r.ocr_next_poll_at,
    runAfter: r.run_after,
    notice: r.notice,
    inputBytes: r.input_bytes,
    outputBytes: r.output_bytes,
    endedAt: r.ended_at,
    expired: r.expired === 1,
  };
}

export function toKey(r: KeyRow): ApiKey {
  return { keyId: r.key_id, email: r.email, created: r.created_at, revoked: r.revoked_at };
}

export function toWorker(r: WorkerDbRow): WorkerRow {
  return {
    workerId: r.worker_id,
    host: r.host,
    pid: r.pid,
    concurrency: r.concurrency,
    startedAt: r.started_at,
    heartbeat: r.heartbeat_at,
    leaseUntil: r.lease_until,
  };
}

/** Workers whose lease ran out this long ago are forgotten (their row removed) when the list is read. */
export const FORGET_WORKERS_AFTER_MS = 24 * 3600_000;
