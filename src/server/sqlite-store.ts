import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { SqliteDatabase, type SqliteDb, type SqliteStatement } from '../settings/index.js';
import { loadMigrations, splitStatements, type Migration } from './migrations.js';
import { Q } from './queries.js';
import { newJobParams, newKeyParams, SqlJobStore, type Params } from './sql-store.js';
import { iso, toJob, toKey, type JobRow, type KeyRow } from './store-rows.js';
import { DEFAULT_LEASE_MS, type ApiKey, type Job, type JobStore, type NewJob } from './store.js';

/** A page of a key's jobs as one JSON array (see `SqlJobStore.jobsJsonSql`); `LIMIT -1` is no limit in SQLite. */
const JOBS_JSON = `SELECT COALESCE(json_group_array(json_object('job_id', job_id, 'status', status, 'created', created_at,
      'updated', updated_at, 'ocr', ocr, 'error', error)), '[]') AS jobs
    FROM (SELECT job_id, status, created_at, updated_at, ocr, error FROM jobs WHERE key_id = @keyId AND seq <= @from
          ORDER BY seq DESC LIMIT COALESCE(@limit, -1))`;

/** Apply the migrations not applied yet, under one write lock, so two servers starting together do not race. */
export function migrate(db: SqliteDb, migrations: Migration[] = loadMigrations()): void {
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
  const db = new SqliteDatabase(path);
  // The file holds the admin secret's hash and the webhook secrets; SQLite gives its -wal and -shm files the same mode.
  if (!memory && process.platform !== 'win32') chmodSync(path, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return new SqliteJobStore(db);
}

/**
 * SQLite: one connection, one writer at a time. Statements run synchronously; a transaction is `IMMEDIATE`, so a
 * pick and its claim cannot be split by another process on the same file.
 */
class SqliteJobStore extends SqlJobStore {
  private readonly statements = new Map<string, SqliteStatement>();
  protected readonly jobsJsonSql = JOBS_JSON;
  protected readonly lockSkipping = '';

  constructor(private readonly db: SqliteDb) {
    super();
  }

  /** Statements are prepared once and kept. */
  private st(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private getNow<R>(sql: string, params: Params = {}): R | undefined {
    return this.st(sql).get(params) as R | undefined;
  }

  private allNow<R>(sql: string, params: Params = {}): R[] {
    return this.st(sql).all(params) as R[];
  }

  private runNow(sql: string, params: Params = {}): number {
    return this.st(sql).run(params).changes;
  }

  protected async one<R extends object>(sql: string, params: Params = {}): Promise<R | undefined> {
    return this.getNow<R>(sql, params);
  }

  protected async rows<R extends object>(sql: string, params: Params = {}): Promise<R[]> {
    return this.allNow<R>(sql, params);
  }

  protected async run(sql: string, params: Params = {}): Promise<number> {
    return this.runNow(sql, params);
  }

  async createKey(email: string, keyHash: string, now: number, webhookSecret?: string): Promise<ApiKey> {
    return toKey(this.getNow<KeyRow>(Q.createKey, newKeyParams(email, keyHash, now, webhookSecret))!);
  }

  async insertJob(job: NewJob, now: number): Promise<Job> {
    return toJob(this.getNow<JobRow>(Q.insertJob, newJobParams(job, now))!);
  }

  async claimNextJob(workerId: string, now: number, leaseMs = DEFAULT_LEASE_MS): Promise<Job | null> {
    // One writer at a time (an immediate transaction): the pick and the claim cannot be split by another worker.
    return this.db
      .transaction(() => {
        const next = this.getNow<{ job_id: string; key_id: number }>(
          `SELECT j.job_id, j.key_id FROM jobs j JOIN api_keys k ON k.key_id = j.key_id
         WHERE j.status = 'pending' AND (j.run_after IS NULL OR j.run_after <= @now)
         ORDER BY k.served_seq, j.seq LIMIT 1`,
          { now },
        );
        if (!next) return null;
        const row = this.getNow<JobRow>(CLAIM, { workerId, now, leaseUntil: now + leaseMs, iso: iso(now), jobId: next.job_id });
        if (!row) return null;
        this.runNow(Q.served, { keyId: next.key_id });
        return toJob(row);
      })
      .immediate();
  }

  async cancelJob(jobId: string, keyId: number, now: number): Promise<Job | null> {
    return this.db
      .transaction(() => {
        const before = this.getNow<JobRow>(Q.getOwned, { jobId, keyId });
        if (!before) return null;
        this.runNow(Q.cancel, { iso: iso(now), now, jobId, keyId });
        return toJob(before);
      })
      .immediate();
  }

  async cancelKeyJobs(keyId: number, now: number): Promise<Job[]> {
    return this.db
      .transaction(() => {
        const before = this.allNow<JobRow>(Q.activeOfKey, { keyId }).map(toJob);
        this.runNow(Q.cancelKey, { iso: iso(now), now, keyId });
        return before;
      })
      .immediate();
  }

  async deleteJob(jobId: string, keyId: number): Promise<Job | null> {
    return this.db
      .transaction(() => {
        const before = this.getNow<JobRow>(Q.getOwned, { jobId, keyId });
        if (!before) return null;
        this.runNow(Q.deleteJob, { jobId, keyId });
        return toJob(before);
      })
      .immediate();
  }

  subscribe(): () => void {
    // Another process's jobs are found at the next tick; this process's own are kicked directly.
    return () => undefined;
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
