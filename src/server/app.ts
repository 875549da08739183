import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ConvertEngine } from '../convert/index.js';
import { describeError } from '../errors.js';
import { appDataDir } from '../project/index.js';
import { registerAdminRoutes } from './admin-routes.js';
import { createAdmission } from './admission.js';
import {
  ADMIN_SECRET_HASH_KEY,
  LEGACY_ADMIN_SECRET_KEY,
  moveSmtpPassword,
  parseBaseUrl,
  serverSecrets,
  type Retention,
  type ServerLimits,
  type ServerSettings,
} from './config.js';
import type { ServerContext } from './context.js';
import { apiError } from './http-errors.js';
import { answerExpectContinue, buildFastify, pathPrefixFor, registerServiceRoutes, trustFunction, type TrustProxy } from './http-app.js';
import { registerJobRoutes } from './job-routes.js';
import { jobDir } from './layout.js';
import { systemClock, type Clock } from './clock.js';
import { composeWork, openStore, readServerSetup } from './compose.js';
import type { OcrBatch, Processor } from './processor-types.js';
import { hashKey, jobTag, newAdminSecret } from './secrets.js';
import type { ApiKey, Job, JobStore } from './store.js';
import { storeForRequests } from './store-outage.js';
import { sweepLeftovers } from './sweep.js';
import { createAuthThrottle } from './throttle.js';
import type { WebhookSender } from './webhooks.js';

export const DEFAULT_PORT = 4674;
export const DEFAULT_MAX_UPLOAD = 2 * 1024 ** 3;
/** Generous: a person or a script submitting a book at a time never meets it; a runaway loop does. */
export const DEFAULT_RUN_RATE = { max: 120, timeWindowMs: 60_000 };

export type { TrustProxy } from './http-app.js';

export interface CreateAppOptions {
  /** Default `<APP_DATA>/quire-server.db`. */
  dbPath?: string;
  /** Job folders; default `<APP_DATA>/server_data`. */
  dataDir?: string;
  /** Where the server's secrets (the SMTP password) are kept, in `.env`; default the folder of `dbPath`. */
  appData?: string;
  /** `postgres://…`: the PostgreSQL store instead of the SQLite file at `dbPath` (several workers, several machines). */
  databaseUrl?: string;
  /** PostgreSQL: a statement not done by then is cancelled (and the request answered 503); default 30 s. */
  statementTimeoutMs?: number;
  /** Another store instead of either. */
  store?: JobStore;
  /** Run the background ticker (default true); with false a test drives `processor.tick()` by hand. */
  startWorker?: boolean;
  /**
   * This process converts jobs (default true). False (`quire server --no-worker`): it serves HTTP only and leaves the
   * queue to `quire worker` processes; it still delivers webhooks.
   */
  worker?: boolean;
  /** Let `webhook_url` point to loopback and private addresses (a receiver on the same network); default false. */
  allowPrivateWebhooks?: boolean;
  /** Waits between webhook attempts; default about five minutes in all (see `webhooks.ts`). */
  webhookRetryDelaysMs?: readonly number[];
  /** Stored as `base_url`, the prefix of download links. */
  publicUrl?: string;
  /** Largest upload in bytes; default 2 GiB. */
  maxUpload?: number;
  /** `POST /run` per API key; default 120 a minute. */
  runRateLimit?: { max: number; timeWindowMs: number };
  /** Over the `limits` setting of the config table, which is over the defaults. */
  limits?: Partial<ServerLimits>;
  /** Over the `retention` setting of the config table, which is over the defaults. */
  retention?: Partial<Retention>;
  /** Replace the admin secret (and end every admin session); the new one is in `adminSecret`. */
  rotateAdminSecret?: boolean;
  /** Believe these reverse proxies' forwarded headers; default none. */
  trustProxy?: TrustProxy;
  /** Background tick; default 2 s. */
  tickMs?: number;
  /** How long shutdown waits for the running job to reach a frame boundary; default 10 s. */
  shutdownGraceMs?: number;
  /** How long this server's worker holds a job without renewing its lease; default 60 s. */
  leaseMs?: number;
  heartbeatMs?: number;
  /** Pipeline threads per job; default the number of cores. */
  workers?: number;
  /** Leftovers older than this are swept at start and every hour; default 15 minutes. */
  sweepAfterMs?: number;
  /** How long a job put back for a full disk waits; default a minute. */
  retryMs?: number;
  /** A client's look at a parked job polls its batch at most this often; default 10 s (each poll is a process). */
  clientPollEveryMs?: number;
  /** The conversion verbs; by default each call in a process of its own (see `engine.ts`), or a test's stand-in. */
  engine?: ConvertEngine;
  /** The job process's entry point (a test runs the built one under the TypeScript runner). */
  childScript?: string;
  /** Stands in for the processor's own OCR batch poller (tests of the routes alone). */
  ocrBatch?: OcrBatch;
  /**
   * What decides leases, retries, the OCR batch schedule (1, 2, 4 … 512 minutes from submission), retention, webhook
   * retries and the auth throttle; default the wall clock. A test moves it instead of waiting.
   */
  clock?: Clock;
  /** pino through fastify: false (default) for silence, or a level and optionally a stream. */
  logger?: false | { level?: string; stream?: { write(line: string): void } };
}

export interface QuireServer {
  /** The fastify instance, not listening: `app.inject` in tests, `app.listen` in `quire server`. */
  app: FastifyInstance;
  processor: Processor;
  store: JobStore;
  /** Posts the webhooks of ended jobs (the background loop, or `deliverDue()` in tests). */
  webhooks: WebhookSender;
  /** The config table and the secrets beside it, as `quire server config` sets them. */
  settings: ServerSettings;
  dataDir: string;
  /** The admin secret when this start made it (the first start, or a rotation); null otherwise, as only its hash is kept. */
  adminSecret: string | null;
  limits: ServerLimits;
  retention: Retention;
  /**
   * Start the background work, when `createApp` was told not to (`quire server` starts it once listening): the job
   * worker (unless `worker: false`) and the webhook sender.
   */
  startWorker(): void;
  /** Resolves once the completion emails in flight were handed to the mail server, or failed. */
  mailsSent(): Promise<void>;
  /** Prefix of links (download links, the admin URL): `base_url`, else the listening address. */
  linkBase(): Promise<string>;
  /** Stop taking uploads, put the running job back to `pending` at a frame boundary, close the server and database. */
  close(): Promise<void>;
}

/** Build the job server: database, folders, routes and worker, without listening. */
export async function createApp(options: CreateAppOptions = {}): Promise<QuireServer> {
  const dataDir = options.dataDir ?? join(appDataDir(), 'server_data');
  const dbPath = options.dbPath ?? join(appDataDir(), 'quire-server.db');
  // Errors of idle database connections (a restart) are logged once the logger exists; the next query reconnects.
  let storeError = (_e: Error): void => undefined;
  const store =
    options.store ??
    (await openStore({ databaseUrl: options.databaseUrl, dbPath, statementTimeoutMs: options.statementTimeoutMs, onError: (e) => storeError(e) }));
  const runsJobs = options.worker !== false;
  const clock = options.clock ?? systemClock;
  const settings: ServerSettings = { store, secrets: serverSecrets(options.appData ?? (options.dbPath ? dirname(options.dbPath) : appDataDir())) };
  const maxUpload = options.maxUpload ?? DEFAULT_MAX_UPLOAD;
  const rate = options.runRateLimit ?? DEFAULT_RUN_RATE;
  const graceMs = options.shutdownGraceMs ?? 10_000;
  const sweepAfterMs = options.sweepAfterMs ?? 15 * 60_000;
  // Configuration is read and checked once, here: a bad setting stops the start with its sentence.
  const setup = await readServerSetup(store, dataDir);
  const limits: ServerLimits = { ...setup.limits, ...options.limits };
  const retention: Retention = { ...setup.retention, ...options.retention };
  if (options.publicUrl) await store.setConfig('base_url', parseBaseUrl(options.publicUrl));
  await moveSmtpPassword(settings);
  const adminSecret = await adminSecretAtStart(store, options.rotateAdminSecret === true);

  const { app, closeHttp } = await buildFastify({ logger: options.logger, trustProxy: options.trustProxy, limits });
  storeError = (e) => app.log.warn({ err: describeError(e) }, 'database connection lost; reconnecting');
  // The routes' store: a database that does not answer is a 503 with Retry-After, not a 500.
  const requestStore = storeForRequests(store, (detail, message) => app.log.warn(detail, message));
  const runKeys = new WeakMap<FastifyRequest, number>();
  const checkRun = app.createRateLimit({ max: rate.max, timeWindow: rate.timeWindowMs, keyGenerator: (request) => `key:${runKeys.get(request) ?? 0}` });

  const trusted = trustFunction(options.trustProxy);
  const pathPrefix = pathPrefixFor(trusted);
  let draining = false;
  const linkBase = async (request?: FastifyRequest): Promise<string> => {
    const stored = await requestStore.getConfig('base_url');
    if (stored) return stored;
    if (request && (trusted || !app.server.address())) return `${request.protocol}://${request.host}${pathPrefix(request)}`;
    const address = app.server.address();
    if (address && typeof address === 'object') {
      const wildcard = address.address === '0.0.0.0' || address.address === '::';
      if (wildcard && request) return `${request.protocol}://${request.host}`;
      const host = wildcard ? hostname() : address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return `http://${host}:${address.port}`;
    }
    return request ? `${request.protocol}://${request.host}` : `http://127.0.0.1:${DEFAULT_PORT}`;
  };

  const work = composeWork({
    store,
    dataDir,
    settings,
    limits,
    retention,
    log: app.log,
    clock,
    runsJobs,
    engine: options.engine,
    childScript: options.childScript,
    leaseMs: options.leaseMs,
    heartbeatMs: options.heartbeatMs,
    workers: options.workers,
    retryMs: options.retryMs,
    clientPollEveryMs: options.clientPollEveryMs,
    ocrBatch: options.ocrBatch,
    allowPrivateWebhooks: options.allowPrivateWebhooks,
    webhookRetryDelaysMs: options.webhookRetryDelaysMs,
    linkBase: () => linkBase(),
  });
  const [processor] = work.processors;
  const webhooks = work.webhooks;
  const parked = parkedJobs({ processor, store, dataDir, clock, log: app.log, runsJobs, clientPollEveryMs: options.clientPollEveryMs ?? 10_000 });
  const admission = createAdmission(requestStore, dataDir, () => limits);
  const authThrottle = createAuthThrottle({ maxFailures: limits.failedAuthPerMinute, windowMs: 60_000, clock });
  const ctx: ServerContext = {
    store: requestStore,
    processor,
    clock,
    dataDir,
    maxUpload,
    limits,
    admission,
    authThrottle,
    draining: () => draining,
    webhookPolicy: { allowPrivate: options.allowPrivateWebhooks === true },
    requestPoll: parked.requestPoll,
    linkBase,
    pathPrefix,
    async checkRunRate(request: FastifyRequest, key: ApiKey) {
      runKeys.set(request, key.keyId);
      const limit = await checkRun(request);
      if (!limit.isAllowed && limit.isExceeded) throw apiError('rate_limited', undefined, { 'retry-after': String(Math.max(1, limit.ttlInSeconds)) });
    },
    async stopJobs(jobs) {
      for (const job of jobs) {
        processor.abort(job.jobId);
        // A parked job's folder is what its batch is cancelled from: both go in the background. Any other job's folder
        // goes now, before the answer.
        if (job.status === 'ocr_pending') parked.cleanUp(job);
        else await rm(jobDir(dataDir, job.jobId), { recursive: true, force: true });
      }
    },
  };
  registerServiceRoutes(app, store, requestStore);
  registerJobRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  await app.ready();
  // Each connection costs a socket and memory whatever it sends: past the cap, Node closes new ones at once.
  app.server.maxConnections = limits.maxConnections;

  answerExpectContinue(app, ctx);

  await sweepLeftovers(store, dataDir, sweepAfterMs).catch((e: unknown) => app.log.warn({ err: describeError(e) }, 'sweep failed'));
  const sweeper = setInterval(() => {
    sweepLeftovers(store, dataDir, sweepAfterMs).catch((e: unknown) => app.log.warn({ err: describeError(e) }, 'sweep failed'));
  }, 60 * 60_000);
  sweeper.unref();
  const startWorker = (): void => work.start(options.tickMs ?? 2_000);
  if (options.startWorker !== false) startWorker();

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      draining = true;
      clearInterval(sweeper);
      await work.stop(graceMs);
      await Promise.race([parked.cleanedUp(), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      // Requests in flight get a moment to end; an upload still streaming after it is cut (its partial file is removed).
      closeHttp();
      const closed = app.close();
      const cut = setTimeout(() => app.server.closeAllConnections(), Math.min(graceMs, 5_000));
      await closed;
      clearTimeout(cut);
      await store.close();
    })());
  return {
    app,
    processor,
    store,
    webhooks,
    settings,
    dataDir,
    adminSecret,
    limits,
    retention,
    startWorker,
    mailsSent: () => work.mailsSent(),
    linkBase: () => linkBase(),
    close,
  };
}

/** What the routes do with a parked job (`ocr_pending`): have its batch polled, clean up after it is cancelled. */
function parkedJobs(o: {
  processor: Processor;
  store: JobStore;
  dataDir: string;
  clock: Clock;
  log: FastifyInstance['log'];
  runsJobs: boolean;
  clientPollEveryMs: number;
}): {
  requestPoll(job: Job): void;
  cleanUp(job: Job): void;
  cleanedUp(): Promise<unknown>;
} {
  /** When a client last had each parked job polled through the database (a server without a worker of its own). */
  const pollAsked = new Map<string, number>();
  const cleanups = new Set<Promise<void>>();
  return {
    requestPoll(job) {
      if (o.runsJobs) return o.processor.requestPoll(job);
      const now = o.clock();
      for (const [id, at] of pollAsked) if (now - at >= o.clientPollEveryMs) pollAsked.delete(id);
      if (pollAsked.has(job.jobId)) return;
      pollAsked.set(job.jobId, now);
      o.store
        .requestOcrPoll(job.jobId, now)
        .catch((e: unknown) => o.log.warn({ job: jobTag(job.jobId), err: describeError(e) }, 'OCR batch poll not asked for'));
    },
    /**
     * A cancelled or deleted parked job's leftovers, in the background: its remote OCR batch is cancelled (which may
     * take as long as the OCR service's deadline), then its folder removed. The request that ended the job has its
     * answer by then; the row already says what happened. A folder left by a crash meanwhile is swept later.
     */
    cleanUp(job) {
      const work = (async () => {
        await o.processor.cancelBatch(job);
        await rm(jobDir(o.dataDir, job.jobId), { recursive: true, force: true });
      })().catch((e: unknown) => o.log.warn({ job: jobTag(job.jobId), err: describeError(e) }, 'a cancelled job could not be cleaned up'));
      cleanups.add(work);
      void work.finally(() => cleanups.delete(work));
    },
    cleanedUp: () => Promise.allSettled([...cleanups]),
  };
}

/**
 * The admin secret at start: an earlier version's raw secret becomes its hash; a new one is made on the first start
 * (or when rotating) and returned, to be shown once. Null when one exists: it is never shown again.
 */
async function adminSecretAtStart(store: JobStore, rotate: boolean): Promise<string | null> {
  const legacy = await store.getConfig(LEGACY_ADMIN_SECRET_KEY);
  if (legacy !== null) {
    await store.setConfigOnce(ADMIN_SECRET_HASH_KEY, hashKey(legacy));
    await store.deleteConfig(LEGACY_ADMIN_SECRET_KEY);
  }
  const fresh = newAdminSecret();
  if (rotate) {
    await store.setConfig(ADMIN_SECRET_HASH_KEY, hashKey(fresh));
    await store.deleteAdminSessions();
    return fresh;
  }
  // First writer wins, so two servers starting on one database agree on the secret; only the winner shows it.
  return (await store.setConfigOnce(ADMIN_SECRET_HASH_KEY, hashKey(fresh))) === hashKey(fresh) ? fresh : null;
}

/**
 * The OpenAPI 3.1 document of the job server, as `GET /openapi.json` serves it, without a server: built on a
 * throwaway database and data folder (`quire server --print-openapi`).
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const dir = await mkdtemp(join(tmpdir(), 'quire-openapi-'));
  const idle = {
    convert: () => Promise.reject(new Error('no jobs here')),
    checkOcr: () => Promise.reject(new Error('no jobs here')),
    cancelOcr: async () => undefined,
  };
  try {
    const server = await createApp({ dbPath: ':memory:', dataDir: join(dir, 'server_data'), appData: dir, startWorker: false, engine: idle });
    try {
      return server.app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await server.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
