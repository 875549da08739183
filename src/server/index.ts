/**
 * The HTTP job server (`quire server`): uploads in, conversions drained from a queue by a background worker,
 * artifacts served by capability URL. `createApp` builds it without listening; the CLI listens.
 */
export {
  createApp,
  DEFAULT_MAX_UPLOAD,
  DEFAULT_PORT,
  DEFAULT_RUN_RATE,
  openApiDocument,
  type CreateAppOptions,
  type QuireServer,
  type TrustProxy,
} from './app.js';
export {
  DEFAULT_LIMITS,
  DEFAULT_RETENTION,
  parseBaseUrl,
  parseLimits,
  parseRetention,
  parseSmtpConfig,
  serverSecrets,
  setServerConfig,
  showServerConfig,
  SETTABLE,
  type Retention,
  type ServerLimits,
  type ServerSettings,
  type SmtpConfig,
} from './config.js';
export type { Clock } from './clock.js';
export { createEngine, DEFAULT_JOB_MEMORY, inProcessEngine, residentBytes, type Engine, type EngineOptions } from './engine.js';
export type { OcrBatch, Processor, TickResult } from './processor-types.js';
export { nextOcrPoll, OCR_BACKOFF_MINUTES, OCR_BATCH_TIMED_OUT } from './ocr-poller.js';
export { workerLogger } from './logging.js';
export { isPostgresUrl, openPgStore, withoutPassword } from './pg-store.js';
export { openSqliteStore } from './sqlite-store.js';
export { DEFAULT_LEASE_MS, type Job, type JobStore } from './store.js';
export { SIGNATURE_HEADER, signWebhook } from './webhooks.js';
export { startWorker, type QuireWorker, type WorkerOptions } from './worker.js';
