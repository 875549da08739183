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

export type Params = Record<string, unknown>;

/**
 * The job store written once over the portable statements of `queries.ts`: each method binds its parameters, runs
 * its statement and maps the rows. A database's class supplies the three ways to run a statement, and the methods
 * that truly differ: those that must hold a transaction or a lock (numbering, claiming, cancelling, deleting), what
 * other processes are told, listing as JSON, and closing.
 */
export abstract class SqlJobStore implements JobStore {
  /** The first row of a statement's answer. */
  protected abstract one<R extends object>(sql: string, params?: Params): Promise<R | undefined>;
  /** Every row of a statement's answer. */
  protected abstract rows<R extends object>(sql: string, params?: Params): Promise<R[]>;
  /** Run a statement; the number of rows it changed. */
  protected abstract run(sql: string, params?: Params): Promise<number>;
  /**
   * A page of a key's jobs as one JSON array, newest first (`@keyId`, jobs numbered at most `@from`, at most
   * `@limit` of them, all when null): each database builds JSON its own way.
   */
  protected abstract readonly jobsJsonSql: string;
  /** What the webhook claim adds to lock its row against other senders ('' where the database has one writer). */
  protected abstract readonly lockSkipping: string;

  abstract createKey(email: string, keyHash: string, now: number, webhookSecret?: string): Promise<ApiKey>;
  abstract insertJob(job: NewJob, now: number): Promise<Job>;
  abstract claimNextJob(workerId: string, now: number, leaseMs?: number): Promise<Job | null>;
  abstract cancelJob(jobId: string, keyId: number, now: number): Promise<Job | null>;
  abstract cancelKeyJobs(keyId: number, now: number): Promise<Job[]>;
  abstract deleteJob(jobId: string, keyId: number): Promise<Job | null>;
  abstract subscribe(listener: (event: StoreEvent) => void): () => void;
  abstract close(): Promise<void>;

  /** A job went back to `pending`: a database that can tell other processes wakes their workers. */
  protected async queued(): Promise<void> {}

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
    return (await this.one<{ jobs: string }>(this.jobsJsonSql, { keyId, from: Number.MAX_SAFE_INTEGER, limit: limit ?? null }))?.jobs ?? '[]';
  }

  async listJobsPage(keyId: number, limit: number, cursor: number | null): Promise<{ json: string; next: number | null }> {
    const from = cursor ?? Number.MAX_SAFE_INTEGER;
    const json = (await this.one<{ jobs: string }>(this.jobsJsonSql, { keyId, from, limit }))?.jobs ?? '[]';
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

  async heartbeat(jobId: string, workerId: string, now: number, progress?: Progress, leaseMs = DEFAULT_LEASE_MS): Promise<boolean> {
    const leaseUntil = now + leaseMs;
    const changes = progress
      ? await this.run(Q.progress, {
          now,
          leaseUntil,
          iso: iso(now),
          pagesDone: progress.pagesDone,
          pagesTotal: progress.pagesTotal,
          step: progress.step ?? null,
          jobId,
          workerId,
        })
      : await this.run(Q.heartbeat, { now, leaseUntil, jobId, workerId });
    return changes === 1;
  }

  async parkJob(jobId: string, workerId: string, park: OcrPark, now: number): Promise<boolean> {
    return (
      (await this.run(Q.park, {
        batch: JSON.stringify(park.batchIds),
        submittedAt: park.submittedAt,
        nextPollAt: park.nextPollAt,
        iso: iso(now),
        jobId,
        workerId,
      })) === 1
    );
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
    if (changed) await this.queued();
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
    if (row?.status === 'pending') await this.queued();
    return row?.status ?? null;
  }

  async retryJob(jobId: string, workerId: string, now: number, runAfter: number, maxAttempts: number, error: string): Promise<'pending' | 'failed' | null> {
    return (await this.one<{ status: 'pending' | 'failed' }>(Q.retry, { maxAttempts, error, now, runAfter, iso: iso(now), jobId, workerId }))?.status ?? null;
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

  async claimWebhook(senderId: string, now: number, leaseMs: number): Promise<DueWebhook | null> {
    const row = await this.one<JobRow>(Q.claimWebhook(this.lockSkipping), { senderId, now, leaseUntil: now + leaseMs });
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
    await this.one(Q.ping);
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
}

/** The parameters of `Q.insertJob`, as both databases bind them. */
export function newJobParams(job: NewJob, now: number): Params {
  return {
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
  };
}

/** The parameters of `Q.createKey`. */
export function newKeyParams(email: string, keyHash: string, now: number, webhookSecret?: string): Params {
  return { email, keyHash, now, webhookSecret: webhookSecret ?? null };
}
