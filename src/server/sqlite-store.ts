import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { loadMigrations, splitStatements, type Migration } from './migrations.js';
import { addCountersParams, addCountersSql, Q } from './queries.js';
import { FORGET_WORKERS_AFTER_MS, iso, toJob, toKey, toWorker, type JobRow, type KeyRow, type WorkerDbRow } from './store-rows.js';
import {
  DEFAULT_LEASE_MS,
  JOB_STATUSES,
  type AdminSession,
  type ApiKey,
  type ApiKeyRow,
  type DueWebhook,
  type Job,
  type JobOutcome,
  type JobStatus,
  type JobStore,
  type NewJob,
  type OcrPark,
  type Progress,
  type WebhookAttempt,
  type WorkerRow,
} from './store.js';

function listJsonSql(limited: boolean, from = false): string {
  return `SELECT COALESCE(json_group_array(json_object('job_id', job_id, 'status', status, 'created', created_at,
      'updated', updated_at, 'ocr', ocr, 'error', error)), '[]') AS jobs
    FROM (SELECT job_id, status, created_at, updated_at, ocr, error FROM jobs WHERE key_id = @keyId${from ? ' AND seq <= @from' : ''}
          ORDER BY seq DESC${limited ? ' LIMIT @limit' : ''})`;
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
  const memory = path === ':memory:';
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // The file holds the admin secret's hash and the webhook secrets; SQLite gives its -wal and -shm files the same mode.
  if (!memory && process.platform !== 'win32') chmodSync(path, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return new SqliteJobStore(db);
}

type Params = Record<string, unknown>;

class SqliteJobStore implements JobStore {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  /** Statements are prepared once and kept. */
  private st(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private get<R>(sql: string, params: Params = {}): R | undefined {
    return this.st(sql).get(params) as R | undefined;
  }

  private all<R>(sql: string, params: Params = {}): R[] {
    return this.st(sql).all(params) as R[];
  }

  private run(sql: string, params: Params = {}): number {
    return this.st(sql).run(params).changes;
  }

  async getConfig(key: string): Promise<string | null> {
    return this.get<{ value: string }>(Q.getConfig, { key })?.value ?? null;
  }

  async setConfig(key: string, value: string): Promise<void> {
    this.run(Q.setConfig, { key, value });
  }

  async deleteConfig(key: string): Promise<void> {
    this.run(Q.deleteConfig, { key });
  }

  async setConfigOnce(key: string, value: string): Promise<string> {
    this.run(Q.setConfigOnce, { key, value });
    return this.get<{ value: string }>(Q.getConfig, { key })!.value;
  }

  async createKey(email: string, keyHash: string, now: number, webhookSecret?: string): Promise<ApiKey> {
    return toKey(this.get<KeyRow>(Q.createKey, { email, keyHash, now, webhookSecret: webhookSecret ?? null })!);
  }

  async getKey(keyId: number): Promise<ApiKey | null> {
    const row = this.get<KeyRow>(Q.getKey, { keyId });
    return row ? toKey(row) : null;
  }

  async getWebhookSecret(keyId: number): Promise<string | null> {
    return this.get<{ webhook_secret: string | null }>(Q.webhookSecret, { keyId })?.webhook_secret ?? null;
  }

  async findActiveKey(keyHash: string): Promise<ApiKey | null> {
    const row = this.get<KeyRow>(Q.findActiveKey, { keyHash });
    return row ? toKey(row) : null;
  }

  async revokeKey(keyId: number, now: number): Promise<ApiKey | null> {
    const row = this.get<KeyRow>(Q.revokeKey, { keyId, now });
    return row ? toKey(row) : null;
  }

  async listKeys(): Promise<ApiKeyRow[]> {
    return this.all<KeyRow>(Q.listKeys).map((r) => ({ ...toKey(r), jobCount: r.job_count ?? 0 }));
  }

  async insertJob(job: NewJob, now: number): Promise<Job> {
    const row = this.get<JobRow>(Q.insertJob, {
      jobId: job.jobId,
      keyId: job.keyId,
      emailNotif: job.emailNotif ? 1 : 0,
      ocr: job.ocr,
      dpi: job.dpi,
      uploadName: job.uploadName,
      inputExt: job.inputExt,
      inputBytes: job.inputBytes ?? 0,
      webhookUrl: job.webhookUrl ?? null,
      linkBase: job.linkBase ?? null,
      iso: iso(now),
    });
    return toJob(row!);
  }

  async getJob(jobId: string): Promise<Job | null> {
    const row = this.get<JobRow>(Q.getJob, { jobId });
    return row ? toJob(row) : null;
  }

  async hasJob(jobId: string): Promise<boolean> {
    return this.get(Q.hasJob, { jobId }) !== undefined;
  }

  async listJobs(keyId: number, limit?: number): Promise<Job[]> {
    const rows = limit === undefined ? this.all<JobRow>(Q.listJobs, { keyId }) : this.all<JobRow>(Q.listJobsLimit, { keyId, limit });
    return rows.map(toJob);
  }

  async listJobsJson(keyId: number, limit?: number): Promise<string> {
    return this.get<{ jobs: string }>(listJsonSql(limit !== undefined), { keyId, limit })?.jobs ?? '[]';
  }

  async listJobsPage(keyId: number, limit: number, cursor: number | null): Promise<{ json: string; next: number | null }> {
    const from = cursor ?? Number.MAX_SAFE_INTEGER;
    const json = this.get<{ jobs: string }>(listJsonSql(true, true), { keyId, from, limit })?.jobs ?? '[]';
    const next = this.get<{ seq: number }>(Q.pageAfter, { keyId, from, limit })?.seq ?? null;
    return { json, next };
  }

  async keyUsage(keyId: number): Promise<{ queued: number; storedBytes: number }> {
    const row = this.get<{ queued: number; stored: number }>(Q.keyUsage, { keyId });
    return { queued: row?.queued ?? 0, storedBytes: row?.stored ?? 0 };
  }

  async countJobsByStatus(): Promise<Record<JobStatus, number>> {
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const r of this.all<{ status: JobStatus; n: number }>(Q.countByStatus)) counts[r.status] = r.n;
    return counts;
  }

  async listProcessing(): Promise<Job[]> {
    return this.all<JobRow>(Q.listProcessing).map(toJob);
  }

  async claimNextJob(workerId: string, now: number, leaseMs = DEFAULT_LEASE_MS): Promise<Job | null> {
    // One writer at a time (an immediate transaction): the pick and the claim cannot be split by another worker.
    return this.db.transaction(() => {
      const next = this.get<{ job_id: string; key_id: number }>(
        `SELECT j.job_id, j.key_id FROM jobs j JOIN api_keys k ON k.key_id = j.key_id
         WHERE j.status = 'pending' AND (j.run_after IS NULL OR j.run_after <= @now)
         ORDER BY k.served_seq, j.seq LIMIT 1`,
        { now },
      );
      if (!next) return null;
      const row = this.get<JobRow>(CLAIM, { workerId, now, leaseUntil: now + leaseMs, iso: iso(now), jobId: next.job_id });
      if (!row) return null;
      this.run(Q.served, { keyId: next.key_id });
      return toJob(row);
    }).immediate();
  }

  async heartbeat(jobId: string, workerId: string, now: number, progress?: Progress, leaseMs = DEFAULT_LEASE_MS): Promise<boolean> {
    const leaseUntil = now + leaseMs;
    const changes = progress
      ? this.run(Q.progress, { now, leaseUntil, iso: iso(now), pagesDone: progress.pagesDone, pagesTotal: progress.pagesTotal, step: progress.step ?? null, jobId, workerId })
      : this.run(Q.heartbeat, { now, leaseUntil, jobId, workerId });
    return changes === 1;
  }

  async parkJob(jobId: string, workerId: string, park: OcrPark, now: number): Promise<boolean> {
    return this.run(Q.park, { batch: JSON.stringify(park.batchIds), submittedAt: park.submittedAt, nextPollAt: park.nextPollAt, iso: iso(now), jobId, workerId }) === 1;
  }

  async listDueOcrJobs(clockNow: number, limit = 100): Promise<Job[]> {
    return this.all<JobRow>(Q.dueOcr, { clockNow, limit }).map(toJob);
  }

  async leaseOcrJob(jobId: string, workerId: string, now: number, leaseMs: number): Promise<Job | null> {
    const row = this.get<JobRow>(Q.leaseOcr, { workerId, now, leaseUntil: now + leaseMs, staleBefore: now - leaseMs, jobId });
    return row ? toJob(row) : null;
  }

  async releaseOcrJob(jobId: string, workerId: string, nextPollAt: number | null, now: number): Promise<boolean> {
    return this.run(Q.releaseOcr, { nextPollAt, iso: iso(now), jobId, workerId }) === 1;
  }

  async requestOcrPoll(jobId: string, clockNow: number): Promise<void> {
    this.run(Q.requestOcrPoll, { jobId, clockNow });
  }

  async finishJob(jobId: string, workerId: string, outcome: JobOutcome, now: number): Promise<boolean> {
    const changes =
      outcome.status === 'done'
        ? this.run(Q.finishDone, {
            docName: outcome.docName,
            hasMd: outcome.hasMd ? 1 : 0,
            outOfFocus: outcome.outOfFocus && outcome.outOfFocus.length > 0 ? JSON.stringify(outcome.outOfFocus) : null,
            pages: outcome.pages,
            outputBytes: outcome.outputBytes ?? 0,
            iso: iso(now),
            now,
            jobId,
            workerId,
          })
        : this.run(Q.finishFailed, { error: outcome.error, iso: iso(now), now, jobId, workerId });
    return changes === 1;
  }

  async requeueJob(jobId: string, fromWorker: string, now: number, refundAttempt: boolean): Promise<boolean> {
    return this.run(Q.requeue, { refund: refundAttempt ? 1 : 0, iso: iso(now), jobId, workerId: fromWorker }) === 1;
  }

  async deferJob(jobId: string, workerId: string, runAfter: number, notice: string, now: number): Promise<boolean> {
    return this.run(Q.defer, { runAfter, notice, iso: iso(now), jobId, workerId }) === 1;
  }

  async reclaimJob(seen: Job, now: number, maxAttempts: number, lastError: string, finalError: string): Promise<'pending' | 'failed' | null> {
    const row = this.get<{ status: 'pending' | 'failed' }>(Q.reclaim, {
      maxAttempts,
      finalError,
      lastError,
      now,
      iso: iso(now),
      jobId: seen.jobId,
      workerId: seen.workerId,
      seenLease: seen.leaseUntil ?? -1,
      seenHeartbeat: seen.heartbeat ?? -1,
    });
    return row?.status ?? null;
  }

  async retryJob(jobId: string, workerId: string, now: number, runAfter: number, maxAttempts: number, error: string): Promise<'pending' | 'failed' | null> {
    return this.get<{ status: 'pending' | 'failed' }>(Q.retry, { maxAttempts, error, now, runAfter, iso: iso(now), jobId, workerId })?.status ?? null;
  }

  async cancelJob(jobId: string, keyId: number, now: number): Promise<Job | null> {
    return this.db.transaction(() => {
      const before = this.get<JobRow>(Q.getOwned, { jobId, keyId });
      if (!before) return null;
      this.run(Q.cancel, { iso: iso(now), now, jobId, keyId });
      return toJob(before);
    }).immediate();
  }

  async cancelKeyJobs(keyId: number, now: number): Promise<Job[]> {
    return this.db.transaction(() => {
      const before = this.all<JobRow>(Q.activeOfKey, { keyId }).map(toJob);
      this.run(Q.cancelKey, { iso: iso(now), now, keyId });
      return before;
    }).immediate();
  }

  async listRetained(what: 'input' | 'output', before: number, limit: number): Promise<Job[]> {
    return this.all<JobRow>(what === 'input' ? Q.retainedInput : Q.retainedOutput, { before, limit }).map(toJob);
  }

  async markFilesRemoved(jobId: string, what: 'input' | 'output'): Promise<void> {
    this.run(what === 'input' ? Q.inputRemoved : Q.outputRemoved, { jobId });
  }

  async stampEnded(now: number): Promise<void> {
    this.run(Q.stampEnded, { now });
  }

  async deleteJob(jobId: string, keyId: number): Promise<Job | null> {
    return this.db.transaction(() => {
      const before = this.get<JobRow>(Q.getOwned, { jobId, keyId });
      if (!before) return null;
      this.run(Q.deleteJob, { jobId, keyId });
      return toJob(before);
    }).immediate();
  }

  async claimWebhook(senderId: string, now: number, leaseMs: number): Promise<DueWebhook | null> {
    const row = this.get<JobRow>(Q.claimWebhook(''), { senderId, now, leaseUntil: now + leaseMs });
    if (!row) return null;
    return { job: toJob(row), secret: await this.getWebhookSecret(row.key_id) };
  }

  async recordWebhookAttempt(
    jobId: string,
    senderId: string,
    attempts: WebhookAttempt[],
    next: { state: 'pending'; nextAt: number } | { state: 'delivered' | 'failed' },
  ): Promise<boolean> {
    const nextAt = next.state === 'pending' ? next.nextAt : null;
    return this.run(Q.webhookAttempt, { attempts: JSON.stringify(attempts), state: next.state, nextAt, jobId, senderId }) === 1;
  }

  async workerAlive(worker: WorkerRow): Promise<void> {
    this.run(Q.workerAlive, { ...worker });
  }

  async removeWorker(workerId: string): Promise<void> {
    this.run(Q.removeWorker, { workerId });
  }

  async listWorkers(now: number): Promise<WorkerRow[]> {
    this.run(Q.forgetWorkers, { before: now - FORGET_WORKERS_AFTER_MS });
    return this.all<WorkerDbRow>(Q.listWorkers).map(toWorker);
  }

  async addCounters(increments: Record<string, number>): Promise<void> {
    const n = Object.keys(increments).length;
    if (n > 0) this.run(addCountersSql(n), addCountersParams(increments));
  }

  async readCounters(): Promise<Record<string, number>> {
    return Object.fromEntries(this.all<{ name: string; value: number }>(Q.readCounters).map((r) => [r.name, r.value]));
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  subscribe(): () => void {
    // Another process's jobs are found at the next tick; this process's own are kicked directly.
    return () => undefined;
  }

  async createAdminSession(session: AdminSession): Promise<void> {
    this.run(Q.deleteExpiredSessions, { now: session.created });
    this.run(Q.createSession, { ...session });
  }

  async getAdminSession(tokenHash: string, now: number): Promise<AdminSession | null> {
    const row = this.get<{ token_hash: string; csrf: string; created_at: number; expires_at: number }>(Q.getSession, { tokenHash, now });
    return row ? { tokenHash: row.token_hash, csrf: row.csrf, created: row.created_at, expires: row.expires_at } : null;
  }

  async deleteAdminSessions(tokenHash?: string): Promise<void> {
    if (tokenHash === undefined) this.run(Q.deleteSessions);
    else this.run(Q.deleteSession, { tokenHash });
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

// `status = 'pending'` is checked again on the row itself, so a second worker racing for the same row updates nothing.
const CLAIM = `UPDATE jobs SET status = 'processing', worker_id = @workerId, heartbeat_at = @now, lease_until = @leaseUntil, started_at = @now,
    updated_at = @iso, attempts = attempts + 1, pages_done = 0, pages_total = NULL, progress_step = 'starting', error = NULL, run_after = NULL,
    notice = NULL
  WHERE status = 'pending' AND job_id = @jobId
  RETURNING *`;
