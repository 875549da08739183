import { mkdir } from 'node:fs/promises';
import type { ConvertEngine } from '../convert/index.js';
import { describeError } from '../errors.js';
import type { Clock } from './clock.js';
import { DEFAULT_RETENTION, parseLimits, parseRetention, type Retention, type ServerLimits, type ServerSettings } from './config.js';
import { createEngine } from './engine.js';
import { newWorkerId } from './job-runner.js';
import { uploadsDir } from './layout.js';
import { completionMailer } from './mailer.js';
import { openPgStore } from './pg-store.js';
import { startPresence, type Presence } from './presence.js';
import { createProcessor } from './processor.js';
import type { OcrBatch, Processor, ProcessorLog } from './processor-types.js';
import { jobTag } from './secrets.js';
import { openSqliteStore } from './sqlite-store.js';
import { DEFAULT_LEASE_MS, type JobStore } from './store.js';
import { createWebhookSender, type WebhookSender } from './webhooks.js';

/** The job database: PostgreSQL at `databaseUrl`, else the SQLite file at `dbPath`. */
export async function openStore(options: {
  databaseUrl?: string | undefined;
  dbPath: string;
  statementTimeoutMs?: number | undefined;
  onError: (e: Error) => void;
}): Promise<JobStore> {
  if (!options.databaseUrl) return openSqliteStore(options.dbPath);
  return openPgStore(options.databaseUrl, {
    onError: options.onError,
    ...(options.statementTimeoutMs ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
  });
}

/** The limits and retention of the config table (checked once, here: a bad setting stops the start), and the job folders made. */
export async function readServerSetup(store: JobStore, dataDir: string): Promise<{ limits: ServerLimits; retention: Retention }> {
  const limits = parseLimits((await store.getConfig('limits')) ?? '{}');
  const retention = { ...DEFAULT_RETENTION, ...parseRetention((await store.getConfig('retention')) ?? '{}') };
  await mkdir(uploadsDir(dataDir), { recursive: true, mode: 0o700 });
  return { limits, retention };
}

export interface WorkOptions {
  store: JobStore;
  dataDir: string;
  settings: ServerSettings;
  limits: ServerLimits;
  retention: Retention;
  log: ProcessorLog;
  clock: Clock;
  /** This process converts jobs; false: it only delivers webhooks and cancels OCR batches. */
  runsJobs: boolean;
  /** Jobs converted at once; default 1. Several: each processor holds jobs as `<workerId>/<slot>`. */
  concurrency?: number | undefined;
  /** The conversion verbs; by default each call in a process of its own (`engine.ts`). */
  engine?: ConvertEngine | undefined;
  /** The job process's entry point (default the built `job-child.js`). */
  childScript?: string | undefined;
  leaseMs?: number | undefined;
  heartbeatMs?: number | undefined;
  maxAttempts?: number | undefined;
  workers?: number | undefined;
  retryMs?: number | undefined;
  clientPollEveryMs?: number | undefined;
  ocrBatch?: OcrBatch | undefined;
  allowPrivateWebhooks?: boolean | undefined;
  webhookRetryDelaysMs?: readonly number[] | undefined;
  /** Prefix of the links in completion emails. */
  linkBase(): Promise<string>;
}

/** What works in the background, as both `quire server` and `quire worker` assemble it. */
export interface Work {
  workerId: string;
  /** One per job converted at once; the first also polls OCR batches and applies retention. */
  processors: Processor[];
  webhooks: WebhookSender;
  /** Start the job loops (when this process runs jobs), the webhook sender and this worker's presence row. */
  start(tickMs: number): void;
  /** Resolves once the completion emails in flight were handed to the mail server, or failed. */
  mailsSent(): Promise<void>;
  /** Stop taking jobs, let the running ones reach a frame boundary (at most `graceMs`), sign off, end the job processes and wait for mail in flight. */
  stop(graceMs: number): Promise<void>;
}

/** The composition root of the background work: engine, processors, completion mail, webhooks and presence. */
export function composeWork(options: WorkOptions): Work {
  const { store, log, limits } = options;
  const concurrency = options.concurrency ?? 1;
  const workerId = newWorkerId();
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const heartbeatMs = options.heartbeatMs ?? Math.min(5_000, Math.floor(leaseMs / 3));
  // A process that runs no jobs only cancels OCR batches with the engine, and keeps no job process started ahead.
  const own = options.engine
    ? null
    : createEngine({ memoryLimit: limits.jobMemory, warm: options.runsJobs, ...(options.childScript ? { childScript: options.childScript } : {}) });
  const engine = options.engine ?? own!;
  const sendMail = completionMailer(options.settings, log, options.linkBase);
  const mails = new Set<Promise<void>>();
  // The email goes out beside the queue, so a slow mail server never holds up the next job.
  const onDone = async (job: { jobId: string; emailNotif: boolean } & Parameters<typeof sendMail>[0]): Promise<void> => {
    if (!job.emailNotif) return;
    const sending = sendMail(job).catch((e: unknown) => log.warn({ job: jobTag(job.jobId), err: describeError(e) }, 'completion email failed'));
    mails.add(sending);
    void sending.finally(() => mails.delete(sending));
  };
  const processors = Array.from({ length: concurrency }, (_, slot) =>
    createProcessor({
      store,
      dataDir: options.dataDir,
      engine,
      log,
      workerId: concurrency === 1 ? workerId : `${workerId}/${slot + 1}`,
      leaseMs,
      heartbeatMs,
      minFreeDisk: limits.minFreeDisk,
      jobTimeMs: limits.jobTimeMs,
      retention: options.retention,
      housekeeping: slot === 0,
      clock: options.clock,
      onDone,
      ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
      ...(options.workers ? { workers: options.workers } : {}),
      ...(options.retryMs ? { retryMs: options.retryMs } : {}),
      ...(options.clientPollEveryMs !== undefined ? { clientPollEveryMs: options.clientPollEveryMs } : {}),
      ...(options.ocrBatch ? { ocrBatch: options.ocrBatch } : {}),
    }),
  );
  const webhooks = createWebhookSender({
    store,
    log,
    policy: { allowPrivate: options.allowPrivateWebhooks === true },
    senderId: workerId,
    clock: options.clock,
    ...(options.webhookRetryDelaysMs ? { retryDelaysMs: options.webhookRetryDelaysMs } : {}),
  });
  let presence: Presence | null = null;
  let started = false;
  return {
    workerId,
    processors,
    webhooks,
    async mailsSent() {
      while (mails.size > 0) await Promise.allSettled([...mails]);
    },
    start(tickMs) {
      if (started) return;
      started = true;
      webhooks.start(tickMs);
      if (!options.runsJobs) return;
      for (const p of processors) p.start(tickMs);
      presence = startPresence(store, { workerId, concurrency, leaseMs, heartbeatMs, log });
    },
    async stop(graceMs) {
      await Promise.all(processors.map((p) => p.stop(graceMs)));
      await presence?.stop();
      await webhooks.stop();
      // Ends the job processes: a run that did not reach a frame boundary in the grace period ends now, and its
      // project is removed before the database closes, however long its frame would have taken.
      await own?.close();
      await Promise.all(processors.map((p) => p.finished(graceMs)));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...mails]), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    },
  };
}
