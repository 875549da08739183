/**
 * The time OCR still needs, from the engine's per-page reports (`src/web/time-left.ts` through `countStage`): event
 * sequences as the example bundle's OCR sent them (bench/progress.mjs, two workers), each at its own clock time.
 */
import { describe, expect, it } from 'vitest';
import type { OcrPagesRead } from '../../src/convert/index.js';
import type { TaskProgress } from '../../src/web/api-types.js';
import { countStage, doingStage, finishStage, ocrStage, rereadStage, startStage } from '../../src/web/stages.js';

/** The six pages' ink (thousands of pixels) as measured on the example bundle. */
const SAMPLE_WORK = [530, 614, 620, 654, 651, 765];

function ocrTask(): TaskProgress {
  const t: TaskProgress = { kind: 'ocr', stages: [ocrStage()], stage: 'ocr', framesTotal: 0, framesDone: 0, pagesDone: 0, started: 0 };
  startStage(t, 'ocr', 0);
  countStage(t, 'ocr', 0, 6, 0);
  return t;
}

/** The figure on screen at `now`: counted down from the last estimate. */
function shown(t: TaskProgress, now: number): number {
  return t.secondsLeft! - (now - t.estimatedAt!) / 1000;
}

function read(order: number, works = SAMPLE_WORK): OcrPagesRead {
  return { order, works, sideBySide: 2 };
}

describe('time left by the pages’ work', () => {
  it('shows no figure until a page was timed from the moment a worker took it', () => {
    const t = ocrTask();
    countStage(t, 'ocr', 1, 6, 37_000, read(0));
    countStage(t, 'ocr', 2, 6, 40_000, read(1));
    // Pages 1 and 2 carry the engine's start-up and the language sample: no pace yet.
    expect(t.secondsLeft).toBeUndefined();
    // Page 3 started when page 1 ended (37 s) and took 26 s: 42 ms a unit of ink.
    countStage(t, 'ocr', 3, 6, 63_000, read(2));
    expect(t.secondsLeft).toBeDefined();
  });

  it('times a fuller page ahead longer than a page as full as those read', () => {
    const even = ocrTask();
    const full = ocrTask();
    const heavier = [530, 614, 620, 654, 651, 1530];
    for (const [t, works] of [
      [even, [530, 614, 620, 654, 651, 650]],
      [full, heavier],
    ] as const) {
      countStage(t, 'ocr', 1, 6, 37_000, read(0, [...works]));
      countStage(t, 'ocr', 2, 6, 40_000, read(1, [...works]));
      countStage(t, 'ocr', 3, 6, 63_000, read(2, [...works]));
      countStage(t, 'ocr', 4, 6, 69_000, read(3, [...works]));
    }
    // The last page has twice the ink of the others: it ends about 28 s later than it would at the others' fill.
    expect(full.secondsLeft! - even.secondsLeft!).toBeGreaterThan(20);
  });

  it('counts the time a page read again needs, from when the engine starts reading it again', () => {
    // Recorded on the example bundle (bench/progress.mjs, 2026-11-28): its third spread is French, read first in
    // English (the language the sample pages found), so its two pages are read a second time, in French; pages end
    // out of the order they were handed over in. OCR ended at 129.1 s.
    const end = 129_092;
    const t = ocrTask();
    countStage(t, 'ocr', 1, 6, 44_746, read(0));
    countStage(t, 'ocr', 2, 6, 49_347, read(3));
    countStage(t, 'ocr', 3, 6, 74_013, read(1));
    countStage(t, 'ocr', 4, 6, 74_300, read(2));
    // Nothing yet says the last two pages will be read twice: the figure is what one reading of each needs.
    const before = t.secondsLeft!;
    expect(before).toBeLessThan((end - 74_300) / 1000);
    // 28.9 s were left (the old estimate showed nothing here): within 30 %. The page handed after it, still in its
    // first reading, is counted as likely to be read again too (it is: the spread is French).
    rereadStage(t, 'ocr', read(4), 100_159);
    expect(Math.abs(shown(t, 100_159) - (end - 100_159) / 1000) / ((end - 100_159) / 1000)).toBeLessThan(0.3);
    // It is, from 104 s: the figure stays true.
    rereadStage(t, 'ocr', read(5), 104_002);
    expect(Math.abs(shown(t, 104_002) - (end - 104_002) / 1000) / ((end - 104_002) / 1000)).toBeLessThan(0.3);
  });

  it('times a second reading begun before any was timed at the share second readings take', () => {
    // Recorded on the example bundle under load (bench/progress.mjs, 2026-11-28): the last two pages are French, read
    // in English first and then again in French, each second reading about 0.6 of the first. OCR ended at 106.2 s.
    const end = 106_248;
    const works = [616, 530, 656, 620, 652, 765];
    const t = ocrTask();
    countStage(t, 'ocr', 1, 6, 28_910, read(1, works));
    countStage(t, 'ocr', 2, 6, 34_464, read(0, works));
    countStage(t, 'ocr', 3, 6, 52_198, read(2, works));
    countStage(t, 'ocr', 4, 6, 58_653, read(3, works));
    rereadStage(t, 'ocr', read(4, works), 78_665);
    rereadStage(t, 'ocr', read(5, works), 87_627);
    // 18.6 s were left; timed at the first reading's pace, the figure said 28 s (51 % off).
    const truth = (end - 87_627) / 1000;
    expect(Math.abs(shown(t, 87_627) - truth) / truth).toBeLessThan(0.3);
  });

  it('times pages read by lists, which end together, from when their list began', () => {
    // The native engine on two cores: each process reads two pages from a list and reports both at its end, 10 s a
    // page after a 15 s start. Lists end at 35 s and 36 s, then 55 s and 56 s; the last two at 75 s and 76 s.
    const works = Array<number>(12).fill(100);
    const t: TaskProgress = { kind: 'ocr', stages: [ocrStage()], stage: 'ocr', framesTotal: 0, framesDone: 0, pagesDone: 0, started: 0 };
    startStage(t, 'ocr', 0);
    countStage(t, 'ocr', 0, 12, 0);
    const ends = [35_000, 35_004, 36_000, 36_003, 55_000, 55_005, 56_000, 56_003];
    ends.forEach((at, order) => countStage(t, 'ocr', order + 1, 12, at, read(order, works)));
    // 20 s are left. Taken page by page (each started when the one before it ended), the pace was 0.07 s a unit and the
    // figure 11 s.
    const truth = (76_000 - 56_003) / 1000;
    expect(Math.abs(t.secondsLeft! - truth) / truth).toBeLessThan(0.1);
  });

  it('leaves the figure counting down when a new page agrees with it, and replaces it when one does not', () => {
    const t = ocrTask();
    countStage(t, 'ocr', 1, 6, 37_000, read(0));
    countStage(t, 'ocr', 2, 6, 40_000, read(1));
    countStage(t, 'ocr', 3, 6, 63_000, read(2));
    const first = { left: t.secondsLeft!, at: t.estimatedAt! };
    // The fourth page ends about when the pace said: the figure counting down since 63 s stays as it was.
    countStage(t, 'ocr', 4, 6, 67_000, read(3));
    expect({ left: t.secondsLeft, at: t.estimatedAt }).toEqual(first);
    // A page read again is news: the figure grows at once.
    rereadStage(t, 'ocr', read(4), 68_000);
    expect(t.estimatedAt).toBe(68_000);
    expect(t.secondsLeft!).toBeGreaterThan(first.left - 5 + 5);
  });

  it('says the words are being checked once every page is read, with no time, and forgets it when OCR ends', () => {
    const t = ocrTask();
    for (const [n, at] of [37_000, 40_000, 63_000, 67_000, 88_000].entries()) countStage(t, 'ocr', n + 1, 6, at, read(n));
    expect(t.secondsLeft).toBeDefined();
    countStage(t, 'ocr', 6, 6, 92_000, read(5));
    // The correction reads doubtful words again (22 s of the native engine's 172 s on the sample): nothing has timed it.
    doingStage(t, 'ocr', 'checking the words', 92_100);
    expect(t.stages[0]).toMatchObject({ state: 'running', done: 6, doing: 'checking the words' });
    expect(t.secondsLeft).toBeUndefined();
    finishStage(t, 'ocr', 114_000);
    expect(t.stages[0].doing).toBeUndefined();
  });

  it('counts the correction’s second readings of doubtful words after the pages, when the engine makes them', () => {
    // Recorded with the native engine on the example bundle under load (bench/progress.mjs, 2026-11-28): the last page
    // was read at 149.6 s, and OCR ended at 172.1 s — 22.5 s of the correction reading doubtful words again.
    const end = 172_065;
    const works = [530, 656, 620, 616, 652, 765];
    const figureAt = (checksWords: boolean): number => {
      const t = ocrTask();
      const pages = (order: number): OcrPagesRead => ({ ...read(order, works), checksWords });
      countStage(t, 'ocr', 1, 6, 38_973, pages(0));
      countStage(t, 'ocr', 2, 6, 43_193, pages(1));
      countStage(t, 'ocr', 3, 6, 72_749, pages(2));
      countStage(t, 'ocr', 4, 6, 76_639, pages(3));
      rereadStage(t, 'ocr', pages(4), 107_179);
      return shown(t, 107_179);
    };
    const truth = (end - 107_179) / 1000;
    // The pages alone said 38 s of the 65 s left (42 % short).
    expect(Math.abs(figureAt(false) - truth) / truth).toBeGreaterThan(0.3);
    expect(Math.abs(figureAt(true) - truth) / truth).toBeLessThan(0.3);
  });
});
