import { mkdir } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ConvertEngine } from '../convert/index.js';
import { describeError } from '../errors.js';
import { DEFAULT_RETENTION, parseLimits, parseRetention, serverSecrets, type ServerSettings } from './config.js';
import { createEngine } from './engine.js';
import { uploadsDir } from './layout.js';
import { completionMailer } from './mailer.js';
import { openPgStore } from './pg-store.js';
import { startPresence } from './presence.js';
import { createProcessor, type Processor, type ProcessorLog } from './processor.js';
import { jobTag } from './secrets.js';
import { openSqliteStore } from './sqlite-store.js';
import { DEFAULT_LEASE_MS, type JobStore } from './store.js';
import { createWebhookSender } from './webhooks.js';

export interface WorkerOptions {
  /** `postgres://…`; without it, the SQLite file at `dbPath` (workers on this machine only). */
  databaseUrl?: string;
  dbPath?: string;
  /** The job folders, shared with the servers (on several machines: one network mount, at any path). */
  dataDir: string;
  /** Where this machine keeps the server's secrets (the SMTP password), in `.env`. */
  appData: string;
  /** Jobs converted at once; default 1. */
  concurrency?: number;
  /** How long the worker holds a job without renewing its lease; default 60 s. */
  leaseMs?: number;
  /** Attempts of a job before it fails; default 3. */
  maxAttempts?: number;
  /** Pipeline threads per job; default the number of cores. */
  workers?: number;
  /** Background tick; default 2 s (a job queued on PostgreSQL wakes the worker at once). */
  tickMs?: number;
  allowPrivateWebhooks?: boolean;
  webhookRetryDelaysMs?: readonly number[];
  log: ProcessorLog;
  /** The conversion verbs; by default each call in a process of its own. */
  engine?: ConvertEngine;
}

export interface QuireWorker {
  /** `host:pid:nonce`; its processors hold jobs as `<workerId>/<slot>`. */
  workerId: string;
  store: JobStore;
  processors: Processor[];
  /** Stop claiming, let the running jobs reach a frame boundary (at most `graceMs`) and put them back, sign off. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * `quire worker`: drains the queue of a job database shared with `quire server --no-worker` processes, with
 * `concurrency` jobs at once, each in a process of its own. It claims jobs atomically and renews its lease while it
 * works; killed, its jobs are taken back by another worker once the lease has run out. It polls parked OCR batches,
 * applies retention, delivers webhooks and sends completion emails for the jobs it finishes.
 */
export async function startWorker(options: WorkerOptions): Promise<QuireWorker> {
  const store = options.databaseUrl
    ? await openPgStore(options.databaseUrl, { onError: (e) => options.log.warn({ err: describeError(e) }, 'database connection lost; reconnecting') })
    : openSqliteStore(options.dbPath ?? join(options.appData, 'quire-server.db'));
  const limits = parseLimits((await store.getConfig('limits')) ?? '{}');
  const retention = { ...DEFAULT_RETENTION, ...parseRetention((await store.getConfig('retention')) ?? '{}') };
  await mkdir(uploadsDir(options.dataDir), { recursive: true, mode: 0o700 });
  const settings: ServerSettings = { store, secrets: serverSecrets(options.appData) };
  const concurrency = options.concurrency ?? 1;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const heartbeatMs = Math.min(5_000, Math.floor(leaseMs / 3));
  const tickMs = options.tickMs ?? 2_000;
  const workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const engine = options.engine ? null : createEngine({ memoryLimit: limits.jobMemory });
  const sendMail = completionMailer(settings, options.log, async () => 'http://127.0.0.1:4674');
  const processors = Array.from({ length: concurrency }, (_, slot) =>
    createProcessor({
      store,
      dataDir: options.dataDir,
      engine: options.engine ?? engine!,
      log: options.log,
      workerId: concurrency === 1 ? workerId : `${workerId}/${slot + 1}`,
      leaseMs,
      heartbeatMs,
      minFreeDisk: limits.minFreeDisk,
      jobTimeMs: limits.jobTimeMs,
      retention,
      housekeeping: slot === 0,
      ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
      ...(options.workers ? { workers: options.workers } : {}),
      onDone: async (job) => {
        if (!job.emailNotif) return;
        await sendMail(job).catch((e: unknown) => options.log.warn({ job: jobTag(job.jobId), err: describeError(e) }, 'completion email failed'));
      },
    }),
  );
  const webhooks = createWebhookSender({
    store,
    log: options.log,
    policy: { allowPrivate: options.allowPrivateWebhooks === true },
    senderId: workerId,
    ...(options.webhookRetryDelaysMs ? { retryDelaysMs: options.webhookRetryDelaysMs } : {}),
  });
  const presence = startPresence(store, { workerId, concurrency, leaseMs, heartbeatMs, log: options.log });
  for (const p of processors) p.start(tickMs);
  webhooks.start(tickMs);

  let stopping: Promise<void> | null = null;
  return {
    workerId,
    store,
    processors,
    stop(graceMs = 10_000) {
      stopping ??= (async () => {
        await Promise.all(processors.map((p) => p.stop(graceMs)));
        await webhooks.stop();
        await presence.stop();
        await engine?.close();
        await store.close();
      })();
      return stopping;
    },
  };
}
