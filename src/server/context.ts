import type { FastifyRequest } from 'fastify';
import type { Processor } from './processor.js';
import type { ApiKey, JobStore } from './store.js';

/** What the routes share: built once by `createApp`. */
export interface ServerContext {
  store: JobStore;
  processor: Processor;
  dataDir: string;
  maxUpload: number;
  adminSecret: string;
  /** True once shutdown began: `/run` takes no more uploads. */
  draining(): boolean;
  /** Prefix of download links: `base_url`, else the listening address, else the request's own origin. */
  linkBase(request?: FastifyRequest): Promise<string>;
  /** Count one `/run` against the key's rate limit; throws 429 past it. */
  checkRunRate(request: FastifyRequest, key: ApiKey): Promise<void>;
}
