import { describe, expect, it } from 'vitest';
import type { ProjectPage } from '../../src/project/index.js';
import { curlFlattened, pluginSteps } from '../../src/web/page-facts.js';

const decisions = (applied: boolean, maxShiftPx: number, dpi: number): ProjectPage['decisions'] => ({
  preset: 'sheet',
  inputDpi: { value: dpi, source: 'pdf' },
  dewarp: { applied, lines: 30, maxShiftPx, residualPx: 0.2 },
});

describe('what the page view says of page curl', () => {
  it('says nothing of a correction too small to see on a flat page (under half a millimetre)', () => {
    // 2 px at 300 dpi is 0.17 mm: the jitter of a flat scanned page's lines, not a curl.
    expect(curlFlattened(decisions(true, 2, 300))).toBe(false);
    expect(curlFlattened(decisions(false, 40, 150))).toBe(false);
  });

  it('says the curl was flattened when the text moved by a visible distance', () => {
    // 12 px at 150 dpi is 2 mm: a book page bending toward its gutter.
    expect(curlFlattened(decisions(true, 12, 150))).toBe(true);
  });
});

describe('what the page view says of processor plugin steps', () => {
  it('names each step with what it recorded, and a step that failed with its sentence', () => {
    const recorded: ProjectPage['decisions'] = {
      preset: 'book',
      inputDpi: { value: 300, source: 'pdf' },
      plugins: { despeckle: { removed: 41, maxSpeckPx: 6 }, 'warm-tone': { failed: 'it did not finish within 20 s and was stopped' } },
    };
    expect(pluginSteps(recorded)).toEqual([
      { step: 'despeckle', facts: 'removed 41, maxSpeckPx 6' },
      { step: 'warm-tone', failed: 'it did not finish within 20 s and was stopped', facts: '' },
    ]);
    expect(pluginSteps({ preset: 'book', inputDpi: { value: 300, source: 'pdf' } })).toEqual([]);
  });
});
