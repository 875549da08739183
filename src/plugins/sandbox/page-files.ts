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

/** Write `bytes[start, end)` at the same offsets of `path` (made when missing). */
export function writePageRanges(path: string, bytes: Uint8Array, ranges: ReadonlyArray<readonly [number, number]>): void {
  const fd = openSync(path, existsSync(path) ? 'r+' : 'w+', 0o600);
  try {
    for (const [start, end] of ranges) {
      let done = start;
      while (done < end) done += writeSync(fd, bytes, done, end - done, done);
    }
  } finally {
    closeSync(fd);
  }
}

/** Read `into[start, end)` from the same offsets of `path`; false when the file is shorter. */
export function readPageRanges(path: string, into: Uint8Array, ranges: ReadonlyArray<readonly [number, number]>): boolean {
  const fd = openSync(path, 'r');
  try {
    for (const [start, end] of ranges) {
      let done = start;
      while (done < end) {
        const n = readSync(fd, into, done, end - done, done);
        if (n === 0) return false;
        done += n;
      }
    }
    return true;
  } finally {
    closeSync(fd);
  }
}

/** The size of the blocks a page is compared in: 16 KiB, a few rows of a 300-dpi page. */
export const PAGE_BLOCK = 16 * 1024;
/** More changed ranges than this and the whole page is sent back. */
export const MAX_RANGES = 1024;

/**
 * The blocks of `now` that differ from `before` (same length), as merged byte ranges; `undefined` when more than
 * `MAX_RANGES` ranges or more than half the page changed, where sending the whole page costs less.
 */
export function changedRanges(before: Uint8Array, now: Uint8Array): Array<[number, number]> | undefined {
  const ranges: Array<[number, number]> = [];
  const a = Buffer.from(before.buffer, before.byteOffset, before.length);
  const b = Buffer.from(now.buffer, now.byteOffset, now.length);
  let changed = 0;
  for (let start = 0; start < a.length; start += PAGE_BLOCK) {
    const end = Math.min(start + PAGE_BLOCK, a.length);
    if (a.compare(b, start, end, start, end) === 0) continue;
    changed += end - start;
    if (changed * 2 > a.length) return undefined;
    const last = ranges.at(-1);
    if (last && last[1] === start) last[1] = end;
    else if (ranges.length === MAX_RANGES) return undefined;
    else ranges.push([start, end]);
  }
  return ranges;
}
