import { describe, expect, it } from 'vitest';
import type { ProjectPage } from '../../src/project/index.js';
import { curlFlattened } from '../../src/web/page-facts.js';

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
