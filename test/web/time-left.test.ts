/**
 * The time OCR still needs, from the engine's per-page reports (`src/web/time-left.ts` through `countStage`): event
 * sequences as the example bundle's OCR sent them (bench/progress.mjs, two workers), each at its own clock time.
 */
import { describe, expect, it } from 'vitest';
import type { OcrPagesRead } from '../../src/convert/index.js';
import type { TaskProgress } from '../../src/web/api-types.js';
import { countStage, ocrStage, rereadStage, startStage } from '../../src/web/stages.js';

/** The six pages' ink (thousands of pixels) as measured on the example bundle. */
const SAMPLE_WORK = [530, 614, 620, 654, 651, 765];

function ocrTask(): TaskProgress {
  const t: TaskProgress = { kind: 'ocr', stages: [ocrStage()], stage: 'ocr', framesTotal: 0, framesDone: 0, pagesDone: 0, started: 0 };
  startStage(t, 'ocr', 0);
  countStage(t, 'ocr', 0, 6, 0);
  return t;
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
    rereadStage(t, 'ocr', read(4), 100_159);
    // 28.9 s were left (the old estimate showed nothing here): within 30 %.
    const truth = (end - 100_159) / 1000;
    expect(Math.abs(t.secondsLeft! - truth) / truth).toBeLessThan(0.3);
    const once = t.secondsLeft!;
    rereadStage(t, 'ocr', read(5), 104_002);
    // The other page too: its second reading ends later than its first would have.
    expect(t.secondsLeft! + 104.002).toBeGreaterThan(once + 100.159);
  });
});
