import { statfs } from 'node:fs/promises';
import { isQuireError } from '../errors.js';

/** Bytes free to this process on the disk holding `path`, or null when the system cannot say. */
export async function freeBytes(path: string): Promise<number | null> {
  try {
    const s = await statfs(path);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

const FULL = new Set(['ENOSPC', 'EDQUOT']);

/** A write failed because the disk (or the user's quota) is full: a transient cause, never the job's fault. */
export function isDiskFull(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && depth < 4; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && FULL.has(code)) return true;
    if (isQuireError(cur) && /ENOSPC|EDQUOT|no space left on device/i.test(`${cur.message} ${cur.detail ?? ''}`)) return true;
    if (cur instanceof Error && /ENOSPC|EDQUOT|no space left on device/i.test(cur.message)) return true;
  }
  return false;
}
