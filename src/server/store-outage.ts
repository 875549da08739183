import { describeError } from '../errors.js';
import { retryLater } from './http-errors.js';
import type { JobStore } from './store.js';

/** How long a client is told to wait when the database does not answer: a restart or a fail-over takes about this. */
export const DATABASE_RETRY_S = 10;

/** Errors that say the database cannot be reached or is not taking queries now, not that a query is wrong. */
const PG_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|08\d{3}|57P0[123]|57014|53300)$/;
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR)/;
const PG_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|connection error and is not queryable|Query read timeout|The database connection is not open/i;

/** Whether `error` means the database is down or unreachable (so the request may well succeed in a moment). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (PG_CODES.test(code) || SQLITE_CODES.test(code))) return true;
  return error instanceof Error && PG_MESSAGES.test(error.message);
}

/**
 * The store as the HTTP routes use it: a call that fails because the database is down answers 503
 * `database_unavailable` with `Retry-After`, not a 500; the cause goes to the log once per call, as a warning.
 */
export function storeForRequests(store: JobStore, warn: (detail: object, message: string) => void): JobStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const outage = (e: unknown): never => {
          if (!isDatabaseUnavailable(e)) throw e;
          warn({ err: describeError(e) }, 'the database does not answer');
          throw retryLater('database_unavailable', DATABASE_RETRY_S);
        };
        try {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result instanceof Promise ? result.catch(outage) : result;
        } catch (e) {
          return outage(e);
        }
      };
    },
  });
}
