import { describe, expect, it } from 'vitest';
import { inkComponents, isBitonal, reduceByAverage } from '../../src/imaging/index.js';
import type { GrayImage } from '../../src/imaging/index.js';
import { binarize, windowPxFor } from '../../src/pipeline/binarize.js';
import { lightAt, photograph, renderTextPage, scoreAgainstTruth, seededRandom, type Lighting } from './synthetic-text.js';

/** Strong light fall-off from left to right, as under a desk lamp, plus camera blur and noise. */
const LAMP: Lighting = { left: 230, right: 90, blur: 0.8, noise: 3, ink: 0.15 };

/** An A5 page, text running into a soft gutter shadow on one side. */
async function shadowedPage(dpi: number, side: 'left' | 'right'): Promise<{ truth: GrayImage; camera: GrayImage; lighting: Lighting }> {
  const truth = await renderTextPage({ widthMm: 148, heightMm: 210, dpi, marginMm: 8, seed: side === 'left' ? 2 : 5 });
  const lighting: Lighting = { ...LAMP, blur: (LAMP.blur ?? 0) * (dpi / 150), gutter: { side, widthFraction: 0.18, darkest: 0.4 } };
  return { truth, camera: await photograph(truth, lighting), lighting };
}

/** Largest glyph of the ground truth, in pixels of ink. */
function largestGlyph(truth: GrayImage): number {
  const bitonal = { ...truth, data: truth.data.map((v) => (v < 128 ? 0 : 255)) };
  return Math.max(...inkComponents(bitonal).map((c) => c.area));
}

/** Fraction of black pixels in each cell of an n×n grid over the page. */
function inkPerCell(image: GrayImage, n: number): number[] {
  const out: number[] = [];
  for (let cy = 0; cy < n; cy++) {
    for (let cx = 0; cx < n; cx++) {
      const x0 = Math.floor((cx * image.width) / n);
      const x1 = Math.floor(((cx + 1) * image.width) / n);
      const y0 = Math.floor((cy * image.height) / n);
      const y1 = Math.floor(((cy + 1) * image.height) / n);
      let ink = 0;
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (image.data[y * image.width + x] === 0) ink++;
      out.push(ink / ((x1 - x0) * (y1 - y0)));
    }
  }
  return out;
}

describe('binarize', () => {
  it('sizes the window from millimetres and the resolution, always odd', async () => {
    for (const dpi of [110, 150, 200, 300, 600]) {
      const page: GrayImage = { width: 64, height: 64, data: new Uint8Array(64 * 64).fill(200) };
      const { decision } = await binarize(page, { dpi, windowMm: 10 });
      const expected = Math.round((10 * dpi) / 25.4);
      expect(decision.windowPx % 2).toBe(1);
      expect(Math.abs(decision.windowPx - expected)).toBeLessThanOrEqual(1);
      expect(decision).toMatchObject({ method: 'sauvola', windowMm: 10 });
    }
    expect(windowPxFor(10, 300)).toBe(119);
    expect(windowPxFor(10, 150)).toBe(59);
    expect(windowPxFor(8, 150)).toBe(47);
  });

  for (const side of ['right', 'left'] as const) {
    it(`keeps every glyph and cleans the paper under a lamp gradient and a ${side} gutter shadow`, async () => {
      const { truth, camera, lighting } = await shadowedPage(150, side);
      const { image } = await binarize(camera, { dpi: 150 });
      expect(isBitonal(image)).toBe(true);

      const score = scoreAgainstTruth(image, truth, 1);
      expect(score.glyphKept).toBeGreaterThanOrEqual(0.99);
      expect(score.paperClean).toBeGreaterThanOrEqual(0.998);

      // In the shadow band there is no black blob bigger than a letter.
      const bandPx = Math.round(0.18 * truth.width);
      const bandX = side === 'left' ? 0 : truth.width - bandPx;
      const strayInBand = inkComponents(score.stray).filter((c) => c.x + c.width > bandX && c.x < bandX + bandPx);
      const biggest = Math.max(0, ...strayInBand.map((c) => c.area));
      expect(biggest).toBeLessThan(largestGlyph(truth) / 4);

      // The shadow really is dark where the text is: the darkest paper is under half the brightest.
      const edge = side === 'left' ? 0 : truth.width - 1;
      expect(lightAt(lighting, edge, truth.width)).toBeLessThan(0.5 * 230);
    });
  }

  it('leaves empty paper white under a gradient, a shadow and noise (no speckle)', async () => {
    const width = 900;
    const height = 1200;
    const random = seededRandom(11);
    const lighting: Lighting = { left: 235, right: 70, gutter: { side: 'right', widthFraction: 0.15, darkest: 0.35 } };
    const data = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const noise = (random() + random() + random() - 1.5) * 2 * 4;
        data[y * width + x] = Math.max(0, Math.min(255, Math.round(lightAt(lighting, x, width) + noise)));
      }
    }
    const { image } = await binarize({ width, height, data }, { dpi: 150 });
    const black = image.data.reduce((n, v) => n + (v === 0 ? 1 : 0), 0);
    expect(black).toBe(0);
  });

  it('sharpens small camera type before the threshold and lowers k, and leaves a page at its own resolution as it is', async () => {
    const page = await renderTextPage({ widthMm: 60, heightMm: 30, dpi: 300, marginMm: 4, seed: 9 });
    // Enlarged 2.5× from a webcam's resolution: the full sharpening (the quality benchmark's camera pages read
    // 0.83 → 0.90 of their words from the bitonal page with it), and Sauvola's k down to 0.15.
    expect((await binarize(page, { dpi: 300, enlargedBy: 2.5 })).decision).toMatchObject({ k: 0.15, sharpen: { sigmaPx: 1.5, amount: 2 } });
    // Half-way: half of each.
    expect((await binarize(page, { dpi: 300, enlargedBy: 1.625 })).decision).toMatchObject({ k: 0.2, sharpen: { amount: 1 } });
    const scan = await binarize(page, { dpi: 300 });
    expect(scan.decision.k).toBe(0.25);
    expect(scan.decision.sharpen).toBeUndefined();
    // The page OCR reads: the grey page levelled to white paper, the same size.
    expect([scan.reading?.width, scan.reading?.height]).toEqual([page.width, page.height]);
    expect(scan.reading?.data.reduce((m, v) => Math.max(m, v), 0)).toBe(255);
    // Not made when nothing will read it; the bitonal page is the same.
    const unread = await binarize(page, { dpi: 300, reading: false });
    expect(unread.reading).toBeUndefined();
    expect(unread.image.data).toEqual(scan.image.data);
  });

  it('gives the same page at 150 and 300 dpi, up to scale', async () => {
    const low = await shadowedPage(150, 'right');
    const high = await shadowedPage(300, 'right');
    const atLow = (await binarize(low.camera, { dpi: 150 })).image;
    const atHigh = (await binarize(high.camera, { dpi: 300 })).image;

    // Both meet the same bar against their own ground truth...
    for (const [image, truth] of [
      [atLow, low.truth],
      [atHigh, high.truth],
    ] as const) {
      const score = scoreAgainstTruth(image, truth, 1);
      expect(score.glyphKept).toBeGreaterThanOrEqual(0.99);
      expect(score.paperClean).toBeGreaterThanOrEqual(0.998);
    }
    // ...and put the same ink in the same places: ink coverage per cell of an 8×8 grid agrees, and the
    // 300-dpi result halved matches the 150-dpi one pixel for pixel but for glyph outlines.
    const low8 = inkPerCell(atLow, 8);
    const high8 = inkPerCell(atHigh, 8);
    for (let i = 0; i < low8.length; i++) expect(Math.abs(low8[i] - high8[i])).toBeLessThan(0.025);
    const halved = reduceByAverage(atHigh, 2);
    const w = Math.min(halved.width, atLow.width);
    const h = Math.min(halved.height, atLow.height);
    let differ = 0;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) if ((atLow.data[y * atLow.width + x] === 0) !== halved.data[y * halved.width + x] < 128) differ++;
    }
    expect(differ / (w * h)).toBeLessThan(0.04);
  });
});
