import pg from 'pg';
import { ERROR_CODES, QuireError } from '../errors.js';
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
  type StoreEvent,
  type WebhookAttempt,
  type WorkerRow,
} from './store.js';

/** The channel other processes hear of queued and stopped jobs on (`LISTEN quire_jobs`). */
const CHANNEL = 'quire_jobs';

// BIGINT (int8) and NUMERIC (SUM of BIGINT) come back as text by default; every value here fits a double exactly.
const NUMERIC_TYPES = new Set([20, 1700]);
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (NUMERIC_TYPES.has(oid) && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

type Params = Record<string, unknown>;
type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** `@name` parameters as PostgreSQL's `$1`, the same name the same number; converted once per statement. */
const converted = new Map<string, { text: string; names: string[] }>();
export function numbered(sql: string): { text: string; names: string[] } {
  let hit = converted.get(sql);
  if (!hit) {
    const names: string[] = [];
    const text = sql.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_whole, name: string) => {
      let i = names.indexOf(name);
      if (i < 0) i = names.push(name) - 1;
      return `$${i + 1}`;
    });
    hit = { text, names };
    converted.set(sql, hit);
  }
  return hit;
}

export interface PgStoreOptions {
  /** Connections the store opens at most; default 10. */
  maxConnections?: number;
  /** Told of errors of idle connections (the database restarted); they are replaced on the next query. */
  onError?: (e: Error) => void;
  /**
   * A statement the database has not finished by then is cancelled there (`statement_timeout`), and one whose answer
   * does not come (a network that hangs) is given up here a little later; default 30 s.
   */
  statementTimeoutMs?: number;
}

/** The default statement timeout: far above any of the store's statements, far below a client's patience. */
export const STATEMENT_TIMEOUT_MS = 30_000;

/** `postgres://` or `postgresql://`: what `--database-url` selects PostgreSQL with. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Open the PostgreSQL store at `url` and bring its schema up to date (the same migrations as SQLite). */
export async function openPgStore(url: string, options: PgStoreOptions = {}): Promise<JobStore> {
  if (!isPostgresUrl(url)) throw new QuireError(ERROR_CODES.USAGE, 'The database URL must start with postgres:// or postgresql://.');
  const statementMs = options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementMs,
    query_timeout: statementMs + 5_000,
    types,
  });
  pool.on('error', (e) => options.onError?.(e));
  try {
    await migrate(pool);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw unreachable(url, e);
  }
  return new PgJobStore(pool, url, options);
}

/** The sentence for a database that cannot be reached, without its password. */
function unreachable(url: string, e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|28P01|28000|3D000)$/.test(code) || /timeout/i.test(String(e))) {
    return new QuireError(ERROR_CODES.USAGE, `Quire could not open the PostgreSQL database at ${withoutPassword(url)}: ${(e as Error).message}.`, String(e));
  }
  return e;
}

export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    return u.toString();
  } catch {
    return 'the given URL';
  }
}

/** Apply the migrations not applied yet, under an advisory lock of this schema, so two processes starting together do not race. */
export async function migrate(pool: pg.Pool, migrations: Migration[] = loadMigrations()): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.quire-migrations'))");
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      for (const statement of splitStatements(m.sql)) await client.query(statement);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [m.version, Date.now()]);
    }
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

function listJsonSql(): string {
  return `SELECT COALESCE(json_agg(json_build_object('job_id', job_id, 'status', status, 'created', created_at,
      'updated', updated_at, 'ocr', ocr, 'error', error) ORDER BY seq DESC), '[]')::text AS jobs
    FROM (SELECT seq, job_id, status, created_at, updated_at, ocr, error FROM jobs WHERE key_id = @keyId AND seq <= @from
          ORDER BY seq DESC LIMIT @limit) page`;
}

/**
 * The claim in one statement: the oldest ready job of the key served longest ago, locked, skipping rows another
 * worker has locked (`SKIP LOCKED`), so concurrent claims neither wait on each other nor take the same job.
 */
const CLAIM = `WITH next AS (
    SELECT j.job_id FROM jobs j JOIN api_keys k ON k.key_id = j.key_id
    WHERE j.status = 'pending' AND (j.run_after IS NULL OR j.run_after <= @now)
    ORDER BY k.served_seq, j.seq LIMIT 1
    FOR UPDATE OF j SKIP LOCKED)
  UPDATE jobs SET status = 'processing', worker_id = @workerId, heartbeat_at = @now, lease_until = @leaseUntil, started_at = @now,
    updated_at = @iso, attempts = attempts + 1, pages_done = 0, pages_total = NULL, progress_step = 'starting', error = NULL, run_after = NULL,
    notice = NULL
  FROM next WHERE jobs.job_id = next.job_id AND jobs.status = 'pending'
  RETURNING jobs.*`;

/** Advisory lock keys: numbering keys and jobs (`MAX + 1`, as the portable schema has no sequences) one at a time. */
const NUMBERING_LOCK = { keys: 'quire-key-ids', jobs: 'quire-job-seq' };

class PgJobStore implements JobStore {
  private listener: pg.Client | null = null;
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private reconnect: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly options: PgStoreOptions,
  ) {}

  private async query<R extends object>(sql: string, params: Params = {}, on: Queryable = this.pool): Promise<pg.QueryResult<R>> {
    const { text, names } = numbered(sql);
    return on.query<R>(text, names.map((n) => (params[n] === undefined ? null : params[n])));
  }

  private async one<R extends object>(sql: string, params: Params = {}, on?: Queryable): Promise<R | undefined> {
    return (await this.query<R>(sql, params, on)).rows[0];
  }

  private async rows<R extends object>(sql: string, params: Params = {}, on?: Queryable): Promise<R[]> {
    return (await this.query<R>(sql, params, on)).rows;
  }

  private async run(sql: string, params: Params = {}, on?: Queryable): Promise<number> {
    return (await this.query(sql, params, on)).rowCount ?? 0;
  }

  private async tx<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  private async notify(on: Queryable, payload: string): Promise<void> {
    await on.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
  }

  async getConfig(key: string): Promise<string | null> {
    return (await this.one<{ value: string }>(Q.getConfig, { key }))?.value ?? null;
  }

  async setConfig(key: string, value: string): Promise<void> {
    await this.run(Q.setConfig, { key, value });
  }

  async deleteConfig(key: string): Promise<void> {
    await this.run(Q.deleteConfig, { key });
  }

  async setConfigOnce(key: string, value: string): Promise<string> {
    await this.run(Q.setConfigOnce, { key, value });
    return (await this.one<{ value: string }>(Q.getConfig, { key }))!.value;
  }

  async createKey(email: string, keyHash: string, now: number, webhookSecret?: string): Promise<ApiKey> {
    return this.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [NUMBERING_LOCK.keys]);
      return toKey((await this.one<KeyRow>(Q.createKey, { email, keyHash, now, webhookSecret: webhookSecret ?? null }, c))!);
    });
  }

  async getKey(keyId: number): Promise<ApiKey | null> {
    const row = await this.one<KeyRow>(Q.getKey, { keyId });
    return row ? toKey(row) : null;
  }

  async getWebhookSecret(keyId: number): Promise<string | null> {
    return (await this.one<{ webhook_secret: string | null }>(Q.webhookSecret, { keyId }))?.webhook_secret ?? null;
  }

  async findActiveKey(keyHash: string): Promise<ApiKey | null> {
    const row = await this.one<KeyRow>(Q.findActiveKey, { keyHash });
    return row ? toKey(row) : null;
  }

  async revokeKey(keyId: number, now: number): Promise<ApiKey | null> {
    const row = await this.one<KeyRow>(Q.revokeKey, { keyId, now });
    return row ? toKey(row) : null;
  }

  async listKeys(): Promise<ApiKeyRow[]> {
    return (await this.rows<KeyRow>(Q.listKeys)).map((r) => ({ ...toKey(r), jobCount: r.job_count ?? 0 }));
  }

  async insertJob(job: NewJob, now: number): Promise<Job> {
    return this.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [NUMBERING_LOCK.jobs]);
      const row = await this.one<JobRow>(
        Q.insertJob,
        {
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
        },
        c,
      );
      // Heard by idle workers when this commits: they claim at once instead of at their next tick.
      await this.notify(c, 'queued');
      return toJob(row!);
    });
  }

  async getJob(jobId: string): Promise<Job | null> {
    const row = await this.one<JobRow>(Q.getJob, { jobId });
    return row ? toJob(row) : null;
  }

  async hasJob(jobId: string): Promise<boolean> {
    return (await this.one(Q.hasJob, { jobId })) !== undefined;
  }

  async listJobs(keyId: number, limit?: number): Promise<Job[]> {
    const rows = limit === undefined ? await this.rows<JobRow>(Q.listJobs, { keyId }) : await this.rows<JobRow>(Q.listJobsLimit, { keyId, limit });
    return rows.map(toJob);
  }

  async listJobsJson(keyId: number, limit?: number): Promise<string> {
    return (await this.one<{ jobs: string }>(listJsonSql(), { keyId, from: Number.MAX_SAFE_INTEGER, limit: limit ?? null }))?.jobs ?? '[]';
  }

  async listJobsPage(keyId: number, limit: number, cursor: number | null): Promise<{ json: string; next: number | null }> {
    const from = cursor ?? Number.MAX_SAFE_INTEGER;
    const json = (await this.one<{ jobs: string }>(listJsonSql(), { keyId, from, limit }))?.jobs ?? '[]';
    const next = (await this.one<{ seq: number }>(Q.pageAfter, { keyId, from, limit }))?.seq ?? null;
    return { json, next };
  }

  async keyUsage(keyId: number): Promise<{ queued: number; storedBytes: number }> {
    const row = await this.one<{ queued: number; stored: number }>(Q.keyUsage, { keyId });
    return { queued: row?.queued ?? 0, storedBytes: row?.stored ?? 0 };
  }

  async countJobsByStatus(): Promise<Record<JobStatus, number>> {
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const r of await this.rows<{ status: JobStatus; n: number }>(Q.countByStatus)) counts[r.status] = r.n;
    return counts;
  }

  async listProcessing(): Promise<Job[]> {
    return (await this.rows<JobRow>(Q.listProcessing)).map(toJob);
  }

  async claimNextJob(workerId: string, now: number, leaseMs = DEFAULT_LEASE_MS): Promise<Job | null> {
    return this.tx(async (c) => {
      const row = await this.one<JobRow>(CLAIM, { workerId, now, leaseUntil: now + leaseMs, iso: iso(now) }, c);
      if (!row) return null;
      await this.run(Q.served, { keyId: row.key_id }, c);
      return toJob(row);
    });
  }

  async heartbeat(jobId: string, workerId: string, now: number, progress?: Progress, leaseMs = DEFAULT_LEASE_MS): Promise<boolean> {
    const leaseUntil = now + leaseMs;
    const changes = progress
      ? await this.run(Q.progress, { now, leaseUntil, iso: iso(now), pagesDone: progress.pagesDone, pagesTotal: progress.pagesTotal, step: progress.step ?? null, jobId, workerId })
      : await this.run(Q.heartbeat, { now, leaseUntil, jobId, workerId });
    return changes === 1;
  }

  async parkJob(jobId: string, workerId: string, park: OcrPark, now: number): Promise<boolean> {
    return (await this.run(Q.park, { batch: JSON.stringify(park.batchIds), submittedAt: park.submittedAt, nextPollAt: park.nextPollAt, iso: iso(now), jobId, workerId })) === 1;
  }

  async listDueOcrJobs(clockNow: number, limit = 100): Promise<Job[]> {
    return (await this.rows<JobRow>(Q.dueOcr, { clockNow, limit })).map(toJob);
  }

  async leaseOcrJob(jobId: string, workerId: string, now: number, leaseMs: number): Promise<Job | null> {
    const row = await this.one<JobRow>(Q.leaseOcr, { workerId, now, leaseUntil: now + leaseMs, staleBefore: now - leaseMs, jobId });
    return row ? toJob(row) : null;
  }

  async releaseOcrJob(jobId: string, workerId: string, nextPollAt: number | null, now: number): Promise<boolean> {
    return (await this.run(Q.releaseOcr, { nextPollAt, iso: iso(now), jobId, workerId })) === 1;
  }

  async requestOcrPoll(jobId: string, clockNow: number): Promise<void> {
    await this.run(Q.requestOcrPoll, { jobId, clockNow });
  }

  async finishJob(jobId: string, workerId: string, outcome: JobOutcome, now: number): Promise<boolean> {
    const changes =
      outcome.status === 'done'
        ? await this.run(Q.finishDone, {
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
        : await this.run(Q.finishFailed, { error: outcome.error, iso: iso(now), now, jobId, workerId });
    return changes === 1;
  }

  async requeueJob(jobId: string, fromWorker: string, now: number, refundAttempt: boolean): Promise<boolean> {
    const changed = (await this.run(Q.requeue, { refund: refundAttempt ? 1 : 0, iso: iso(now), jobId, workerId: fromWorker })) === 1;
    if (changed) await this.notify(this.pool, 'queued');
    return changed;
  }

  async deferJob(jobId: string, workerId: string, runAfter: number, notice: string, now: number): Promise<boolean> {
    return (await this.run(Q.defer, { runAfter, notice, iso: iso(now), jobId, workerId })) === 1;
  }

  async reclaimJob(seen: Job, now: number, maxAttempts: number, lastError: string, finalError: string): Promise<'pending' | 'failed' | null> {
    const row = await this.one<{ status: 'pending' | 'failed' }>(Q.reclaim, {
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
    if (row?.status === 'pending') await this.notify(this.pool, 'queued');
    return row?.status ?? null;
  }

  async retryJob(jobId: string, workerId: string, now: number, runAfter: number, maxAttempts: number, error: string): Promise<'pending' | 'failed' | null> {
    return (await this.one<{ status: 'pending' | 'failed' }>(Q.retry, { maxAttempts, error, now, runAfter, iso: iso(now), jobId, workerId }))?.status ?? null;
  }

  async cancelJob(jobId: string, keyId: number, now: number): Promise<Job | null> {
    return this.tx(async (c) => {
      const before = await this.one<JobRow>(`${Q.getOwned} FOR UPDATE`, { jobId, keyId }, c);
      if (!before) return null;
      if ((await this.run(Q.cancel, { iso: iso(now), now, jobId, keyId }, c)) > 0) await this.notify(c, `stop:${jobId}`);
      return toJob(before);
    });
  }

  async cancelKeyJobs(keyId: number, now: number): Promise<Job[]> {
    return this.tx(async (c) => {
      const before = (await this.rows<JobRow>(`${Q.activeOfKey} FOR UPDATE`, { keyId }, c)).map(toJob);
      await this.run(Q.cancelKey, { iso: iso(now), now, keyId }, c);
      for (const job of before) await this.notify(c, `stop:${job.jobId}`);
      return before;
    });
  }

  async listRetained(what: 'input' | 'output', before: number, limit: number): Promise<Job[]> {
    return (await this.rows<JobRow>(what === 'input' ? Q.retainedInput : Q.retainedOutput, { before, limit })).map(toJob);
  }

  async markFilesRemoved(jobId: string, what: 'input' | 'output'): Promise<void> {
    await this.run(what === 'input' ? Q.inputRemoved : Q.outputRemoved, { jobId });
  }

  async stampEnded(now: number): Promise<void> {
    await this.run(Q.stampEnded, { now });
  }

  async deleteJob(jobId: string, keyId: number): Promise<Job | null> {
    return this.tx(async (c) => {
      const row = await this.one<JobRow>(`${Q.deleteJob} RETURNING *`, { jobId, keyId }, c);
      if (!row) return null;
      await this.notify(c, `stop:${jobId}`);
      return toJob(row);
    });
  }

  async claimWebhook(senderId: string, now: number, leaseMs: number): Promise<DueWebhook | null> {
    const row = await this.one<JobRow>(Q.claimWebhook(' FOR UPDATE SKIP LOCKED'), { senderId, now, leaseUntil: now + leaseMs });
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
    return (await this.run(Q.webhookAttempt, { attempts: JSON.stringify(attempts), state: next.state, nextAt, jobId, senderId })) === 1;
  }

  async workerAlive(worker: WorkerRow): Promise<void> {
    await this.run(Q.workerAlive, { ...worker });
  }

  async removeWorker(workerId: string): Promise<void> {
    await this.run(Q.removeWorker, { workerId });
  }

  async listWorkers(now: number): Promise<WorkerRow[]> {
    await this.run(Q.forgetWorkers, { before: now - FORGET_WORKERS_AFTER_MS });
    return (await this.rows<WorkerDbRow>(Q.listWorkers)).map(toWorker);
  }

  async addCounters(increments: Record<string, number>): Promise<void> {
    const n = Object.keys(increments).length;
    if (n > 0) await this.run(addCountersSql(n), addCountersParams(increments));
  }

  async readCounters(): Promise<Record<string, number>> {
    return Object.fromEntries((await this.rows<{ name: string; value: number }>(Q.readCounters)).map((r) => [r.name, r.value]));
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    if (!this.listener && !this.reconnect) void this.listen();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopListening();
    };
  }

  /** One connection of its own LISTENs; when it drops it is made again a second later (a tick finds the work meanwhile). */
  private async listen(): Promise<void> {
    if (this.closed || this.listeners.size === 0) return;
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000, types });
    this.listener = client;
    const retry = (e?: Error): void => {
      if (e) this.options.onError?.(e);
      if (this.listener !== client) return;
      this.listener = null;
      client.end().catch(() => undefined);
      if (this.closed || this.listeners.size === 0) return;
      this.reconnect = setTimeout(() => {
        this.reconnect = null;
        void this.listen();
      }, 1_000);
      this.reconnect.unref();
    };
    client.on('error', retry);
    client.on('end', () => retry());
    client.on('notification', (n) => {
      const payload = n.payload ?? '';
      const event: StoreEvent = payload.startsWith('stop:') ? { type: 'stop', jobId: payload.slice(5) } : { type: 'queued' };
      for (const l of this.listeners) l(event);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      // Connections of their own keep nothing else of this process alive.
      (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    } catch (e) {
      retry(e as Error);
    }
  }

  private stopListening(): void {
    if (this.reconnect) clearTimeout(this.reconnect);
    this.reconnect = null;
    const client = this.listener;
    this.listener = null;
    client?.end().catch(() => undefined);
  }

  async createAdminSession(session: AdminSession): Promise<void> {
    await this.run(Q.deleteExpiredSessions, { now: session.created });
    await this.run(Q.createSession, { ...session });
  }

  async getAdminSession(tokenHash: string, now: number): Promise<AdminSession | null> {
    const row = await this.one<{ token_hash: string; csrf: string; created_at: number; expires_at: number }>(Q.getSession, { tokenHash, now });
    return row ? { tokenHash: row.token_hash, csrf: row.csrf, created: row.created_at, expires: row.expires_at } : null;
  }

  async deleteAdminSessions(tokenHash?: string): Promise<void> {
    if (tokenHash === undefined) await this.run(Q.deleteSessions);
    else await this.run(Q.deleteSession, { tokenHash });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.stopListening();
    await this.pool.end();
  }
}
