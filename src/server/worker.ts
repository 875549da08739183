import { join } from 'node:path';
import type { ConvertEngine } from '../convert/index.js';
import { describeError } from '../errors.js';
import { systemClock } from './clock.js';
import { composeWork, openStore, readServerSetup } from './compose.js';
import { serverSecrets } from './config.js';
import type { Processor, ProcessorLog } from './processor-types.js';
import type { JobStore } from './store.js';

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
  const log = options.log;
  const store = await openStore({
    databaseUrl: options.databaseUrl,
    dbPath: options.dbPath ?? join(options.appData, 'quire-server.db'),
    onError: (e) => log.warn({ err: describeError(e) }, 'database connection lost; reconnecting'),
  });
  const { limits, retention } = await readServerSetup(store, options.dataDir);
  const work = composeWork({
    store,
    dataDir: options.dataDir,
    settings: { store, secrets: serverSecrets(options.appData) },
    limits,
    retention,
    log,
    clock: systemClock,
    runsJobs: true,
    concurrency: options.concurrency,
    engine: options.engine,
    leaseMs: options.leaseMs,
    maxAttempts: options.maxAttempts,
    workers: options.workers,
    allowPrivateWebhooks: options.allowPrivateWebhooks,
    webhookRetryDelaysMs: options.webhookRetryDelaysMs,
    linkBase: async () => 'http://127.0.0.1:4674',
  });
  work.start(options.tickMs ?? 2_000);

  let stopping: Promise<void> | null = null;
  return {
    workerId: work.workerId,
    store,
    processors: work.processors,
    stop(graceMs = 10_000) {
      stopping ??= (async () => {
        await work.stop(graceMs);
        await store.close();
      })();
      return stopping;
    },
  };
}
