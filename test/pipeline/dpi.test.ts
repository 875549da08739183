import { describe, expect, it } from 'vitest';
import type { GrayImage } from '../../src/imaging/index.js';
import { estimateDpi } from '../../src/pipeline/dpi.js';
import { seededRandom } from '../helpers.js';

// Synthetic pages of body text at a known resolution: 11 pt type on a 13 pt line pitch, x-height 5 pt.

const random = seededRandom;

/**
 * A page `widthIn`×`heightIn` inches at `dpi`, paper with a little noise, margins of 0.7 in, text lines
 * of letter rectangles (a third with ascenders or descenders), sheared by `skewDeg` like a tilted page.
 */
function bookPage(dpi: number, options: { skewDeg?: number; text?: boolean; seed?: number } = {}): GrayImage {
  const { skewDeg = 0, text = true, seed = 1 } = options;
  const rnd = random(seed);
  const width = Math.round(5.5 * dpi);
  const height = Math.round(8 * dpi);
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = 225 + Math.floor(rnd() * 12);
  if (!text) return { width, height, data };
  const pt = dpi / 72;
  const pitch = 13 * pt;
  const xHeight = 5 * pt;
  const margin = Math.round(0.7 * dpi);
  const slope = Math.tan((skewDeg * Math.PI) / 180);
  const ink = (x0: number, y0: number, w: number, h: number): void => {
    for (let x = Math.round(x0); x < Math.round(x0 + w); x++) {
      const shift = (x - width / 2) * slope;
      for (let y = Math.round(y0 + shift); y < Math.round(y0 + h + shift); y++) {
        if (x >= 0 && y >= 0 && x < width && y < height) data[y * width + x] = 40 + Math.floor(rnd() * 20);
      }
    }
  };
  for (let baseline = margin + xHeight * 1.5; baseline < height - margin; baseline += pitch) {
    let x = margin;
    while (x < width - margin) {
      const letters = 2 + Math.floor(rnd() * 7);
      for (let i = 0; i < letters; i++) {
        const w = xHeight * (0.45 + 0.35 * rnd());
        const kind = rnd();
        const top = kind < 0.25 ? baseline - 1.45 * xHeight : baseline - xHeight;
        const bottom = kind > 0.9 ? baseline + 0.45 * xHeight : baseline;
        ink(x, top, w, bottom - top);
        x += w + Math.max(1, 0.18 * xHeight);
      }
      x += 0.7 * xHeight;
    }
  }
  return { width, height, data };
}

describe('estimateDpi', () => {
  for (const dpi of [100, 150, 300]) {
    it(`reads ${dpi} dpi from the line pitch of body text`, () => {
      const estimate = estimateDpi(bookPage(dpi));
      expect(estimate).not.toBeNull();
      expect(Math.abs((estimate?.dpi ?? 0) - dpi) / dpi).toBeLessThan(0.15);
      expect(Math.abs((estimate?.linePitchPx ?? 0) - (13 * dpi) / 72) / ((13 * dpi) / 72)).toBeLessThan(0.15);
    });
  }

  it('still reads the resolution of a page tilted by 2°', () => {
    const estimate = estimateDpi(bookPage(150, { skewDeg: 2, seed: 2 }));
    expect(estimate).not.toBeNull();
    expect(Math.abs((estimate?.dpi ?? 0) - 150) / 150).toBeLessThan(0.15);
  });

  it('measures an x-height consistent with the pitch', () => {
    const estimate = estimateDpi(bookPage(300, { seed: 3 }));
    // 5 pt at 300 dpi is about 21 px.
    expect(estimate?.xHeightPx).toBeGreaterThan(15);
    expect(estimate?.xHeightPx).toBeLessThan(28);
  });

  it('says nothing about a blank page', () => {
    expect(estimateDpi(bookPage(150, { text: false }))).toBeNull();
  });
});
