/**
 * The HTTP job server (`quire server`): uploads in, conversions drained from a queue by a background worker,
 * artifacts served by capability URL. `createApp` builds it without listening; the CLI listens.
 */
export { createApp, DEFAULT_MAX_UPLOAD, DEFAULT_PORT, DEFAULT_RUN_RATE, type CreateAppOptions, type QuireServer } from './app.js';
export { parseBaseUrl, parseSmtpConfig, setServerConfig, showServerConfig, SETTABLE } from './config.js';
export { nextOcrPoll, OCR_BATCH_TIMED_OUT } from './processor.js';
export { openSqliteStore } from './sqlite-store.js';
export type { Job, JobStore } from './store.js';
