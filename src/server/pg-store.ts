import pg from 'pg';
import { ERROR_CODES, QuireError } from '../errors.js';
import { loadMigrations, splitStatements, type Migration } from './migrations.js';
import { Q } from './queries.js';
import { newJobParams, newKeyParams, SqlJobStore, type Params } from './sql-store.js';
import { iso, toJob, toKey, type JobRow, type KeyRow } from './store-rows.js';
import { DEFAULT_LEASE_MS, type ApiKey, type Job, type JobStore, type NewJob, type StoreEvent } from './store.js';

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
  if ((typeof code === 'string' && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|28P01|28000|3D000)$/.test(code)) || /timeout/i.test(String(e))) {
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

/** A page of a key's jobs as one JSON array (see `SqlJobStore.jobsJsonSql`); `LIMIT NULL` is no limit. */
const JOBS_JSON = `SELECT COALESCE(json_agg(json_build_object('job_id', job_id, 'status', status, 'created', created_at,
      'updated', updated_at, 'ocr', ocr, 'error', error) ORDER BY seq DESC), '[]')::text AS jobs
    FROM (SELECT seq, job_id, status, created_at, updated_at, ocr, error FROM jobs WHERE key_id = @keyId AND seq <= @from
          ORDER BY seq DESC LIMIT @limit) page`;

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

/**
 * PostgreSQL: a pool of connections and several processes on one database. Numbering and claiming hold a
 * transaction and a lock; a job queued or stopped is announced (`NOTIFY`), so idle workers elsewhere hear of it.
 */
class PgJobStore extends SqlJobStore {
  private listener: pg.Client | null = null;
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private reconnect: NodeJS.Timeout | null = null;
  private closed = false;
  protected readonly jobsJsonSql = JOBS_JSON;
  protected readonly lockSkipping = ' FOR UPDATE SKIP LOCKED';

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly options: PgStoreOptions,
  ) {
    super();
  }

  private async query<R extends object>(sql: string, params: Params = {}, on: Queryable = this.pool): Promise<pg.QueryResult<R>> {
    const { text, names } = numbered(sql);
    return on.query<R>(
      text,
      names.map((n) => (params[n] === undefined ? null : params[n])),
    );
  }

  protected async one<R extends object>(sql: string, params: Params = {}, on?: Queryable): Promise<R | undefined> {
    return (await this.query<R>(sql, params, on)).rows[0];
  }

  protected async rows<R extends object>(sql: string, params: Params = {}, on?: Queryable): Promise<R[]> {
    return (await this.query<R>(sql, params, on)).rows;
  }

  protected async run(sql: string, params: Params = {}, on?: Queryable): Promise<number> {
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

  protected override async queued(): Promise<void> {
    await this.notify(this.pool, 'queued');
  }

  async createKey(email: string, keyHash: string, now: number, webhookSecret?: string): Promise<ApiKey> {
    return this.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [NUMBERING_LOCK.keys]);
      return toKey((await this.one<KeyRow>(Q.createKey, newKeyParams(email, keyHash, now, webhookSecret), c))!);
    });
  }

  async insertJob(job: NewJob, now: number): Promise<Job> {
    return this.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [NUMBERING_LOCK.jobs]);
      const row = await this.one<JobRow>(Q.insertJob, newJobParams(job, now), c);
      // Heard by idle workers when this commits: they claim at once instead of at their next tick.
      await this.notify(c, 'queued');
      return toJob(row!);
    });
  }

  async claimNextJob(workerId: string, now: number, leaseMs = DEFAULT_LEASE_MS): Promise<Job | null> {
    return this.tx(async (c) => {
      const row = await this.one<JobRow>(CLAIM, { workerId, now, leaseUntil: now + leaseMs, iso: iso(now) }, c);
      if (!row) return null;
      await this.run(Q.served, { keyId: row.key_id }, c);
      return toJob(row);
    });
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

  async deleteJob(jobId: string, keyId: number): Promise<Job | null> {
    return this.tx(async (c) => {
      const row = await this.one<JobRow>(`${Q.deleteJob} RETURNING *`, { jobId, keyId }, c);
      if (!row) return null;
      await this.notify(c, `stop:${jobId}`);
      return toJob(row);
    });
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.stopListening();
    await this.pool.end();
  }
}
