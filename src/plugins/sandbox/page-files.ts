/**
 * Page pixels between the host and a page plugin's process: two files in the run's exchange folder (on the memory
 * file system where there is one), written in place and never truncated, so their memory pages are allocated once
 * per run and each page costs one copy in and one copy out on each side.
 */
import { closeSync, existsSync, openSync, readSync, writeSync } from 'node:fs';

/** The host writes the page here; the child reads it. */
export const PAGE_IN = 'page-in.raw';
/** The child writes the processed page here; the host reads it. */
export const PAGE_OUT = 'page-out.raw';

/** Write `bytes` at the start of `path` (made when missing), leaving what lies beyond them. */
export function writePageFile(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, existsSync(path) ? 'r+' : 'w+', 0o600);
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, done);
  } finally {
    closeSync(fd);
  }
}

/** Read the first `into.length` bytes of `path` into `into`; false when the file is shorter. */
export function readPageFile(path: string, into: Uint8Array): boolean {
  const fd = openSync(path, 'r');
  try {
    let done = 0;
    while (done < into.length) {
      const n = readSync(fd, into, done, into.length - done, done);
      if (n === 0) return false;
      done += n;
    }
    return true;
  } finally {
    closeSync(fd);
  }
}
