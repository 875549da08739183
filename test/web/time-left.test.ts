/**
 * The time OCR still needs, from the engine's per-page reports (`src/web/time-left.ts` through `countStage`): event
 * sequences as the example bundle's OCR sent them (bench/progress.mjs, two workers), each at its own clock time, and
 * what the progress card would show second by second.
 */
import { describe, expect, it } from 'vitest';
import type { OcrPagesRead } from '../../src/convert/index.js';
import type { TaskProgress } from '../../src/web/api-types.js';
import { countStage, doingStage, finishStage, noteStage, ocrStage, pageInLanguage, rereadStage, startStage } from '../../src/web/stages.js';
import { recordAgain, recordRead, timeLeftByWork } from '../../src/web/time-left.js';

/** The six pages' ink (thousands of pixels) as measured on the example bundle. */
const SAMPLE_WORK = [530, 614, 620, 654, 651, 765];

function ocrTask(total = 6): TaskProgress {
  const t: TaskProgress = { kind: 'ocr', stages: [ocrStage()], stage: 'ocr', framesTotal: 0, framesDone: 0, pagesDone: 0, started: 0 };
  startStage(t, 'ocr', 0);
  countStage(t, 'ocr', 0, total, 0);
  return t;
}

function read(order: number, works = SAMPLE_WORK, checksWords = false): OcrPagesRead {
  return { order, works, sideBySide: 2, ...(checksWords ? { checksWords } : {}) };
}

/**
 * OCR of the example bundle as recorded by `npm run bench:progress` (BENCH_PROGRESS_SAVE), ms from the stage's start:
 * each page read (`read`) and each second reading begun (`again`), by reading order. Its third spread is French and
 * the sample pages English, so pages 5 and 6 are read twice. `end`: when OCR ended (the correction included).
 */
interface Timeline {
  name: string;
  works: number[];
  end: number;
  checksWords: boolean;
  events: Array<[number, 'read' | 'again', number]>;
}
const EVENTS_OF_SIX: Array<Timeline['events'][number][1]> = ['read', 'read', 'read', 'read', 'again', 'again', 'read', 'read'];
const timeline = (name: string, works: number[], end: number, checksWords: boolean, at: number[], orders: number[]): Timeline => ({
  name,
  works,
  end,
  checksWords,
  events: at.map((ms, n) => [ms, EVENTS_OF_SIX[n], orders[n]]),
});
const RECORDED: Timeline[] = [
  timeline(
    'tesseract.js, 106 s',
    [616, 530, 656, 620, 652, 765],
    106_248,
    false,
    [28910, 34464, 52198, 58653, 78665, 87627, 97935, 103223],
    [1, 0, 2, 3, 4, 5, 4, 5],
  ),
  timeline(
    'tesseract.js, 127 s',
    [656, 616, 530, 620, 652, 765],
    126_848,
    false,
    [31086, 33677, 58858, 63062, 83954, 95085, 110109, 122869],
    [1, 0, 2, 3, 4, 5, 4, 5],
  ),
  timeline(
    'tesseract.js, 63 s',
    [616, 656, 620, 530, 652, 765],
    63_195,
    false,
    [21431, 22176, 35195, 35691, 49519, 52633, 59903, 61854],
    [0, 1, 3, 2, 4, 5, 4, 5],
  ),
  timeline(
    'native, 172 s',
    [530, 656, 620, 616, 652, 765],
    172_065,
    true,
    [38973, 43193, 72749, 76639, 107179, 116318, 140595, 149605],
    [0, 1, 2, 3, 4, 5, 4, 5],
  ),
  timeline(
    'tesseract.js, 84 s (recorded for this change)',
    [616, 530, 620, 656, 652, 765],
    83_937,
    false,
    [19829, 21473, 34086, 37970, 51261, 59750, 67361, 80649],
    [1, 0, 2, 3, 4, 5, 4, 5],
  ),
  timeline(
    'tesseract.js, 89 s (recorded for this change)',
    [620, 616, 530, 656, 652, 765],
    88_570,
    false,
    [23695, 26226, 38212, 44739, 64532, 74982, 81014, 85811],
    [0, 1, 2, 3, 4, 5, 4, 5],
  ),
  timeline(
    'native, 64 s (recorded for this change)',
    [656, 530, 616, 620, 652, 765],
    64_234,
    true,
    [18470, 18935, 31570, 32238, 48377, 48783, 56634, 57756],
    [1, 0, 3, 2, 4, 5, 4, 5],
  ),
];

/** Second by second through a timeline: each figure the card shows (a range's ends, counted down) with the truth. */
function replay(tl: Timeline): Array<{ at: number; low: number; high: number; truth: number }> {
  const t = ocrTask();
  const shown: Array<{ at: number; low: number; high: number; truth: number }> = [];
  let fed = 0;
  let reads = 0;
  for (let now = 0; now < tl.end; now += 1000) {
    for (; fed < tl.events.length && tl.events[fed][0] <= now; fed++) {
      const [at, kind, order] = tl.events[fed];
      // The engine tells the work of the pages handed to it so far: four at first, then one more a page read.
      const works = tl.works.slice(0, Math.min(tl.works.length, 4 + reads));
      if (kind === 'again') rereadStage(t, 'ocr', read(order, works, tl.checksWords), at);
      else countStage(t, 'ocr', ++reads, 6, at, read(order, works, tl.checksWords));
    }
    if (t.secondsLeft === undefined) continue;
    const since = (now - t.estimatedAt!) / 1000;
    const low = t.secondsLeft - since;
    const high = (t.secondsLeftMost ?? t.secondsLeft) - since;
    // As the card does: no figure once its middle is below one page's time, or the range wider than 60 % of its near end.
    if ((low + high) / 2 < t.unitSeconds! || high - low > low * 0.6) continue;
    shown.push({ at: now, low, high, truth: (tl.end - now) / 1000 });
  }
  return shown;
}

/** A document of `total` even pages read two at a time, 10 s a page after a 20 s start: when each page is read. */
function evenPages(total: number): number[] {
  return Array.from({ length: total }, (_, k) => 20_000 + Math.floor(k / 2) * 10_000 + (k % 2) * 500);
}

describe('time left by the pages’ work', () => {
  it.each(RECORDED)('every figure shown is within 30 % of the truth, the truth inside the range shown ($name)', (tl) => {
    for (const figure of replay(tl)) {
      const middle = (figure.low + figure.high) / 2;
      expect(Math.abs(middle - figure.truth) / figure.truth, JSON.stringify(figure)).toBeLessThanOrEqual(0.3);
      // A single figure is judged by the 30 % alone.
      if (figure.high === figure.low) continue;
      expect(figure.truth, JSON.stringify(figure)).toBeGreaterThanOrEqual(figure.low - 0.5);
      expect(figure.truth, JSON.stringify(figure)).toBeLessThanOrEqual(figure.high + 0.5);
    }
  });

  it('holds the second readings in the range before they are told of, and shows no figure while it is that wide', () => {
    // The native timeline after the third page read (72.7 s): the single figure of before was 40–60 % short until the
    // first second reading began (107.2 s), the two French pages' second readings not foreseen.
    const tl = RECORDED[3];
    let log = undefined as ReturnType<typeof recordRead> | undefined;
    for (const [at, , order] of tl.events.slice(0, 3)) log = recordRead(log, read(order, tl.works, true), at);
    const range = timeLeftByWork(log!, 6, 72_749)!;
    const truth = (tl.end - 72_749) / 1000;
    expect((truth - range.left) / truth).toBeGreaterThan(0.3);
    expect(range.most).toBeGreaterThan(truth);
    // 60 to 102 s: too wide for its middle to be within 30 % wherever the truth falls in it. No figure, on any timeline.
    expect(range.most - range.left).toBeGreaterThan(range.left * 0.6);
    expect(replay(tl)).toEqual([]);
  });

  it('shows no figure while the range is wider than 60 % of its middle (a six-page document read by tesseract.js)', () => {
    // After the fourth page, 28 to 57 s (47.6 s true): one page of six read again or two or none, nothing tells which.
    const log = [28910, 34464, 52198, 58653].reduce(
      (l, at, n) => recordRead(l, read([1, 0, 2, 3][n], RECORDED[0].works), at),
      undefined as ReturnType<typeof recordRead> | undefined,
    )!;
    const range = timeLeftByWork(log, 6, 58_653)!;
    expect(range.most - range.left).toBeGreaterThan(((range.most + range.left) / 2) * 0.6);
    expect(replay(RECORDED[0]).filter((f) => f.at < 78_665)).toEqual([]);
  });

  it('narrows the range to the next pages on a longer document: within 30 % all along', () => {
    const total = 20;
    const ends = evenPages(total);
    const t = ocrTask(total);
    const works = Array<number>(total).fill(100);
    let figures = 0;
    ends.forEach((at, order) => {
      countStage(t, 'ocr', order + 1, total, at, read(order, works));
      if (t.secondsLeft === undefined || order === total - 1) return;
      figures++;
      const truth = (ends[total - 1] - at) / 1000;
      // On screen: counted down from the last estimate that did not agree with the one before.
      const since = (at - t.estimatedAt!) / 1000;
      const low = t.secondsLeft - since;
      const high = (t.secondsLeftMost ?? t.secondsLeft) - since;
      expect(Math.abs((low + high) / 2 - truth) / truth).toBeLessThanOrEqual(0.3);
      // None of them read again: the truth is the near end; the far end adds a spread read twice, on two workers.
      expect(Math.abs(low - truth)).toBeLessThanOrEqual(2);
      expect(high - low).toBeCloseTo(10, 0);
    });
    expect(figures).toBeGreaterThan(10);
  });

  it('shows no figure until a page was timed from the moment a worker took it', () => {
    const t = ocrTask(20);
    const ends = evenPages(20);
    const works = Array<number>(20).fill(100);
    countStage(t, 'ocr', 1, 20, ends[0], read(0, works));
    countStage(t, 'ocr', 2, 20, ends[1], read(1, works));
    // Pages 1 and 2 carry the engine's start-up and the language sample: no pace yet.
    expect(t.secondsLeft).toBeUndefined();
    countStage(t, 'ocr', 3, 20, ends[2], read(2, works));
    expect(t.secondsLeft).toBeDefined();
  });

  it('times a fuller page ahead longer than a page as full as those read', () => {
    const left = (works: number[]): number => {
      let log = recordRead(undefined, read(0, works), 37_000);
      log = recordRead(log, read(1, works), 40_000);
      log = recordRead(log, read(2, works), 63_000);
      log = recordRead(log, read(3, works), 69_000);
      return timeLeftByWork(log, 6, 69_000)!.left;
    };
    // The last page has twice the ink of the others: it ends about 28 s later than it would at the others' fill.
    expect(left([530, 614, 620, 654, 651, 1530]) - left([530, 614, 620, 654, 651, 650])).toBeGreaterThan(20);
  });

  it('times pages read by lists, which end together, from when their list began', () => {
    // The native engine on two cores: each process reads two pages from a list and reports both at its end, 10 s a
    // page after a 15 s start. Lists end at 35 s and 36 s, then 55 s and 56 s; the last two at 75 s and 76 s.
    const works = Array<number>(12).fill(100);
    const ends = [35_000, 35_004, 36_000, 36_003, 55_000, 55_005, 56_000, 56_003];
    const log = ends.reduce((l, at, order) => recordRead(l, read(order, works), at), undefined as ReturnType<typeof recordRead> | undefined)!;
    // 20 s are left. Taken page by page (each started when the one before it ended), the pace was 0.07 s a unit and the
    // figure 11 s.
    const truth = (76_000 - 56_003) / 1000;
    expect(Math.abs(timeLeftByWork(log, 12, 56_003)!.left - truth) / truth).toBeLessThan(0.1);
  });

  it('leaves the figure counting down when a new page agrees with it, and replaces it when one does not', () => {
    const total = 20;
    const ends = evenPages(total);
    const works = Array<number>(total).fill(100);
    const t = ocrTask(total);
    for (let order = 0; order < 6; order++) countStage(t, 'ocr', order + 1, total, ends[order], read(order, works));
    const first = { left: t.secondsLeft!, at: t.estimatedAt! };
    // The seventh page ends when the pace said: the figure counting down stays as it was.
    countStage(t, 'ocr', 7, total, ends[6], read(6, works));
    expect({ left: t.secondsLeft, at: t.estimatedAt }).toEqual(first);
    // A page read again is news: the figure grows at once.
    rereadStage(t, 'ocr', read(7, works), ends[6] + 1000);
    expect(t.estimatedAt).toBe(ends[6] + 1000);
    const shownThen = first.left - (ends[6] + 1000 - first.at) / 1000;
    expect(t.secondsLeft!).toBeGreaterThan(shownThen + 4);
  });

  it('says the words are being checked once every page is read, with no time, and forgets it when OCR ends', () => {
    const total = 20;
    const ends = evenPages(total);
    const works = Array<number>(total).fill(100);
    const t = ocrTask(total);
    for (let order = 0; order < 12; order++) countStage(t, 'ocr', order + 1, total, ends[order], read(order, works));
    expect(t.secondsLeft).toBeDefined();
    for (let order = 12; order < total; order++) countStage(t, 'ocr', order + 1, total, ends[order], read(order, works));
    // The correction reads doubtful words again (22 s of the native engine's 172 s on the sample): nothing has timed it.
    doingStage(t, 'ocr', 'checking the words', ends[total - 1] + 100);
    expect(t.stages[0]).toMatchObject({ state: 'running', done: total, doing: 'checking the words' });
    expect(t.secondsLeft).toBeUndefined();
    finishStage(t, 'ocr', ends[total - 1] + 20_000);
    expect(t.stages[0].doing).toBeUndefined();
  });

  it('counts the correction’s second readings of doubtful words after the pages, when the engine makes them', () => {
    // The native timeline: the last page was read at 149.6 s, and OCR ended at 172.1 s — 22.5 s of the correction
    // reading doubtful words again.
    const tl = RECORDED[3];
    const middleAt = (checksWords: boolean): number => {
      let log = undefined as ReturnType<typeof recordRead> | undefined;
      for (const [at, kind, order] of tl.events.slice(0, 5)) {
        log = (kind === 'again' ? recordAgain : recordRead)(log, read(order, tl.works, checksWords), at);
      }
      const range = timeLeftByWork(log!, 6, 107_179)!;
      return (range.left + range.most) / 2;
    };
    const truth = (tl.end - 107_179) / 1000;
    // The pages alone said 36 s of the 65 s left (44 % short).
    expect(Math.abs(middleAt(false) - truth) / truth).toBeGreaterThan(0.3);
    expect(Math.abs(middleAt(true) - truth) / truth).toBeLessThan(0.3);
  });

  it('says which pages are read again in their own language, and leaves the time as it is', () => {
    const total = 20;
    const ends = evenPages(total);
    const works = Array<number>(total).fill(100);
    const t = ocrTask(total);
    for (let order = 0; order < 8; order++) countStage(t, 'ocr', order + 1, total, ends[order], read(order, works));
    const time = { left: t.secondsLeft, most: t.secondsLeftMost, at: t.estimatedAt };
    expect(time.left).toBeDefined();
    noteStage(t, 'ocr', pageInLanguage(t, 11, 'French'), ends[7] + 100);
    expect(t.stages[0].doing).toBe('page 11 is in French: read a second time');
    expect({ left: t.secondsLeft, most: t.secondsLeftMost, at: t.estimatedAt }).toEqual(time);
    noteStage(t, 'ocr', pageInLanguage(t, 12, 'French'), ends[7] + 200);
    expect(t.stages[0].doing).toBe('pages 11 and 12 are in French: read a second time');
    noteStage(t, 'ocr', pageInLanguage(t, 19, 'German'), ends[7] + 300);
    expect(t.stages[0].doing).toBe('pages 11 and 12 are in French, page 19 in German: read a second time');
  });
});
