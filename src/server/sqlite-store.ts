import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { loadMigrations, splitStatements, type Migration } from './migrations.js';
import { JOB_STATUSES, type ApiKey, type ApiKeyRow, type Job, type JobOutcome, type JobStatus, type JobStore, type NewJob, type OcrPark } from './store.js';

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

function listJsonSql(limited: boolean): string {
  return `SELECT COALESCE(json_group_array(json_object('job_id', job_id, 'status', status, 'created', created_at,
      'updated', updated_at, 'ocr', ocr, 'error', error)), '[]') AS jobs
    FROM (SELECT job_id, status, created_at, updated_at, ocr, error FROM jobs WHERE key_id = ? ORDER BY seq DESC${limited ? ' LIMIT ?' : ''})`;
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
        `INSERT INTO jobs (job_id, seq, key_id, status, email_notif, ocr, dpi, upload_name, input_ext, created_at, updated_at)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs), ?, 'pending', ?, ?, ?, ?, ?, ?, ?)
         RETURNING *`,
      ),
      getJob: p<JobRow>('SELECT * FROM jobs WHERE job_id = ?'),
      hasJob: p<{ one: number }>('SELECT 1 AS one FROM jobs WHERE job_id = ?'),
      listJobs: p<JobRow>('SELECT * FROM jobs WHERE key_id = ? ORDER BY seq DESC'),
      listJobsLimit: p<JobRow>('SELECT * FROM jobs WHERE key_id = ? ORDER BY seq DESC LIMIT ?'),
      listJson: p<{ jobs: string }>(listJsonSql(false)),
      listJsonLimit: p<{ jobs: string }>(listJsonSql(true)),
      countByStatus: p<{ status: JobStatus; n: number }>('SELECT status, COUNT(*) AS n FROM jobs GROUP BY status'),
      listProcessing: p<JobRow>("SELECT * FROM jobs WHERE status = 'processing'"),
      // One statement: SQLite runs it under the write lock, and `status = 'pending'` is checked again on the row
      // itself, so a second worker racing for the same row updates nothing (PostgreSQL re-checks it the same way).
      claim: p<JobRow>(
        `UPDATE jobs SET status = 'processing', worker_id = ?, heartbeat_at = ?, updated_at = ?, attempts = attempts + 1,
           pages_done = 0, pages_total = NULL, error = NULL
         WHERE status = 'pending' AND job_id = (SELECT job_id FROM jobs WHERE status = 'pending' ORDER BY seq LIMIT 1)
         RETURNING *`,
      ),
      // A job is held while it runs (processing) and while one poll of its OCR batch runs (ocr_pending).
      heartbeat: p("UPDATE jobs SET heartbeat_at = ? WHERE job_id = ? AND status IN ('processing', 'ocr_pending') AND worker_id = ?"),
      progress: p(
        `UPDATE jobs SET heartbeat_at = ?, updated_at = ?, pages_done = ?, pages_total = ?
         WHERE job_id = ? AND status = 'processing' AND worker_id = ?`,
      ),
      finishDone: p(
        `UPDATE jobs SET status = 'done', error = NULL, doc_name = ?, has_md = ?, pages_done = ?, pages_total = ?,
           worker_id = NULL, heartbeat_at = NULL, ocr_next_poll_at = NULL, updated_at = ?
         WHERE job_id = ? AND status IN ('processing', 'ocr_pending') AND worker_id = ?`,
      ),
      finishFailed: p(
        `UPDATE jobs SET status = 'failed', error = ?, worker_id = NULL, heartbeat_at = NULL, ocr_next_poll_at = NULL, updated_at = ?
         WHERE job_id = ? AND status IN ('processing', 'ocr_pending') AND worker_id = ?`,
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
        `UPDATE jobs SET status = 'failed', error = ?, worker_id = NULL, heartbeat_at = NULL, updated_at = ?
         WHERE job_id = ? AND status = 'processing' AND worker_id = ?`,
      ),
      cancel: p(
        `UPDATE jobs SET status = 'cancelled', updated_at = ?
         WHERE job_id = ? AND key_id = ? AND status IN ('pending', 'processing', 'ocr_pending')`,
      ),
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
    const row = this.q.insertJob.get(job.jobId, job.keyId, job.emailNotif ? 1 : 0, job.ocr, job.dpi, job.uploadName, job.inputExt, iso(now), iso(now));
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

  async countJobsByStatus(): Promise<Record<JobStatus, number>> {
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const r of this.q.countByStatus.all()) counts[r.status] = r.n;
    return counts;
  }

  async listProcessing(): Promise<Job[]> {
    return this.q.listProcessing.all().map(toJob);
  }

  async claimNextJob(workerId: string, now: number): Promise<Job | null> {
    const row = this.q.claim.get(workerId, now, iso(now));
    return row ? toJob(row) : null;
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
        ? this.q.finishDone.run(outcome.docName, outcome.hasMd ? 1 : 0, outcome.pages, outcome.pages, iso(now), jobId, workerId)
        : this.q.finishFailed.run(outcome.error, iso(now), jobId, workerId);
    return r.changes === 1;
  }

  async requeueJob(jobId: string, fromWorker: string, now: number, refundAttempt: boolean): Promise<boolean> {
    return this.q.requeue.run(refundAttempt ? 1 : 0, iso(now), jobId, fromWorker).changes === 1;
  }

  async abandonJob(jobId: string, fromWorker: string, error: string, now: number): Promise<boolean> {
    return this.q.abandon.run(error, iso(now), jobId, fromWorker).changes === 1;
  }

  async cancelJob(jobId: string, keyId: number, now: number): Promise<Job | null> {
    return this.db.transaction(() => {
      const before = this.q.getOwned.get(jobId, keyId);
      if (!before) return null;
      this.q.cancel.run(iso(now), jobId, keyId);
      return toJob(before);
    }).immediate();
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
