import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { ConvertEngine } from '../convert/index.js';
import { describeError } from '../errors.js';
import { errorBody } from '../http/index.js';
import { appDataDir } from '../project/index.js';
import { registerAdminRoutes } from './admin-routes.js';
import { createEngine } from './engine.js';
import { ADMIN_SECRET_KEY, parseBaseUrl, readSmtpConfig } from './config.js';
import type { ServerContext } from './context.js';
import { apiError, errorHandler, HTTP_ERRORS } from './http-errors.js';
import { registerJobRoutes } from './job-routes.js';
import { uploadsDir } from './layout.js';
import { loggerOptions } from './logging.js';
import { sendCompletionMail } from './mailer.js';
import { createProcessor, type OcrBatch, type Processor } from './processor.js';
import { newAdminSecret } from './secrets.js';
import { openSqliteStore } from './sqlite-store.js';
import type { ApiKey, Job, JobStore } from './store.js';
import { sweepLeftovers } from './sweep.js';

export const DEFAULT_PORT = 4674;
export const DEFAULT_MAX_UPLOAD = 2 * 1024 ** 3;
/** Generous: a person or a script submitting a book at a time never meets it; a runaway loop does. */
export const DEFAULT_RUN_RATE = { max: 120, timeWindowMs: 60_000 };

export interface CreateAppOptions {
  /** Default `<APP_DATA>/quire-server.db`. */
  dbPath?: string;
  /** Job folders; default `<APP_DATA>/server_data`. */
  dataDir?: string;
  /** Another store (PostgreSQL, later) instead of the SQLite file at `dbPath`. */
  store?: JobStore;
  /** Run the background ticker (default true); with false a test drives `processor.tick()` by hand. */
  startWorker?: boolean;
  /** Stored as `base_url`, the prefix of download links. */
  publicUrl?: string;
  /** Largest upload in bytes; default 2 GiB. */
  maxUpload?: number;
  /** `POST /run` per API key; default 120 a minute. */
  runRateLimit?: { max: number; timeWindowMs: number };
  /** Background tick; default 2 s. */
  tickMs?: number;
  /** How long shutdown waits for the running job to reach a frame boundary; default 10 s. */
  shutdownGraceMs?: number;
  /** A held job whose worker has not beaten for this long is taken back; default 60 s. */
  leaseMs?: number;
  heartbeatMs?: number;
  /** Pipeline threads per job; default the number of cores. */
  workers?: number;
  /** Leftovers older than this are swept at start and every hour; default 15 minutes. */
  sweepAfterMs?: number;
  /** The conversion verbs; by default on a thread of their own, or a test's stand-in. */
  engine?: ConvertEngine;
  /** Stands in for the processor's own OCR batch poller (tests of the routes alone). */
  ocrBatch?: OcrBatch;
  /** The clock of the OCR batch schedule (1, 2, 4 … 512 minutes from submission); default `Date.now`. */
  clock?: () => number;
  /** pino through fastify: false (default) for silence, or a level and optionally a stream. */
  logger?: false | { level?: string; stream?: { write(line: string): void } };
}

export interface QuireServer {
  /** The fastify instance, not listening: `app.inject` in tests, `app.listen` in `quire server`. */
  app: FastifyInstance;
  processor: Processor;
  store: JobStore;
  dataDir: string;
  adminSecret: string;
  /** Start the background worker, when `createApp` was told not to (`quire server` starts it once listening). */
  startWorker(): void;
  /** Prefix of links (download links, the admin URL): `base_url`, else the listening address. */
  linkBase(): Promise<string>;
  /** Stop taking uploads, put the running job back to `pending` at a frame boundary, close the server and database. */
  close(): Promise<void>;
}

/** Build the job server: database, folders, routes and worker, without listening. */
export async function createApp(options: CreateAppOptions = {}): Promise<QuireServer> {
  const dataDir = options.dataDir ?? join(appDataDir(), 'server_data');
  const store = options.store ?? openSqliteStore(options.dbPath ?? join(appDataDir(), 'quire-server.db'));
  const maxUpload = options.maxUpload ?? DEFAULT_MAX_UPLOAD;
  const rate = options.runRateLimit ?? DEFAULT_RUN_RATE;
  const graceMs = options.shutdownGraceMs ?? 10_000;
  const sweepAfterMs = options.sweepAfterMs ?? 15 * 60_000;
  await mkdir(uploadsDir(dataDir), { recursive: true, mode: 0o700 });
  if (options.publicUrl) await store.setConfig('base_url', parseBaseUrl(options.publicUrl));
  // First writer wins, so two servers starting on one database agree on the secret.
  const adminSecret = await store.setConfigOnce(ADMIN_SECRET_KEY, newAdminSecret());

  const app = Fastify({
    logger: options.logger ? loggerOptions(options.logger.level ?? 'info', options.logger.stream) : false,
    // Uploads can take long; what ends a stalled one is two minutes without a byte.
    connectionTimeout: 120_000,
    requestTimeout: 0,
    bodyLimit: 64 * 1024,
  });
  await app.register(multipart, { throwFileSizeLimit: true });
  await app.register(rateLimit, { global: false });
  // Plain HTML forms (the admin page) post URL-encoded bodies.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((_request, reply) => {
    void reply.code(404).send(errorBody('no_route', HTTP_ERRORS.no_route.message));
  });

  const runKeys = new WeakMap<FastifyRequest, number>();
  const checkRun = app.createRateLimit({ max: rate.max, timeWindow: rate.timeWindowMs, keyGenerator: (request) => `key:${runKeys.get(request) ?? 0}` });

  let draining = false;
  const mails = new Set<Promise<void>>();
  const linkBase = async (request?: FastifyRequest): Promise<string> => {
    const stored = await store.getConfig('base_url');
    if (stored) return stored;
    const address = app.server.address();
    if (address && typeof address === 'object') {
      const wildcard = address.address === '0.0.0.0' || address.address === '::';
      if (wildcard && request) return `${request.protocol}://${request.host}`;
      const host = wildcard ? hostname() : address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return `http://${host}:${address.port}`;
    }
    return request ? `${request.protocol}://${request.host}` : `http://127.0.0.1:${DEFAULT_PORT}`;
  };

  const sendMail = async (job: Job): Promise<void> => {
    const smtp = await readSmtpConfig(store);
    if (!smtp) {
      app.log.info({ jobId: job.jobId }, 'no smtp setting; completion email not sent');
      return;
    }
    const key = await store.getKey(job.keyId);
    if (!key) return;
    const base = await linkBase();
    await sendCompletionMail(smtp, {
      to: key.email,
      docName: job.docName ?? job.uploadName,
      pdfUrl: `${base}/download/${job.jobId}/pdf`,
      mdUrl: job.hasMd ? `${base}/download/${job.jobId}/md` : null,
    });
    app.log.info({ jobId: job.jobId, keyId: key.keyId }, 'completion email sent');
  };

  // The engine runs on its own thread; a test may stand in for it.
  const thread = options.engine ? null : createEngine();
  const processor = createProcessor({
    store,
    dataDir,
    engine: options.engine ?? thread!,
    log: app.log,
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.workers ? { workers: options.workers } : {}),
    ...(options.ocrBatch ? { ocrBatch: options.ocrBatch } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    // The email goes out beside the queue, so a slow mail server never holds up the next job.
    onDone: async (job) => {
      if (!job.emailNotif) return;
      const sending = sendMail(job).catch((e: unknown) => app.log.warn({ jobId: job.jobId, err: describeError(e) }, 'completion email failed'));
      mails.add(sending);
      void sending.finally(() => mails.delete(sending));
    },
  });

  const ctx: ServerContext = {
    store,
    processor,
    dataDir,
    maxUpload,
    adminSecret,
    draining: () => draining,
    linkBase,
    async checkRunRate(request: FastifyRequest, key: ApiKey) {
      runKeys.set(request, key.keyId);
      const limit = await checkRun(request);
      if (!limit.isAllowed && limit.isExceeded) throw apiError('rate_limited');
    },
  };
  app.get('/health', async () => ({ ok: true }));
  registerJobRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  await app.ready();

  await sweepLeftovers(store, dataDir, sweepAfterMs).catch((e: unknown) => app.log.warn({ err: describeError(e) }, 'sweep failed'));
  const sweeper = setInterval(() => {
    sweepLeftovers(store, dataDir, sweepAfterMs).catch((e: unknown) => app.log.warn({ err: describeError(e) }, 'sweep failed'));
  }, 60 * 60_000);
  sweeper.unref();
  const startWorker = (): void => processor.start(options.tickMs ?? 2_000);
  if (options.startWorker !== false) startWorker();

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      draining = true;
      clearInterval(sweeper);
      await processor.stop(graceMs);
      await thread?.close();
      await Promise.race([Promise.allSettled([...mails]), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      // Requests in flight get a moment to end; an upload still streaming after it is cut (its partial file is removed).
      const closed = app.close();
      const cut = setTimeout(() => app.server.closeAllConnections(), Math.min(graceMs, 5_000));
      await closed;
      clearTimeout(cut);
      await store.close();
    })());
  return { app, processor, store, dataDir, adminSecret, startWorker, linkBase: () => linkBase(), close };
}
