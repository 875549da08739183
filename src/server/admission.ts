import type { IncomingHttpHeaders } from 'node:http';
import type { ServerLimits } from './config.js';
import { freeBytes } from './disk.js';
import { retryLater } from './http-errors.js';
import type { ApiKey, JobStore } from './store.js';

/** How long a client is told to wait when a key's stored files are over its allowance: until it deletes some. */
const STORAGE_RETRY_S = 3600;
/** When the disk is short: a sweep or a finished job may free room soon. */
const DISK_RETRY_S = 300;
/** When the queue of a key is full: the next job done makes room. */
const QUEUE_RETRY_S = 60;
/** When every upload slot is taken: uploads end all the time. */
const BUSY_RETRY_S = 5;

/** Room for the form's boundaries and short fields around the file, when judging a request by its Content-Length. */
export const FORM_OVERHEAD = 64 * 1024;

/** An API key given in a header: `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
export function headerKey(headers: IncomingHttpHeaders): string | null {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1];
  }
  const x = headers['x-api-key'];
  return typeof x === 'string' && x.trim() !== '' ? x.trim() : null;
}

/** The body length a request declares, or null (chunked, or none given). */
export function declaredLength(headers: IncomingHttpHeaders): number | null {
  const n = Number(headers['content-length']);
  return headers['content-length'] !== undefined && Number.isFinite(n) && n >= 0 ? n : null;
}

/**
 * Who may upload now: uploads streaming at once (in all and per key), a key's waiting jobs and stored bytes, and
 * the disk's free space. Every check that needs no body runs before one byte of it is read (and before
 * `100 Continue`, so a client that asks first never sends a refused body).
 */
export interface Admission {
  /** Refusal for want of disk: `declared` is the body's length. */
  checkDisk(declared: number | null): Promise<void>;
  /** Refusal when every upload slot is taken (for a request that holds none yet: `enter` checks its own). */
  checkSlots(): void;
  /** Refusals for this key: its uploads in flight (other than one `bind` counted already), and {@link checkQuota}. */
  checkKey(key: ApiKey, declared: number | null): Promise<void>;
  /** Refusals for this key's allowance: its waiting jobs, and its stored bytes with `bytes` more. */
  checkQuota(key: ApiKey, bytes: number): Promise<void>;
  /** Take an upload slot for as long as the request streams, once its key is verified; refuses with 503 when none is free. */
  enter(): Slot;
  /**
   * Count a `/run` from `address` that has not shown its key yet (it holds no upload slot); refuses with 429 past
   * `unverifiedUploadsPerAddress`, so no one address can keep many connections open without a key.
   */
  awaitKey(address: string): Pass;
}

export interface Pass {
  leave(): void;
}

export interface Slot {
  /** Count the upload against its key's slots too (once the key is known); refuses with 429 past them. */
  bind(key: ApiKey): void;
  leave(): void;
}

export function createAdmission(store: JobStore, dataDir: string, limits: () => ServerLimits): Admission {
  let total = 0;
  const perKey = new Map<number, number>();
  const unverified = new Map<string, number>();

  const diskRoom = async (declared: number | null): Promise<void> => {
    const free = await freeBytes(dataDir);
    if (free !== null && free < limits().minFreeDisk + (declared ?? 0)) throw retryLater('disk_full', DISK_RETRY_S);
  };

  return {
    checkDisk: diskRoom,
    checkSlots() {
      if (total >= limits().uploadsTotal) throw retryLater('busy', BUSY_RETRY_S);
    },
    async checkKey(key, declared) {
      if ((perKey.get(key.keyId) ?? 0) >= limits().uploadsPerKey) throw retryLater('too_many_uploads', BUSY_RETRY_S);
      await this.checkQuota(key, declared ?? 0);
    },
    async checkQuota(key, bytes) {
      const l = limits();
      const usage = await store.keyUsage(key.keyId);
      if (usage.queued >= l.queuedJobsPerKey) {
        throw retryLater(
          'queue_full',
          QUEUE_RETRY_S,
          `This API key already has ${usage.queued} jobs waiting, as many as this server takes; submit more once some are done.`,
        );
      }
      if (usage.storedBytes + bytes > l.storedBytesPerKey) throw retryLater('storage_full', STORAGE_RETRY_S);
    },
    enter() {
      if (total >= limits().uploadsTotal) throw retryLater('busy', BUSY_RETRY_S);
      total++;
      let bound: number | null = null;
      let left = false;
      return {
        bind(key) {
          if (bound !== null || left) return;
          const n = perKey.get(key.keyId) ?? 0;
          if (n >= limits().uploadsPerKey) throw retryLater('too_many_uploads', BUSY_RETRY_S);
          perKey.set(key.keyId, n + 1);
          bound = key.keyId;
        },
        leave() {
          if (left) return;
          left = true;
          total--;
          if (bound === null) return;
          const n = (perKey.get(bound) ?? 1) - 1;
          if (n <= 0) perKey.delete(bound);
          else perKey.set(bound, n);
        },
      };
    },
    awaitKey(address) {
      const n = unverified.get(address) ?? 0;
      if (n >= limits().unverifiedUploadsPerAddress) throw retryLater('too_many_unverified', Math.ceil(limits().uploadKeyMs / 1000));
      unverified.set(address, n + 1);
      let left = false;
      return {
        leave() {
          if (left) return;
          left = true;
          const m = (unverified.get(address) ?? 1) - 1;
          if (m <= 0) unverified.delete(address);
          else unverified.set(address, m);
        },
      };
    },
  };
}
