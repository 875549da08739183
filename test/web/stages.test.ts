import { describe, expect, it } from 'vitest';
import type { TaskProgress } from '../../src/web/api-types.js';
import { countStage, endStages, finishStage, ocrStage, pagesStage, secondsLeft, startStage, writeStage } from '../../src/web/stages.js';

function task(): TaskProgress {
  return { kind: 'open', stages: [pagesStage(10), ocrStage()], stage: 'pipeline', framesTotal: 10, framesDone: 0, pagesDone: 0, started: 0 };
}

describe('task stages', () => {
  it('estimates the time left from the pace measured after the first units, start-up left out', () => {
    const t = task();
    startStage(t, 'pages', 1_000);
    countStage(t, 'pages', 0, 10, 2_000);
    expect(t.secondsLeft).toBeUndefined();
    // The first frame took 30 s (the workers starting), the next ones 2 s each.
    countStage(t, 'pages', 1, 10, 31_000);
    expect(t.secondsLeft).toBeUndefined();
    countStage(t, 'pages', 2, 10, 33_000);
    expect(t.secondsLeft).toBeUndefined(); // one interval: frames finish in pairs on two workers
    countStage(t, 'pages', 5, 10, 39_000);
    // 8 s for the 4 frames after the first: 2 s each, 5 to go, less half of one running beside the others
    // (the old estimate, 38 s / 5 × 5, said 38 s).
    expect(t.secondsLeft).toBe(9);
    expect(t.unitSeconds).toBe(2);
    expect(t.estimatedAt).toBe(39_000);
    // The last two frames run side by side and end nearly together: no pace predicts them.
    countStage(t, 'pages', 8, 10, 45_000);
    expect(t.secondsLeft).toBeUndefined();
    expect(t.unitSeconds).toBeUndefined();
    expect(secondsLeft({ key: 'x', label: 'x', state: 'running', started: 0, done: 10, total: 10, firstDone: { at: 0, done: 1 } }, 5_000)).toBeUndefined();
  });

  it('says about 29 s where the sample had 32 s of OCR left (the old estimate said 89 s here, 5 min 27 s after the first page)', () => {
    // The sample's OCR as measured (bench/progress.mjs): 65 s before the first of 6 pages, then 11 s a page.
    const t = { ...task(), stages: [ocrStage()] };
    startStage(t, 'ocr', 0);
    countStage(t, 'ocr', 0, 6, 0);
    countStage(t, 'ocr', 1, 6, 65_400);
    countStage(t, 'ocr', 2, 6, 71_050);
    countStage(t, 'ocr', 3, 6, 88_880);
    // 32.1 s were left: within 30 %.
    expect(t.secondsLeft).toBe(29);
  });

  it('finishes the stages before the one that starts, and adds a stage the plan did not foresee', () => {
    const t = task();
    startStage(t, 'pages', 0);
    countStage(t, 'ocr', 1, 5, 4_000);
    expect(t.stages.map((s) => [s.key, s.state, s.done])).toEqual([
      ['pages', 'done', 10],
      ['ocr', 'running', 1],
    ]);
    finishStage(t, 'write:md', 5_000);
    expect(t.stages.map((s) => s.key)).toEqual(['pages', 'ocr', 'write:md']);
    expect(t.stages[2]).toMatchObject({ label: 'Writing the Markdown', state: 'done', started: 5_000, ended: 5_000 });
  });

  it('ends a running stage as failed when the task fails', () => {
    const t = { ...task(), stages: [writeStage('pdf')] };
    startStage(t, 'write:pdf', 0);
    endStages(t, false, 10);
    expect(t.stages[0]).toMatchObject({ state: 'failed', ended: 10 });
  });
});
