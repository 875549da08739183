import { retryLater } from './http-errors.js';

/** Addresses remembered at once; past this the oldest windows are forgotten (a flood of addresses costs bounded memory). */
const MAX_ADDRESSES = 50_000;

/**
 * Failed authentication (a wrong API key or admin secret) counted per client address in windows of `windowMs`:
 * past `maxFailures` in one window, that address is refused with 429 before any key it sends is even looked up,
 * until the window ends. Time comes from `clock`, so a test moves it instead of waiting.
 */
export interface AuthThrottle {
  /** Throws 429 `auth_throttled` (with Retry-After) while `address` is over its allowance. */
  check(address: string): void;
  /** One more failure from `address`. */
  failed(address: string): void;
}

export function createAuthThrottle(options: { maxFailures: number; windowMs: number; clock: () => number }): AuthThrottle {
  const { maxFailures, windowMs, clock } = options;
  const windows = new Map<string, { start: number; failures: number }>();
  const current = (address: string): { start: number; failures: number } | null => {
    const w = windows.get(address);
    if (!w) return null;
    if (clock() - w.start < windowMs) return w;
    windows.delete(address);
    return null;
  };
  return {
    check(address) {
      const w = current(address);
      if (w && w.failures >= maxFailures) throw retryLater('auth_throttled', (w.start + windowMs - clock()) / 1000);
    },
    failed(address) {
      const w = current(address);
      if (w) {
        w.failures++;
        return;
      }
      if (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value!);
      windows.set(address, { start: clock(), failures: 1 });
    },
  };
}
