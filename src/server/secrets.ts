import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A job id: 16 bytes from the CSPRNG, base64url, 22 characters. It is also the capability for downloads. */
export function newJobId(): string {
  return randomBytes(16).toString('base64url');
}

/** A raw API key: 32 bytes, base64url, 43 characters. Shown once; only its hash is stored. */
export function newApiKey(): string {
  return randomBytes(32).toString('base64url');
}

/** The admin secret, created on first run (or rotated); only its hash is kept, in the config table. */
export function newAdminSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** An admin session's cookie token, or its CSRF token. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashKey(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/**
 * Compare a given secret with the stored one without leaking, through timing, how much of it matched. Both
 * sides are hashed first so they have the same length whatever the caller sent.
 */
export function secretMatches(given: string | undefined, stored: string): boolean {
  if (typeof given !== 'string' || given === '') return false;
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(stored, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** Whether `given` is the secret whose sha256 (hex) is `storedHash`, compared in constant time. */
export function matchesHash(given: string | undefined, storedHash: string | null): boolean {
  if (typeof given !== 'string' || given === '' || storedHash === null || !/^[0-9a-f]{64}$/.test(storedHash)) return false;
  return timingSafeEqual(createHash('sha256').update(given, 'utf8').digest(), Buffer.from(storedHash, 'hex'));
}

/** Job ids as `newJobId` makes them; anything else is answered 404 without touching the database or disk. */
export function isJobId(value: string): boolean {
  return /^[A-Za-z0-9_-]{22}$/.test(value);
}

/**
 * A job as the log names it: a short hash of its id. The id is the download credential, so it never reaches a log
 * line; the tag still lets an operator follow one job through the log (and find it, given the id).
 */
export function jobTag(jobId: string): string {
  return createHash('sha256').update(jobId, 'utf8').digest('hex').slice(0, 12);
}
