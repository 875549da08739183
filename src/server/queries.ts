/**
 * The job store's statements, written once for both databases: portable SQL with named parameters (`@name`), which
 * better-sqlite3 binds as they are and the PostgreSQL store numbers (`$1`). A parameter whose type PostgreSQL cannot
 * infer (inside CASE) is cast with `CAST(… AS BIGINT)`, which SQLite reads the same way. What the two databases
 * cannot say alike (listing as JSON, the claim with `SKIP LOCKED`) is in each store.
 */

const ACTIVE = "('pending', 'processing', 'ocr_pending')";

/** Set on every statement that ends a job (`@now`): a job that asked for a webhook has it delivered from now on. */
const WEBHOOK_DUE = `webhook_state = CASE WHEN webhook_url IS NULL THEN NULL ELSE 'pending' END,
  webhook_next_at = CASE WHEN webhook_url IS NULL THEN NULL ELSE CAST(@now AS BIGINT) END`;

/** What a held job lets go of when it leaves a worker's hands. */
const LET_GO = 'worker_id = NULL, heartbeat_at = NULL, lease_until = NULL, progress_step = NULL';

export const Q = {
  getConfig: 'SELECT value FROM config WHERE key = @key',
  setConfig: 'INSERT INTO config (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  setConfigOnce: 'INSERT INTO config (key, value) VALUES (@key, @value) ON CONFLICT (key) DO NOTHING',
  deleteConfig: 'DELETE FROM config WHERE key = @key',

  createKey: `INSERT INTO api_keys (key_id, email, key_hash, created_at, webhook_secret)
    VALUES ((SELECT COALESCE(MAX(key_id), 0) + 1 FROM api_keys), @email, @keyHash, @now, @webhookSecret)
    RETURNING key_id, email, created_at, revoked_at`,
  getKey: 'SELECT key_id, email, created_at, revoked_at FROM api_keys WHERE key_id = @keyId',
  webhookSecret: 'SELECT webhook_secret FROM api_keys WHERE key_id = @keyId',
  findActiveKey: 'SELECT key_id, email, created_at, revoked_at FROM api_keys WHERE key_hash = @keyHash AND revoked_at IS NULL',
  revokeKey: `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, @now) WHERE key_id = @keyId
    RETURNING key_id, email, created_at, revoked_at`,
  listKeys: `SELECT k.key_id, k.email, k.created_at, k.revoked_at, COUNT(j.job_id) AS job_count
    FROM api_keys k LEFT JOIN jobs j ON j.key_id = k.key_id
    GROUP BY k.key_id, k.email, k.created_at, k.revoked_at ORDER BY k.key_id`,
  served: 'UPDATE api_keys SET served_seq = (SELECT COALESCE(MAX(served_seq), 0) + 1 FROM api_keys) WHERE key_id = @keyId',

  insertJob: `INSERT INTO jobs (job_id, seq, key_id, status, email_notif, ocr, dpi, upload_name, input_ext, input_bytes, webhook_url, link_base,
      created_at, updated_at)
    VALUES (@jobId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs), @keyId, 'pending', @emailNotif, @ocr, @dpi, @uploadName, @inputExt, @inputBytes,
      @webhookUrl, @linkBase, @iso, @iso)
    RETURNING *`,
  ping: 'SELECT 1 AS one',
  getJob: 'SELECT * FROM jobs WHERE job_id = @jobId',
  hasJob: 'SELECT 1 AS one FROM jobs WHERE job_id = @jobId',
  getOwned: 'SELECT * FROM jobs WHERE job_id = @jobId AND key_id = @keyId',
  listJobs: 'SELECT * FROM jobs WHERE key_id = @keyId ORDER BY seq DESC',
  listJobsLimit: 'SELECT * FROM jobs WHERE key_id = @keyId ORDER BY seq DESC LIMIT @limit',
  // The first job of the page after: the cursor of that page.
  pageAfter: 'SELECT seq FROM jobs WHERE key_id = @keyId AND seq <= @from ORDER BY seq DESC LIMIT 1 OFFSET @limit',
  countByStatus: 'SELECT status, COUNT(*) AS n FROM jobs GROUP BY status',
  // A job parked on an OCR batch still waits for its turn to end: it counts against the key's queue.
  keyUsage: `SELECT COALESCE(SUM(CASE WHEN status IN ('pending', 'ocr_pending') THEN 1 ELSE 0 END), 0) AS queued,
      COALESCE(SUM(input_bytes + output_bytes), 0) AS stored
    FROM jobs WHERE key_id = @keyId`,
  listProcessing: "SELECT * FROM jobs WHERE status = 'processing'",

  // A job is held while it runs (processing) and while one poll of its OCR batch runs (ocr_pending).
  heartbeat: `UPDATE jobs SET heartbeat_at = @now, lease_until = @leaseUntil
    WHERE job_id = @jobId AND status IN ('processing', 'ocr_pending') AND worker_id = @workerId`,
  progress: `UPDATE jobs SET heartbeat_at = @now, lease_until = @leaseUntil, updated_at = @iso, pages_done = @pagesDone, pages_total = @pagesTotal,
      progress_step = COALESCE(@step, progress_step)
    WHERE job_id = @jobId AND status = 'processing' AND worker_id = @workerId`,
  finishDone: `UPDATE jobs SET status = 'done', error = NULL, doc_name = @docName, has_md = @hasMd, out_of_focus = @outOfFocus, pages_done = @pages, pages_total = @pages,
      output_bytes = @outputBytes, ${LET_GO}, ocr_next_poll_at = NULL, updated_at = @iso, ended_at = @now, ${WEBHOOK_DUE}
    WHERE job_id = @jobId AND status IN ('processing', 'ocr_pending') AND worker_id = @workerId`,
  finishFailed: `UPDATE jobs SET status = 'failed', error = @error, output_bytes = 0, ${LET_GO}, ocr_next_poll_at = NULL,
      updated_at = @iso, ended_at = @now, ${WEBHOOK_DUE}
    WHERE job_id = @jobId AND status IN ('processing', 'ocr_pending') AND worker_id = @workerId`,
  defer: `UPDATE jobs SET status = 'pending', ${LET_GO}, attempts = attempts - 1, pages_done = 0,
      pages_total = NULL, run_after = @runAfter, notice = @notice, updated_at = @iso
    WHERE job_id = @jobId AND status = 'processing' AND worker_id = @workerId`,
  park: `UPDATE jobs SET status = 'ocr_pending', ${LET_GO}, ocr_batch = @batch, ocr_submitted_at = @submittedAt,
      ocr_next_poll_at = @nextPollAt, updated_at = @iso
    WHERE job_id = @jobId AND status = 'processing' AND worker_id = @workerId`,
  dueOcr: `SELECT * FROM jobs WHERE status = 'ocr_pending' AND ocr_next_poll_at <= @clockNow ORDER BY ocr_next_poll_at, seq LIMIT @limit`,
  // A holder whose lease ran out is gone; rows from before leases existed count their heartbeat instead.
  leaseOcr: `UPDATE jobs SET worker_id = @workerId, heartbeat_at = @now, lease_until = @leaseUntil
    WHERE job_id = @jobId AND status = 'ocr_pending'
      AND (worker_id IS NULL OR (lease_until IS NOT NULL AND lease_until < @now)
        OR (lease_until IS NULL AND (heartbeat_at IS NULL OR heartbeat_at < @staleBefore)))
    RETURNING *`,
  releaseOcr: `UPDATE jobs SET ${LET_GO}, ocr_next_poll_at = COALESCE(@nextPollAt, ocr_next_poll_at), updated_at = @iso
    WHERE job_id = @jobId AND status = 'ocr_pending' AND worker_id = @workerId`,
  requestOcrPoll: `UPDATE jobs SET ocr_next_poll_at = @clockNow
    WHERE job_id = @jobId AND status = 'ocr_pending' AND (ocr_next_poll_at IS NULL OR ocr_next_poll_at > @clockNow)`,
  requeue: `UPDATE jobs SET status = 'pending', ${LET_GO}, attempts = attempts - @refund,
      pages_done = 0, pages_total = NULL, updated_at = @iso
    WHERE job_id = @jobId AND status = 'processing' AND worker_id = @workerId`,
  // Only if the holder and its lease are still the ones seen: a holder that renewed in between keeps its job.
  reclaim: `UPDATE jobs SET status = CASE WHEN attempts >= @maxAttempts THEN 'failed' ELSE 'pending' END,
      error = CASE WHEN attempts >= @maxAttempts THEN @finalError ELSE NULL END,
      ended_at = CASE WHEN attempts >= @maxAttempts THEN CAST(@now AS BIGINT) ELSE NULL END,
      webhook_state = CASE WHEN attempts >= @maxAttempts AND webhook_url IS NOT NULL THEN 'pending' ELSE webhook_state END,
      webhook_next_at = CASE WHEN attempts >= @maxAttempts AND webhook_url IS NOT NULL THEN CAST(@now AS BIGINT) ELSE webhook_next_at END,
      last_error = @lastError, ${LET_GO}, pages_done = 0, pages_total = NULL, updated_at = @iso
    WHERE job_id = @jobId AND status = 'processing' AND worker_id = @workerId
      AND COALESCE(lease_until, -1) = @seenLease AND COALESCE(heartbeat_at, -1) = @seenHeartbeat
    RETURNING status`,
  retry: `UPDATE jobs SET status = CASE WHEN attempts >= @maxAttempts THEN 'failed' ELSE 'pending' END,
      error = CASE WHEN attempts >= @maxAttempts THEN @error ELSE NULL END,
      ended_at = CASE WHEN attempts >= @maxAttempts THEN CAST(@now AS BIGINT) ELSE NULL END,
      run_after = CASE WHEN attempts >= @maxAttempts THEN NULL ELSE CAST(@runAfter AS BIGINT) END,
      webhook_state = CASE WHEN attempts >= @maxAttempts AND webhook_url IS NOT NULL THEN 'pending' ELSE webhook_state END,
      webhook_next_at = CASE WHEN attempts >= @maxAttempts AND webhook_url IS NOT NULL THEN CAST(@now AS BIGINT) ELSE webhook_next_at END,
      last_error = @error, ${LET_GO}, pages_done = 0, pages_total = NULL, output_bytes = 0, updated_at = @iso
    WHERE job_id = @jobId AND status = 'processing' AND worker_id = @workerId
    RETURNING status`,
  // A cancelled job's folder is removed with it.
  cancel: `UPDATE jobs SET status = 'cancelled', ${LET_GO}, updated_at = @iso, ended_at = @now, input_bytes = 0, output_bytes = 0, notice = NULL,
      ${WEBHOOK_DUE}
    WHERE job_id = @jobId AND key_id = @keyId AND status IN ${ACTIVE}`,
  activeOfKey: `SELECT * FROM jobs WHERE key_id = @keyId AND status IN ${ACTIVE} ORDER BY seq`,
  cancelKey: `UPDATE jobs SET status = 'cancelled', ${LET_GO}, updated_at = @iso, ended_at = @now, input_bytes = 0, output_bytes = 0, notice = NULL,
      ${WEBHOOK_DUE}
    WHERE key_id = @keyId AND status IN ${ACTIVE}`,
  retainedInput: `SELECT * FROM jobs WHERE status IN ('done', 'failed') AND input_bytes > 0 AND ended_at < @before ORDER BY ended_at LIMIT @limit`,
  retainedOutput: `SELECT * FROM jobs WHERE status = 'done' AND expired = 0 AND ended_at < @before ORDER BY ended_at LIMIT @limit`,
  inputRemoved: 'UPDATE jobs SET input_bytes = 0 WHERE job_id = @jobId',
  outputRemoved: 'UPDATE jobs SET output_bytes = 0, expired = 1 WHERE job_id = @jobId',
  stampEnded: "UPDATE jobs SET ended_at = @now WHERE ended_at IS NULL AND status IN ('done', 'failed', 'cancelled')",
  deleteJob: 'DELETE FROM jobs WHERE job_id = @jobId AND key_id = @keyId',

  // The most overdue delivery that no other sender holds; the conditions are checked again on the row itself.
  claimWebhook: (lockClause: string) => `UPDATE jobs SET webhook_lease_by = @senderId, webhook_lease_until = @leaseUntil
    WHERE job_id = (SELECT job_id FROM jobs WHERE webhook_state = 'pending' AND webhook_next_at <= @now
        AND (webhook_lease_until IS NULL OR webhook_lease_until < @now) ORDER BY webhook_next_at LIMIT 1${lockClause})
      AND webhook_state = 'pending' AND (webhook_lease_until IS NULL OR webhook_lease_until < @now)
    RETURNING *`,
  webhookAttempt: `UPDATE jobs SET webhook_attempts = @attempts, webhook_state = @state, webhook_next_at = @nextAt,
      webhook_lease_by = NULL, webhook_lease_until = NULL
    WHERE job_id = @jobId AND webhook_state = 'pending' AND webhook_lease_by = @senderId`,

  workerAlive: `INSERT INTO workers (worker_id, host, pid, concurrency, started_at, heartbeat_at, lease_until)
    VALUES (@workerId, @host, @pid, @concurrency, @startedAt, @heartbeat, @leaseUntil)
    ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, lease_until = excluded.lease_until, concurrency = excluded.concurrency`,
  removeWorker: 'DELETE FROM workers WHERE worker_id = @workerId',
  forgetWorkers: 'DELETE FROM workers WHERE lease_until < @before',
  listWorkers: 'SELECT * FROM workers ORDER BY worker_id',
  readCounters: 'SELECT name, value FROM metric_counters ORDER BY name',

  createSession: 'INSERT INTO admin_sessions (token_hash, csrf, created_at, expires_at) VALUES (@tokenHash, @csrf, @created, @expires)',
  getSession: 'SELECT token_hash, csrf, created_at, expires_at FROM admin_sessions WHERE token_hash = @tokenHash AND expires_at > @now',
  deleteSession: 'DELETE FROM admin_sessions WHERE token_hash = @tokenHash',
  deleteSessions: 'DELETE FROM admin_sessions',
  deleteExpiredSessions: 'DELETE FROM admin_sessions WHERE expires_at <= @now',
} as const;

/** Add to counters, creating them at 0: one statement for all of them. */
export function addCountersSql(count: number): string {
  const rows = Array.from({ length: count }, (_, i) => `(@n${i}, @v${i})`).join(', ');
  return `INSERT INTO metric_counters (name, value) VALUES ${rows} ON CONFLICT (name) DO UPDATE SET value = metric_counters.value + excluded.value`;
}

export function addCountersParams(increments: Record<string, number>): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  Object.entries(increments).forEach(([name, value], i) => {
    params[`n${i}`] = name;
    params[`v${i}`] = value;
  });
  return params;
}
