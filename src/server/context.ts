import type { FastifyRequest } from 'fastify';
import type { Admission } from './admission.js';
import type { ServerLimits } from './config.js';
import type { Clock } from './clock.js';
import type { Processor } from './processor-types.js';
import type { AuthThrottle } from './throttle.js';
import type { ApiKey, Job, JobStore } from './store.js';
import type { WebhookPolicy } from './webhooks.js';

/** What the routes share: built once by `createApp`. */
export interface ServerContext {
  store: JobStore;
  processor: Processor;
  /** What decides sessions' expiry and stamps jobs created and cancelled: the processor's clock. */
  clock: Clock;
  dataDir: string;
  maxUpload: number;
  limits: ServerLimits;
  admission: Admission;
  /** Wrong keys and admin secrets, counted per client address. */
  authThrottle: AuthThrottle;
  /** True once shutdown began: `/run` takes no more uploads. */
  draining(): boolean;
  /** Prefix of download links: `base_url`, else the request's own origin (and a trusted proxy's prefix), else the listening address. */
  linkBase(request?: FastifyRequest): Promise<string>;
  /** The path a trusted reverse proxy serves this server under (`X-Forwarded-Prefix`), '' when none. */
  pathPrefix(request: FastifyRequest): string;
  /** Count one `/run` against the key's rate limit; throws 429 past it. */
  checkRunRate(request: FastifyRequest, key: ApiKey): Promise<void>;
  /** Whether `webhook_url` may point to loopback and private addresses. */
  webhookPolicy: WebhookPolicy;
  /**
   * A client looked at a parked job: have its batch polled soon, by this process's worker when it has one, else by
   * whichever worker ticks next.
   */
  requestPoll(job: Job): void;
  /**
   * Stop these jobs (already cancelled or deleted in the store): a running one at its next frame, its files removed;
   * a parked one's batch is cancelled and its files removed in the background, so the caller answers without
   * waiting on the OCR service.
   */
  stopJobs(jobs: Job[]): Promise<void>;
}
