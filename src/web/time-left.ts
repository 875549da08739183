/**
 * The time OCR still needs, from the engine's per-page reports: which page was read when, and how much work each page
 * holds (its ink, measured before it is read). Pages are read side by side (one a worker), in the order they were
 * handed over, so a page starts when a worker comes free: the n-th page after the first `sideBySide` starts when the
 * n-th page ends (pages the native engine reads from one list end together, and count as one batch begun at once).
 * The pace is the time a worker spends on one unit of work, measured on the pages that started that way (the first
 * ones also carry the engine's start-up and the language sample, and are left out); the rest is played forward on the
 * workers at that pace, the pages running now from when they started. Second readings (a page turned, or read in its
 * own language) and the correction's second readings of doubtful words after the last page are counted too. What no
 * report tells before it happens — whether the next pages will be read again — makes the time a range (`most`).
 */
import type { OcrPagesRead } from '../convert/index.js';

/** What the reports have said so far. */
export interface PagesRead {
  /** When each page was read (ms), by its place in the reading order. */
  readAt: Map<number, number>;
  works: Array<number | null>;
  /** The correction reads doubtful words again once every page is read (`OcrPagesRead.checksWords`). */
  checksWords: boolean;
  /** Pages read more than once (turned the right way up, or in their own language): how many more times, and when the last reading started. */
  again: Map<number, { times: number; at: number }>;
  sideBySide: number;
}

function known(log: PagesRead | undefined, read: OcrPagesRead): PagesRead {
  const next = log ?? {
    readAt: new Map<number, number>(),
    works: [],
    checksWords: false,
    again: new Map<number, { times: number; at: number }>(),
    sideBySide: 1,
  };
  next.works = read.works;
  next.checksWords = read.checksWords === true;
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
 * Seconds left until the last of `total` pages is read and, with an engine that reads doubtful words again, the
 * correction has done so; and the count-down below which no figure is shown (`floor`: the last page's own share, which
 * the pace of the others cannot time to better than that). Undefined until one page has been timed from its start.
 *
 * `left` counts the second readings told so far (and the one of a page handed right after a page read again in its own
 * language); `most` also counts one for each of the next pages not yet read (`PAGES_THAT_MAY_BE_READ_AGAIN`), as any of
 * them may turn out to be in another language (or the wrong way up). Nothing tells which will, before the engine has
 * read them once: on the example bundle, its French third spread read first in English (the language of the sample
 * pages), the time was 40–60 % short until its first page's second reading began. The truth lies between the two.
 */
export function timeLeftByWork(log: PagesRead, total: number, now: number): { left: number; most: number; floor: number } | undefined {
  const workers = log.sideBySide;
  const read = [...log.readAt.entries()].sort((a, b) => a[1] - b[1]);
  const measured = log.works.filter((w): w is number => w !== null);
  const typical = measured.length > 0 ? measured.reduce((a, b) => a + b, 0) / measured.length : 1;
  const workOf = (order: number): number => log.works[order] ?? typical;
  // Pages that end together were read by one process from a list (the native engine): one batch, begun at once.
  const batches = batchesOf(read);
  // When each batch began, in the order they began: the first ones when the stage did (unknown: the engine's start-up
  // and the language sample), each later one when a worker came free, as a batch ended.
  const starts: Array<number | undefined> = [...Array<undefined>(workers).fill(undefined), ...batches.map((b) => b.end)];

  const pace = firstReadingPace(log, batches, starts, workOf);
  if (pace === undefined) return undefined;
  // After the pages, the correction's second readings of doubtful words: a share of a page's time for each page.
  const checking = log.checksWords ? total * typical * pace * CHECK_SHARE_LEAST : 0;
  const checkingMost = log.checksWords ? total * typical * pace * CHECK_SHARE : 0;
  const timedAgain = pageReadAgainPace(log, read, workOf);
  const again = timedAgain ?? pace * READ_AGAIN_LEAST;
  const againMost = timedAgain ?? pace * READ_AGAIN_MOST;

  const unread = Array.from({ length: total }, (_, order) => order).filter((order) => !log.readAt.has(order));
  // A page handed right after one read again in its own language is likely in it too (a spread, a chapter); and at
  // most, each of the next pages not yet read again is read twice, a second reading as long as the first.
  const likelyAgain = (order: number): number => (log.again.has(order - 1) && !log.again.has(order) ? 1 : 0);
  const mayBeAgain = new Set(unread.filter((order) => !log.again.has(order)).slice(0, PAGES_THAT_MAY_BE_READ_AGAIN));
  const mostAgain = (order: number): number => (mayBeAgain.has(order) || likelyAgain(order) > 0 ? workOf(order) * againMost : 0);
  const played: Played = { log, unread, batches, starts, workOf, pace, now };
  const play = (secondReading: number, extra: (order: number) => number): number =>
    batches.some((b) => b.orders.length > 1) ? playLists(played, extra) : playPages(played, secondReading, extra);
  const left = play(again, () => 0);
  const most = play(againMost, mostAgain);
  if (left === undefined || most === undefined || left <= 0) return undefined;
  const floor = typical * pace * FLOOR_SHARE;
  return { left: Math.max(1, Math.round(left + checking)), most: Math.max(1, Math.round(Math.max(left, most) + checkingMost)), floor };
}

/** What the rest of the reading is played forward from: the pages not read yet, the batches so far and their starts. */
interface Played {
  log: PagesRead;
  unread: number[];
  batches: Array<{ end: number; orders: number[] }>;
  starts: Array<number | undefined>;
  workOf: (order: number) => number;
  /** Seconds a worker spends on one unit of work in a first reading. */
  pace: number;
  now: number;
}

/**
 * Pages read by lists: which pages each running list holds is not told, so the work left is shared out evenly among
 * the workers, less what each has done since its list began. `extra`: the seconds of a page's second reading, if any.
 */
function playLists({ log, unread, batches, starts, workOf, pace, now }: Played, extra: (order: number) => number): number {
  const workers = log.sideBySide;
  const rest = unread.reduce((sum, order) => sum + workOf(order) * pace + extra(order), 0);
  const done = starts
    .slice(batches.length, batches.length + workers)
    .reduce<number>((sum, start) => sum + (start === undefined ? 0 : Math.max(0, now - start) / 1000), 0);
  return (rest - done) / workers;
}

/**
 * Pages read one by one, played forward on the workers: each is free again after the page it reads now (begun at the
 * latest starts; a page read again begun afresh when its new reading began), not before now; the pages not begun
 * follow on the first worker free. `extra`: the seconds of a page's second reading not told of yet, if any.
 */
function playPages({ log, unread, batches, starts, workOf, pace, now }: Played, again: number, extra: (order: number) => number): number {
  const workers = log.sideBySide;
  const free: number[] = [];
  unread.slice(0, workers).forEach((order, k) => {
    const anew = log.again.get(order)?.at;
    const start = anew ?? starts[batches.length + k];
    const time = anew === undefined ? workOf(order) * pace + extra(order) : workOf(order) * again;
    free.push(start === undefined ? now / 1000 + time / 2 : Math.max(now / 1000, start / 1000 + time));
  });
  while (free.length < workers) free.push(now / 1000);
  free.sort((a, b) => a - b);
  for (const order of unread.slice(workers)) {
    const end = free.shift()! + workOf(order) * pace + extra(order);
    const at = free.findIndex((f) => f > end);
    free.splice(at < 0 ? free.length : at, 0, end);
  }
  return Math.max(...free) - now / 1000;
}

/**
 * Seconds a worker spends on one unit of work in a page's first reading, from the batches timed from their start.
 * The n-th batch to end is taken as the n-th to begin: pages end out of order, but the sum of their times is the
 * same. A page read again counts its first reading here, up to when its next one began (`pageReadAgainPace`).
 */
function firstReadingPace(
  log: PagesRead,
  batches: Array<{ end: number; orders: number[] }>,
  starts: Array<number | undefined>,
  workOf: (order: number) => number,
): number | undefined {
  let seconds = 0;
  let work = 0;
  batches.forEach((batch, n) => {
    const start = starts[n];
    if (start === undefined) return;
    for (const order of batch.orders) {
      const anew = log.again.get(order);
      if (anew === undefined) continue;
      seconds += Math.max(0, anew.at - start) / 1000 / batch.orders.length;
      work += workOf(order) * anew.times;
    }
    const once = batch.orders.filter((order) => !log.again.has(order));
    if (once.length === 0) return;
    seconds += ((batch.end - start) / 1000) * (once.length / batch.orders.length);
    work += once.reduce((sum, order) => sum + workOf(order), 0);
  });
  return work > 0 ? seconds / work : undefined;
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

/**
 * The share of one page's time below which the count-down is not shown: the last page's end is within the pace's noise
 * (a page's time varies by a third from one to the next on a loaded machine). Half a page showed "8 s" with 3 s left
 * on the example bundle; with a whole page, the worst figure of four timelines went from 61/59/135/47 % to 48/45/39/46 %.
 */
const FLOOR_SHARE = 1;

/**
 * A page read again before any second reading was timed: its second reading takes from this share of its first's time
 * (the near end of a range, `left`) up to as long as the first (`READ_AGAIN_MOST`). In the page's own language tesseract
 * reads faster than in a wrong one: on the example bundle under load, tesseract.js 20 s against 37 s, 19 s against
 * 26 s, 16 s against 29 s (0.54, 0.72, 0.54); the native engine 34 s against 34 s and 33 s against 40 s (0.97, 0.84),
 * and at a lower load 8.2 s against 16.2 s, 9.0 s against 16.6 s (0.51, 0.54).
 */
const READ_AGAIN_LEAST = 0.5;

/**
 * The far end of a range (`most`): a second reading not yet timed takes up to as long as the first. Measured on seven
 * timelines of the example bundle, fourteen second readings: 0.51 to 1.04 of the first.
 */
const READ_AGAIN_MOST = 1;

/**
 * The correction's second readings of doubtful words (the native engine), for each page of the document, as a share of
 * a page's reading time: on the example bundle under load, 22.5 s after the last page for 6 pages of about 34 s (the
 * far end); at a lower load, 6.4 s for 6 pages of 13.6 s (the near end).
 */
const CHECK_SHARE = 0.11;
const CHECK_SHARE_LEAST = 0.07;

/**
 * How many of the pages not yet read may be read a second time, at most (`timeLeftByWork`'s `most`): a spread, as on
 * the example bundle, whose French third spread follows an English sample. Few enough that a long book's range stays
 * narrow (one page's time on two workers); more pages of another language are foreseen once the first is read again.
 */
const PAGES_THAT_MAY_BE_READ_AGAIN = 2;

/** Pages reported within this of each other ended together: one process read them from a list. */
const TOGETHER_MS = 150;

/** The pages read, in the order they ended, gathered into the batches that ended together. */
function batchesOf(read: Array<[number, number]>): Array<{ end: number; orders: number[] }> {
  const batches: Array<{ end: number; orders: number[] }> = [];
  for (const [order, at] of read) {
    const last = batches[batches.length - 1];
    if (last && at - last.end <= TOGETHER_MS) {
      last.orders.push(order);
      last.end = at;
    } else batches.push({ end: at, orders: [order] });
  }
  return batches;
}
