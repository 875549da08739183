import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { loadMigrations, splitStatements, type Migration } from './migrations.js';
import { JOB_STATUSES, type AdminSession, type ApiKey, type ApiKeyRow, type Job, type JobOutcome, type JobStatus, type JobStore, type NewJob, type OcrPark } from './store.js';

interface JobRow {
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
  has_md: number;
  pages_done: number;
  pages_total: number | null;
  attempts: number;
  worker_id: string | null;
  heartbeat_at: number | null;
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
}

interface KeyRow {
  key_id: number;
  email: string;
  created_at: number;
  revoked_at: number | null;
  job_count?: number;
}

/** A job's created/updated times are kept as the API shows them, ISO 8601 UTC text (see 000001.sql). */
const iso = (ms: number): string => new Date(ms).toISOString();

function listJsonSql(limited: boolean, from = false): string {
  return `SELECT COALESCE(json_group_array(json_object('job_id', job_id, 'status', status, 'created', created_at,
      'updated', updated_at, 'ocr', ocr, 'error', error)), '[]') AS jobs
    FROM (SELECT job_id, status, created_at, updated_at, ocr, error FROM jobs WHERE key_id = ?${from ? ' AND seq <= ?' : ''}
          ORDER BY seq DESC${limited ? ' LIMIT ?' : ''})`;
}

function toJob(r: JobRow): Job {
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
    hasMd: r.has_md === 1,
    pagesDone: r.pages_done,
    pagesTotal: r.pages_total,
    attempts: r.attempts,
    workerId: r.worker_id,
    heartbeat: r.heartbeat_at,
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

function toKey(r: KeyRow): ApiKey {
  return { keyId: r.key_id, email: r.email, created: r.created_at, revoked: r.revoked_at };
}

/** Apply the migrations not applied yet, under one write lock, so two servers starting together do not race. */
export function migrate(db: Database.Database, migrations: Migration[] = loadMigrations()): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
  const apply = db.transaction(() => {
    const done = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version));
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      for (const statement of splitStatements(m.sql)) db.exec(statement);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(m.version, Date.now());
    }
  });
  apply.immediate();
}

/** Open (creating if needed) the server database at `path` and bring its schema up to date. */
export function openSqliteStore(path: string): JobStore {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // The file holds the admin secret and SMTP password; SQLite gives its -wal and -shm files the same mode.
  if (process.platform !== 'win32') chmodSync(path, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return new SqliteJobStore(db);
}

class SqliteJobStore implements JobStore {
  private readonly q;

  constructor(private readonly db: Database.Database) {
    const p = <R = unknown>(sql: string) => db.prepare<unknown[], R>(sql);
    this.q = {
      getConfig: p<{ value: string }>('SELECT value FROM config WHERE key = ?'),
      setConfig: p('INSERT INTO config (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      setConfigOnce: p('INSERT INTO config (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING'),
      deleteConfig: p('DELETE FROM config WHERE key = ?'),
      createKey: p<KeyRow>(
        `INSERT INTO api_keys (key_id, email, key_hash, created_at)
         VALUES ((SELECT COALESCE(MAX(key_id), 0) + 1 FROM api_keys), ?, ?, ?)
         RETURNING key_id, email, created_at, revoked_at`,
      ),
      getKey: p<KeyRow>('SELECT key_id, email, created_at, revoked_at FROM api_keys WHERE key_id = ?'),
      findActiveKey: p<KeyRow>('SELECT key_id, email, created_at, revoked_at FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL'),
      revokeKey: p<KeyRow>(
        `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ?
         RETURNING key_id, email, created_at, revoked_at`,
      ),
      listKeys: p<KeyRow>(
        `SELECT k.key_id, k.email, k.created_at, k.revoked_at, COUNT(j.job_id) AS job_count
         FROM api_keys k LEFT JOIN jobs j ON j.key_id = k.key_id
         GROUP BY k.key_id, k.email, k.created_at, k.revoked_at ORDER BY k.key_id`,
      ),
      insertJob: p<JobRow>(
        `INSERT INTO jobs (job_id, seq, key_id, status, email_notif, ocr, dpi, upload_name, input_ext, input_bytes, created_at, updated_at)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs), ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?)
         RETURNING *`,
      ),
      getJob: p<JobRow>('SELECT * FROM jobs WHERE job_id = ?'),
      hasJob: p<{ one: number }>('SELECT 1 AS one FROM jobs WHERE job_id = ?'),
      listJobs: p<JobRow>('SELECT * FROM jobs WHERE key_id = ? ORDER BY seq DESC'),
      listJobsLimit: p<JobRow>('SELECT * FROM jobs WHERE key_id = ? ORDER BY seq DESC LIMIT ?'),
      listJson: p<{ jobs: string }>(listJsonSql(false)),
      listJsonLimit: p<{ jobs: string }>(listJsonSql(true)),
      listJsonFrom: p<{ jobs: string }>(listJsonSql(true, true)),
      // The first job of the page after: the cursor of that page.
      pageAfter: p<{ seq: number }>('SELECT seq FROM jobs WHERE key_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1 OFFSET ?'),
      countByStatus: p<{ status: JobStatus; n: number }>('SELECT status, COUNT(*) AS n FROM jobs GROUP BY status'),
      keyUsage: p<{ queued: number; stored: number }>(
        `SELECT COALESCE(SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END), 0) AS queued,
           COALESCE(SUM(input_bytes + output_bytes), 0) AS stored
         FROM jobs WHERE key_id = ?`,
      ),
      listProcessing: p<JobRow>("SELECT * FROM jobs WHERE status = 'processing'"),
      // Keys take turns: the oldest ready job of the key served longest ago (see 000003.sql).
      nextReady: p<{ job_id: string; key_id: number }>(
        `SELECT j.job_id, j.key_id FROM jobs j JOIN api_keys k ON k.key_id = j.key_id
         WHERE j.status = 'pending' AND (j.run_after IS NULL OR j.run_after <= ?)
         ORDER BY k.served_seq, j.seq LIMIT 1`,
      ),
      // `status = 'pending'` is checked again on the row itself, so a second worker racing for the same row updates
      // nothing (PostgreSQL re-checks it the same way).
      claim: p<JobRow>(
        `UPDATE jobs SET status = 'processing', worker_id = ?, heartbeat_at = ?, updated_at = ?, attempts = attempts + 1,
           pages_done = 0, pages_total = NULL, error = NULL, run_after = NULL, notice = NULL
         WHERE status = 'pending' AND job_id = ?
         RETURNING *`,
      ),
      served: p('UPDATE api_keys SET served_seq = (SELECT COALESCE(MAX(served_seq), 0) + 1 FROM api_keys) WHERE key_id = ?'),
      // A job is held while it runs (processing) and while one poll of its OCR batch runs (ocr_pending).
      heartbeat: p("UPDATE jobs SET heartbeat_at = ? WHERE job_id = ? AND status IN ('processing', 'ocr_pending') AND worker_id = ?"),
      progress: p(
        `UPDATE jobs SET heartbeat_at = ?, updated_at = ?, pages_done = ?, pages_total = ?
         WHERE job_id = ? AND status = 'processing' AND worker_id = ?`,
      ),
      finishDone: p(
        `UPDATE jobs SET status = 'done', error = NULL, doc_name = ?, has_md = ?, pages_done = ?, pages_total = ?, output_bytes = ?,
           worker_id = NULL, heartbeat_at = NULL, ocr_next_poll_at = NULL, updated_at = ?, ended_at = ?
         WHERE job_id = ? AND status IN ('processing', 'ocr_pending') AND worker_id = ?`,
      ),
      finishFailed: p(
        `UPDATE jobs SET status = 'failed', error = ?, output_bytes = 0, worker_id = NULL, heartbeat_at = NULL, ocr_next_poll_at = NULL,
           updated_at = ?, ended_at = ?
         WHERE job_id = ? AND status IN ('processing', 'ocr_pending') AND worker_id = ?`,
      ),
      defer: p(
        `UPDATE jobs SET status = 'pending', worker_id = NULL, heartbeat_at = NULL, attempts = attempts - 1, pages_done = 0,
           pages_total = NULL, run_after = ?, notice = ?, updated_at = ?
         WHERE job_id = ? AND status = 'processing' AND worker_id = ?`,
      ),
      park: p(
        `UPDATE jobs SET status = 'ocr_pending', worker_id = NULL, heartbeat_at = NULL, ocr_batch = ?, ocr_submitted_at = ?,
           ocr_next_poll_at = ?, updated_at = ?
         WHERE job_id = ? AND status = 'processing' AND worker_id = ?`,
      ),
      dueOcr: p<JobRow>(
        `SELECT * FROM jobs WHERE status = 'ocr_pending' AND ocr_next_poll_at <= ? ORDER BY ocr_next_poll_at, seq LIMIT ?`,
      ),
      leaseOcr: p<JobRow>(
        `UPDATE jobs SET worker_id = ?, heartbeat_at = ?
         WHERE job_id = ? AND status = 'ocr_pending' AND (worker_id IS NULL OR heartbeat_at IS NULL OR heartbeat_at < ?)
         RETURNING *`,
      ),
      releaseOcr: p(
        `UPDATE jobs SET worker_id = NULL, heartbeat_at = NULL, ocr_next_poll_at = COALESCE(?, ocr_next_poll_at), updated_at = ?
         WHERE job_id = ? AND status = 'ocr_pending' AND worker_id = ?`,
      ),
      requeue: p(
        `UPDATE jobs SET status = 'pending', worker_id = NULL, heartbeat_at = NULL, attempts = attempts - ?,
           pages_done = 0, pages_total = NULL, updated_at = ?
         WHERE job_id = ? AND status = 'processing' AND worker_id = ?`,
      ),
      abandon: p(
        `UPDATE jobs SET status = 'failed', error = ?, worker_id = NULL, heartbeat_at = NULL, updated_at = ?, ended_at = ?
         WHERE job_id = ? AND status = 'processing' AND worker_id = ?`,
      ),
      // A cancelled job's folder is removed with it.
      cancel: p(
        `UPDATE jobs SET status = 'cancelled', updated_at = ?, ended_at = ?, input_bytes = 0, output_bytes = 0, notice = NULL
         WHERE job_id = ? AND key_id = ? AND status IN ('pending', 'processing', 'ocr_pending')`,
      ),
      activeOfKey: p<JobRow>("SELECT * FROM jobs WHERE key_id = ? AND status IN ('pending', 'processing', 'ocr_pending') ORDER BY seq"),
      cancelKey: p(
        `UPDATE jobs SET status = 'cancelled', updated_at = ?, ended_at = ?, input_bytes = 0, output_bytes = 0, notice = NULL
         WHERE key_id = ? AND status IN ('pending', 'processing', 'ocr_pending')`,
      ),
      retainedInput: p<JobRow>(
        `SELECT * FROM jobs WHERE status IN ('done', 'failed') AND input_bytes > 0 AND ended_at < ? ORDER BY ended_at LIMIT ?`,
      ),
      retainedOutput: p<JobRow>(
        `SELECT * FROM jobs WHERE status = 'done' AND expired = 0 AND ended_at < ? ORDER BY ended_at LIMIT ?`,
      ),
      inputRemoved: p('UPDATE jobs SET input_bytes = 0 WHERE job_id = ?'),
      outputRemoved: p('UPDATE jobs SET output_bytes = 0, expired = 1 WHERE job_id = ?'),
      stampEnded: p("UPDATE jobs SET ended_at = ? WHERE ended_at IS NULL AND status IN ('done', 'failed', 'cancelled')"),
      createSession: p('INSERT INTO admin_sessions (token_hash, csrf, created_at, expires_at) VALUES (?, ?, ?, ?)'),
      getSession: p<{ token_hash: string; csrf: string; created_at: number; expires_at: number }>(
        'SELECT token_hash, csrf, created_at, expires_at FROM admin_sessions WHERE token_hash = ? AND expires_at > ?',
      ),
      deleteSession: p('DELETE FROM admin_sessions WHERE token_hash = ?'),
      deleteSessions: p('DELETE FROM admin_sessions'),
      deleteExpiredSessions: p('DELETE FROM admin_sessions WHERE expires_at <= ?'),
      getOwned: p<JobRow>('SELECT * FROM jobs WHERE job_id = ? AND key_id = ?'),
      deleteJob: p('DELETE FROM jobs WHERE job_id = ? AND key_id = ?'),
    };
  }

  async getConfig(key: string): Promise<string | null> {
    return this.q.getConfig.get(key)?.value ?? null;
  }

  async setConfig(key: string, value: string): Promise<void> {
    this.q.setConfig.run(key, value);
  }

  async deleteConfig(key: string): Promise<void> {
    this.q.deleteConfig.run(key);
  }

  async setConfigOnce(key: string, value: string): Promise<string> {
    this.q.setConfigOnce.run(key, value);
    return this.q.getConfig.get(key)!.value;
  }

  async createKey(email: string, keyHash: string, now: number): Promise<ApiKey> {
    return toKey(this.q.createKey.get(email, keyHash, now)!);
  }

  async getKey(keyId: number): Promise<ApiKey | null> {
    const row = this.q.getKey.get(keyId);
    return row ? toKey(row) : null;
  }

  async findActiveKey(keyHash: string): Promise<ApiKey | null> {
    const row = this.q.findActiveKey.get(keyHash);
    return row ? toKey(row) : null;
  }

  async revokeKey(keyId: number, now: number): Promise<ApiKey | null> {
    const row = this.q.revokeKey.get(now, keyId);
    return row ? toKey(row) : null;
  }

  async listKeys(): Promise<ApiKeyRow[]> {
    return this.q.listKeys.all().map((r) => ({ ...toKey(r), jobCount: r.job_count ?? 0 }));
  }

  async insertJob(job: NewJob, now: number): Promise<Job> {
    const row = this.q.insertJob.get(job.jobId, job.keyId, job.emailNotif ? 1 : 0, job.ocr, job.dpi, job.uploadName, job.inputExt, job.inputBytes ?? 0, iso(now), iso(now));
    return toJob(row!);
  }

  async getJob(jobId: string): Promise<Job | null> {
    const row = this.q.getJob.get(jobId);
    return row ? toJob(row) : null;
  }

  async hasJob(jobId: string): Promise<boolean> {
    return this.q.hasJob.get(jobId) !== undefined;
  }

  async listJobs(keyId: number, limit?: number): Promise<Job[]> {
    const rows = limit === undefined ? this.q.listJobs.all(keyId) : this.q.listJobsLimit.all(keyId, limit);
    return rows.map(toJob);
  }

  async listJobsJson(keyId: number, limit?: number): Promise<string> {
    const row = limit === undefined ? this.q.listJson.get(keyId) : this.q.listJsonLimit.get(keyId, limit);
    return row?.jobs ?? '[]';
  }

  async listJobsPage(keyId: number, limit: number, cursor: number | null): Promise<{ json: string; next: number | null }> {
    const from = cursor ?? Number.MAX_SAFE_INTEGER;
    const json = this.q.listJsonFrom.get(keyId, from, limit)?.jobs ?? '[]';
    const next = this.q.pageAfter.get(keyId, from, limit)?.seq ?? null;
    return { json, next };
  }

  async keyUsage(keyId: number): Promise<{ queued: number; storedBytes: number }> {
    const row = this.q.keyUsage.get(keyId);
    return { queued: row?.queued ?? 0, storedBytes: row?.stored ?? 0 };
  }

  async countJobsByStatus(): Promise<Record<JobStatus, number>> {
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const r of this.q.countByStatus.all()) counts[r.status] = r.n;
    return counts;
  }

  async listProcessing(): Promise<Job[]> {
    return this.q.listProcessing.all().map(toJob);
  }

  async claimNextJob(workerId: string, now: number): Promise<Job | null> {
    return this.db.transaction(() => {
      const next = this.q.nextReady.get(now);
      if (!next) return null;
      const row = this.q.claim.get(workerId, now, iso(now), next.job_id);
      if (!row) return null;
      this.q.served.run(next.key_id);
      return toJob(row);
    }).immediate();
  }

  async heartbeat(jobId: string, workerId: string, now: number, progress?: { pagesDone: number; pagesTotal: number | null }): Promise<boolean> {
    const r = progress
      ? this.q.progress.run(now, iso(now), progress.pagesDone, progress.pagesTotal, jobId, workerId)
      : this.q.heartbeat.run(now, jobId, workerId);
    return r.changes === 1;
  }

  async parkJob(jobId: string, workerId: string, park: OcrPark, now: number): Promise<boolean> {
    return this.q.park.run(JSON.stringify(park.batchIds), park.submittedAt, park.nextPollAt, iso(now), jobId, workerId).changes === 1;
  }

  async listDueOcrJobs(clockNow: number, limit = 100): Promise<Job[]> {
    return this.q.dueOcr.all(clockNow, limit).map(toJob);
  }

  async leaseOcrJob(jobId: string, workerId: string, now: number, staleBefore: number): Promise<Job | null> {
    const row = this.q.leaseOcr.get(workerId, now, jobId, staleBefore);
    return row ? toJob(row) : null;
  }

  async releaseOcrJob(jobId: string, workerId: string, nextPollAt: number | null, now: number): Promise<boolean> {
    return this.q.releaseOcr.run(nextPollAt, iso(now), jobId, workerId).changes === 1;
  }

  async finishJob(jobId: string, workerId: string, outcome: JobOutcome, now: number): Promise<boolean> {
    const r =
      outcome.status === 'done'
        ? this.q.finishDone.run(outcome.docName, outcome.hasMd ? 1 : 0, outcome.pages, outcome.pages, outcome.outputBytes ?? 0, iso(now), now, jobId, workerId)
        : this.q.finishFailed.run(outcome.error, iso(now), now, jobId, workerId);
    return r.changes === 1;
  }

  async requeueJob(jobId: string, fromWorker: string, now: number, refundAttempt: boolean): Promise<boolean> {
    return this.q.requeue.run(refundAttempt ? 1 : 0, iso(now), jobId, fromWorker).changes === 1;
  }

  async deferJob(jobId: string, workerId: string, runAfter: number, notice: string, now: number): Promise<boolean> {
    return this.q.defer.run(runAfter, notice, iso(now), jobId, workerId).changes === 1;
  }

  async abandonJob(jobId: string, fromWorker: string, error: string, now: number): Promise<boolean> {
    return this.q.abandon.run(error, iso(now), now, jobId, fromWorker).changes === 1;
  }

  async cancelJob(jobId: string, keyId: number, now: number): Promise<Job | null> {
    return this.db.transaction(() => {
      const before = this.q.getOwned.get(jobId, keyId);
      if (!before) return null;
      this.q.cancel.run(iso(now), now, jobId, keyId);
      return toJob(before);
    }).immediate();
  }

  async cancelKeyJobs(keyId: number, now: number): Promise<Job[]> {
    return this.db.transaction(() => {
      const before = this.q.activeOfKey.all(keyId).map(toJob);
      this.q.cancelKey.run(iso(now), now, keyId);
      return before;
    }).immediate();
  }

  async listRetained(what: 'input' | 'output', before: number, limit: number): Promise<Job[]> {
    return (what === 'input' ? this.q.retainedInput : this.q.retainedOutput).all(before, limit).map(toJob);
  }

  async markFilesRemoved(jobId: string, what: 'input' | 'output'): Promise<void> {
    (what === 'input' ? this.q.inputRemoved : this.q.outputRemoved).run(jobId);
  }

  async stampEnded(now: number): Promise<void> {
    this.q.stampEnded.run(now);
  }

  async createAdminSession(session: AdminSession): Promise<void> {
    this.q.deleteExpiredSessions.run(session.created);
    this.q.createSession.run(session.tokenHash, session.csrf, session.created, session.expires);
  }

  async getAdminSession(tokenHash: string, now: number): Promise<AdminSession | null> {
    const row = this.q.getSession.get(tokenHash, now);
    return row ? { tokenHash: row.token_hash, csrf: row.csrf, created: row.created_at, expires: row.expires_at } : null;
  }

  async deleteAdminSessions(tokenHash?: string): Promise<void> {
    if (tokenHash === undefined) this.q.deleteSessions.run();
    else this.q.deleteSession.run(tokenHash);
  }

  async deleteJob(jobId: string, keyId: number): Promise<Job | null> {
    return this.db.transaction(() => {
      const before = this.q.getOwned.get(jobId, keyId);
      if (!before) return null;
      this.q.deleteJob.run(jobId, keyId);
      return toJob(before);
    }).immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
