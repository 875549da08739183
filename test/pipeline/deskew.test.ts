import { describe, expect, it } from 'vitest';
import type { GrayImage } from '../../src/imaging/index.js';
import { deskew, estimateSkew, rotatePage } from '../../src/pipeline/deskew.js';
import { photograph, renderTextPage, seededRandom, wordRectanglesPage } from './synthetic-text.js';

const ANGLES = [-9.3, -4, -0.7, 0.4, 2.5, 7.8];

function flatPage(width: number, height: number, level: number, noise = 0): GrayImage {
  const random = seededRandom(9);
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = Math.round(level + (random() - 0.5) * 2 * noise);
  return { width, height, data };
}

describe('estimateSkew', () => {
  it.each(ANGLES)('finds a %s° skew of rows of words within 0.15°', (angle) => {
    const found = estimateSkew(wordRectanglesPage(1000, 1400, angle));
    expect(Math.abs(found.angle - angle)).toBeLessThanOrEqual(0.15);
    expect(found.confidence).toBeGreaterThan(0.5);
  });

  it.each(ANGLES)('finds a %s° skew of real text photographed under uneven light within 0.15°', async (angle) => {
    const truth = await renderTextPage({ widthMm: 148, heightMm: 210, dpi: 150, marginMm: 20, skewDeg: angle, seed: 3 });
    const camera = await photograph(truth, { left: 225, right: 140, blur: 0.8, noise: 3, gutter: { side: 'left', widthFraction: 0.15, darkest: 0.5 } });
    const found = estimateSkew(camera);
    expect(Math.abs(found.angle - angle)).toBeLessThanOrEqual(0.15);
  });

  it('says nothing about a blank page', () => {
    expect(estimateSkew(flatPage(800, 1100, 235))).toEqual({ angle: 0, confidence: 0 });
    expect(estimateSkew(flatPage(800, 1100, 180, 6))).toEqual({ angle: 0, confidence: 0 });
  });

  it('looks no further than maxAngle', () => {
    const found = estimateSkew(wordRectanglesPage(1000, 1400, 2.5), { maxAngle: 3 });
    expect(Math.abs(found.angle - 2.5)).toBeLessThanOrEqual(0.15);
    expect(Math.abs(estimateSkew(wordRectanglesPage(1000, 1400, 7.8), { maxAngle: 3 }).angle)).toBeLessThanOrEqual(3);
  });
});

describe('deskew', () => {
  it('straightens the page and keeps its size', async () => {
    const page = wordRectanglesPage(1000, 1400, -4);
    const { image, decision } = await deskew(page);
    expect(Math.abs(decision.angle + 4)).toBeLessThanOrEqual(0.15);
    expect([image.width, image.height]).toEqual([1000, 1400]);
    expect(Math.abs(estimateSkew(image).angle)).toBeLessThanOrEqual(0.1);
  });

  it('leaves a straight page untouched', async () => {
    const page = wordRectanglesPage(1000, 1400, 0.02);
    const result = await deskew(page);
    expect(Math.abs(result.decision.angle)).toBeLessThan(0.05);
    expect(result.image).toBe(page);
    const blank = flatPage(600, 800, 230);
    expect((await deskew(blank)).image).toBe(blank);
  });

  it('does not turn a page without lines of text on a guess', async () => {
    // Scattered round marks: some angle always scores best, but nothing stands out.
    const page = flatPage(1000, 1400, 230);
    const random = seededRandom(4);
    for (let i = 0; i < 300; i++) {
      const cx = random() * 1000;
      const cy = random() * 1400;
      const r = 4 + random() * 6;
      for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(1400, cy + r); y++) {
        for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(1000, cx + r); x++) if ((x - cx) ** 2 + (y - cy) ** 2 < r * r) page.data[y * 1000 + x] = 40;
      }
    }
    const result = await deskew(page);
    expect(result.decision.confidence).toBeLessThan(0.5);
    expect(result.image).toBe(page);
  });

  it('fills the uncovered corners with the page, not with a white or black edge', async () => {
    for (const [width, height, angle] of [
      [1000, 1400, 7.8],
      [1001, 1399, -9.3],
      [1400, 1000, -4],
      [301, 200, 10],
    ]) {
      const rotated = await rotatePage(flatPage(width, height, 170), angle);
      expect([rotated.width, rotated.height]).toEqual([width, height]);
      expect(rotated.data.every((v) => v === 170)).toBe(true);
    }
  });
});
