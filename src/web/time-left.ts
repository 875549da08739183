/**
 * The time OCR still needs, from the engine's per-page reports: which page was read when, and how much work each page
 * holds (its ink, measured before it is read). Pages are read side by side (one a worker), in the order they were
 * handed over, so a page starts when a worker comes free: the n-th page after the first `sideBySide` starts when the
 * n-th page ends. The pace is the time a worker spends on one unit of work, measured on the pages that started that
 * way (the first ones also carry the engine's start-up and the language sample, and are left out); the rest is
 * played forward on the workers at that pace, the pages running now from when they started.
 */
import type { OcrPagesRead } from '../convert/index.js';

/** What the reports have said so far. */
export interface PagesRead {
  /** When each page was read (ms), by its place in the reading order. */
  readAt: Map<number, number>;
  works: Array<number | null>;
  /** Pages read more than once (turned the right way up, or in their own language): how many more times, and when the last reading started. */
  again: Map<number, { times: number; at: number }>;
  sideBySide: number;
}

function known(log: PagesRead | undefined, read: OcrPagesRead): PagesRead {
  const next = log ?? { readAt: new Map<number, number>(), works: [], again: new Map<number, { times: number; at: number }>(), sideBySide: 1 };
  next.works = read.works;
  next.sideBySide = Math.max(1, read.sideBySide);
  return next;
}

/** The page `read.order` was read, at `now`. */
export function recordRead(log: PagesRead | undefined, read: OcrPagesRead, now: number): PagesRead {
  const next = known(log, read);
  next.readAt.set(read.order, now);
  return next;
}

/** The page `read.order` is read once more: its work counts again. */
export function recordAgain(log: PagesRead | undefined, read: OcrPagesRead, now: number): PagesRead {
  const next = known(log, read);
  next.again.set(read.order, { times: (next.again.get(read.order)?.times ?? 0) + 1, at: now });
  return next;
}

/**
 * Seconds left until the last of `total` pages is read, and the count-down below which no figure is shown (`floor`:
 * the last page's own share, which the pace of the others cannot time to better than that). Undefined until one page
 * has been timed from its start.
 */
export function timeLeftByWork(log: PagesRead, total: number, now: number): { left: number; floor: number } | undefined {
  const workers = log.sideBySide;
  const read = [...log.readAt.entries()].sort((a, b) => a[1] - b[1]);
  const measured = log.works.filter((w): w is number => w !== null);
  const typical = measured.length > 0 ? measured.reduce((a, b) => a + b, 0) / measured.length : 1;
  const workOf = (order: number): number => log.works[order] ?? typical;
  /** A page read again was read whole that many more times. */
  const timesOf = (order: number): number => 1 + (log.again.get(order)?.times ?? 0);
  // When each page began, in the order they began: the first ones when the stage did (unknown: the engine's start-up
  // and the language sample), each later one when a worker came free, as a page ended.
  const starts: Array<number | undefined> = [...Array<undefined>(workers).fill(undefined), ...read.map(([, at]) => at)];

  // The n-th page to end is taken as the n-th to begin: pages end out of order, but the sum of their times is the same.
  let seconds = 0;
  let work = 0;
  read.forEach(([order, at], n) => {
    const start = starts[n];
    if (start === undefined) return;
    seconds += (at - start) / 1000;
    work += workOf(order) * timesOf(order);
  });
  if (work === 0) return undefined;
  const pace = seconds / work;
  const again = pageReadAgainPace(log, read, workOf) ?? pace;

  // When each worker is free again: after the page it reads now (begun at the latest starts; a page read again
  // begun afresh when its new reading began), not before now; the pages not begun follow on the first worker free.
  const unread = Array.from({ length: total }, (_, order) => order).filter((order) => !log.readAt.has(order));
  const free: number[] = [];
  unread.slice(0, workers).forEach((order, k) => {
    const anew = log.again.get(order)?.at;
    const start = anew ?? starts[read.length + k];
    const time = workOf(order) * (anew === undefined ? pace : again);
    free.push(start === undefined ? now / 1000 + time / 2 : Math.max(now / 1000, start / 1000 + time));
  });
  while (free.length < workers) free.push(now / 1000);
  free.sort((a, b) => a - b);
  for (const order of unread.slice(workers)) {
    const end = free.shift()! + workOf(order) * pace;
    const at = free.findIndex((f) => f > end);
    free.splice(at < 0 ? free.length : at, 0, end);
  }
  const left = Math.max(...free) - now / 1000;
  if (left <= 0) return undefined;
  return { left: Math.max(1, Math.round(left)), floor: typical * pace * FLOOR_SHARE };
}

/**
 * The pace of a page's second reading, measured on the pages read again that ended: it is not the first reading's (on
 * the example bundle, a French page read again in French took 20 s where reading it in English had taken 37 s).
 */
function pageReadAgainPace(log: PagesRead, read: Array<[number, number]>, workOf: (order: number) => number): number | undefined {
  let seconds = 0;
  let work = 0;
  for (const [order, at] of read) {
    const anew = log.again.get(order)?.at;
    if (anew === undefined) continue;
    seconds += (at - anew) / 1000;
    work += workOf(order);
  }
  return work > 0 ? seconds / work : undefined;
}

/** The share of one page's time below which the count-down is not shown: its end is within the pace's noise. */
const FLOOR_SHARE = 0.5;
