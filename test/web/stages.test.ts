import { describe, expect, it } from 'vitest';
import type { TaskProgress } from '../../src/web/api-types.js';
import { countStage, endStages, finishStage, ocrStage, pagesStage, secondsLeft, startStage, writeStage } from '../../src/web/stages.js';

function task(): TaskProgress {
  return { kind: 'open', stages: [pagesStage(10), ocrStage()], stage: 'pipeline', framesTotal: 10, framesDone: 0, pagesDone: 0, started: 0 };
}

describe('task stages', () => {
  it('estimates the time left from the pace of the running stage, once a unit is done', () => {
    const t = task();
    startStage(t, 'pages', 1_000);
    countStage(t, 'pages', 0, 10, 2_000);
    expect(t.secondsLeft).toBeUndefined();
    countStage(t, 'pages', 4, 10, 9_000);
    // 8 s for 4 frames: 2 s each, 6 to go.
    expect(t.secondsLeft).toBe(12);
    expect(t.estimatedAt).toBe(9_000);
    expect(secondsLeft({ key: 'x', label: 'x', state: 'running', started: 0, done: 10, total: 10 }, 5_000)).toBeUndefined();
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
