import { describe, expect, it } from 'vitest';
import type { GrayImage } from '../../src/imaging/index.js';
import { dewarp } from '../../src/pipeline/dewarp.js';
import { photograph, renderTextPage, seededRandom } from './synthetic-text.js';

/** Camera resolution the step runs at (before upsampling). */
const DPI = 130;
const WIDTH = 900;
const HEIGHT = 1300;

/** A vertical displacement, px: a line printed at y shows at y + curl(x, y). */
type Curl = (x: number, y: number) => number;

/** The brief's curl: a parabola in x, worst at the gutter (left edge), growing down the page; 15 px at the worst corner. */
const gutterLeft: Curl = (x, y) => 7.5 * ((x - WIDTH) / WIDTH) ** 2 * (1 + y / HEIGHT);
/** A camera's view of a curled page: lines bow one way at the top, the other at the foot, near a gutter on the right. */
const bowing: Curl = (x, y) => 16 * (x / WIDTH) ** 3 * ((2 * y) / HEIGHT - 1);
const flat: Curl = () => 0;
/** A book's strong curl: flat over two thirds of the page, then rising steeply into the gutter on the left (two pitches). */
const steepGutter: Curl = (x, y) => -48 * Math.max(0, 1 - x / (0.35 * WIDTH)) ** 2 * (0.6 + 0.4 * (y / HEIGHT));

interface Word {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/**
 * Rows of dark "words" (each line a run of rectangles, every fifth line a short paragraph end), as printed on a
 * flat page; `drawWords` photographs them through a curl.
 */
function wordRows(seed = 5): { words: Word[]; pitch: number } {
  const random = seededRandom(seed);
  const pitch = 24;
  const xHeight = 9;
  const words: Word[] = [];
  let line = 0;
  for (let y = 0.08 * HEIGHT; y < 0.92 * HEIGHT; y += pitch, line++) {
    const end = line % 5 === 4 ? 0.58 * WIDTH : 0.9 * WIDTH;
    for (let x = 0.1 * WIDTH; x < end;) {
      const w = xHeight * (1.2 + random() * 4);
      words.push({ x0: x, x1: Math.min(end, x + w), y0: y, y1: y + xHeight });
      x += w + xHeight * 0.6;
    }
  }
  return { words, pitch };
}

/** The words as a camera sees them through `curl`: 2×2 super-sampled, ink 25 on paper 255. */
function drawWords(words: readonly Word[], pitch: number, curl: Curl): GrayImage {
  const rows = new Map<number, Word[]>();
  for (const w of words) {
    const key = Math.floor(w.y0 / pitch);
    rows.set(key, [...(rows.get(key) ?? []), w]);
  }
  const inside = (x: number, y: number): boolean => {
    const flatY = y - curl(x, y);
    for (const key of [Math.floor(flatY / pitch) - 1, Math.floor(flatY / pitch)]) {
      for (const w of rows.get(key) ?? []) if (x >= w.x0 && x < w.x1 && flatY >= w.y0 && flatY < w.y1) return true;
    }
    return false;
  };
  const data = new Uint8Array(WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      let ink = 0;
      for (const [sx, sy] of [
        [0.25, 0.25],
        [0.75, 0.25],
        [0.25, 0.75],
        [0.75, 0.75],
      ])
        if (inside(x + sx, y + sy)) ink++;
      data[y * WIDTH + x] = 255 - Math.round((ink / 4) * 230);
    }
  }
  return { width: WIDTH, height: HEIGHT, data };
}

/** Bend a flat page through `curl` (out(x, y) = in(x, y − curl)), linearly between rows: the test's own warp. */
function bend(page: GrayImage, curl: Curl): GrayImage {
  const { width, height, data } = page;
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sy = Math.min(height - 1, Math.max(0, y - curl(x, y)));
      const y0 = Math.floor(sy);
      const y1 = Math.min(height - 1, y0 + 1);
      const f = sy - y0;
      out[y * width + x] = Math.round(data[y0 * width + x] * (1 - f) + data[y1 * width + x] * f);
    }
  }
  return { width, height, data: out };
}

/** How far a text line strays up and down along its length, px. */
interface Waviness {
  /** Standard deviation of its height along x. */
  spread: number;
  /** Highest minus lowest. */
  range: number;
}

/**
 * How wavy each text line is, against the flat original: in columns of `bin` px, the ink centroid of the line's
 * band minus the same centroid on the flat page (so letter shapes cancel), followed along x. Bands are centred
 * on the flat page's lines, `pitch` tall, moved by `curl` where the page is known to be bent.
 */
function lineWaviness(page: GrayImage, truth: GrayImage, lineRows: readonly number[], pitch: number, curl: Curl = flat, bin = 40): Waviness[] {
  const centroid = (image: GrayImage, x0: number, y0: number): number | undefined => {
    let mass = 0;
    let sum = 0;
    for (let y = Math.max(0, Math.round(y0 - pitch / 2)); y < Math.min(image.height, Math.round(y0 + pitch / 2)); y++) {
      for (let x = x0; x < Math.min(image.width, x0 + bin); x++) {
        const ink = 255 - image.data[y * image.width + x];
        mass += ink;
        sum += ink * y;
      }
    }
    return mass > 40 * bin ? sum / mass : undefined;
  };
  return lineRows.map((row) => {
    const offsets: number[] = [];
    for (let x = 0; x + bin <= page.width; x += bin) {
      const a = centroid(truth, x, row);
      const b = centroid(page, x, row + curl(x + bin / 2, row));
      if (a !== undefined && b !== undefined) offsets.push(b - a);
    }
    const mean = offsets.reduce((s, v) => s + v, 0) / offsets.length;
    const spread = Math.sqrt(offsets.reduce((s, v) => s + (v - mean) ** 2, 0) / offsets.length);
    return { spread, range: Math.max(...offsets) - Math.min(...offsets) };
  });
}

/** Rows of the flat page where its text lines are (centres of the ink bands), from the row profile. */
function textRows(truth: GrayImage): number[] {
  const rows: number[] = [];
  let start = -1;
  for (let y = 0; y <= truth.height; y++) {
    let ink = 0;
    if (y < truth.height) for (let x = 0; x < truth.width; x++) if (truth.data[y * truth.width + x] < 128) ink++;
    if (ink > 0.1 * truth.width && start < 0) start = y;
    if (!(ink > 0.1 * truth.width) && start >= 0) {
      rows.push((start + y - 1) / 2);
      start = -1;
    }
  }
  return rows;
}

function blankPage(level: number, noise: number): GrayImage {
  const random = seededRandom(2);
  const data = new Uint8Array(WIDTH * HEIGHT);
  for (let i = 0; i < data.length; i++) data[i] = Math.round(level + (random() - 0.5) * 2 * noise);
  return { width: WIDTH, height: HEIGHT, data };
}

const worst = (lines: readonly Waviness[], key: keyof Waviness): number => Math.max(...lines.map((w) => w[key]));
const mean = (values: readonly number[]): number => values.reduce((s, v) => s + v, 0) / values.length;

describe('dewarp', () => {
  const { words, pitch } = wordRows();
  const truth = drawWords(words, pitch, flat);
  const rows = textRows(truth);

  it.each([
    ['a parabolic curl toward a gutter on the left', gutterLeft],
    ['lines bowing up at the top and down at the foot', bowing],
  ])('straightens rows of words bent by %s', async (_, curl) => {
    const bent = drawWords(words, pitch, curl);
    const before = lineWaviness(bent, truth, rows, pitch, curl);
    const { image, decision } = await dewarp(bent, { dpi: DPI });
    const after = lineWaviness(image, truth, rows, pitch);
    expect(worst(before, 'range')).toBeGreaterThan(8);
    expect(decision.applied).toBe(true);
    expect(decision.lines).toBeGreaterThanOrEqual(20);
    expect(decision.maxShiftPx).toBeGreaterThan(8);
    expect(decision.maxShiftPx).toBeLessThan(20);
    // A curl of a letter height or so is straightened in one pass.
    expect(decision.passes).toBeUndefined();
    expect([image.width, image.height]).toEqual([WIDTH, HEIGHT]);
    // Every line straight to within a pixel (the paragraph ends too), most far better.
    expect(worst(after, 'spread')).toBeLessThanOrEqual(0.5);
    expect(worst(after, 'range')).toBeLessThanOrEqual(1.5);
  });

  it('straightens a strong curl that is flat over most of the page and steep at the gutter, in two passes', async () => {
    const layout = { widthMm: (WIDTH / DPI) * 25.4, heightMm: (HEIGHT / DPI) * 25.4, dpi: DPI, marginMm: 10, seed: 4 };
    const page = await renderTextPage(layout);
    const lighting = { left: 220, right: 200, blur: 0.7, noise: 3 };
    const flatPhoto = await photograph(page, lighting);
    const bentPhoto = await photograph(bend(page, steepGutter), lighting);
    const font = (10.5 * DPI) / 72;
    const leading = (13 * DPI) / 72;
    const top = (layout.marginMm * DPI) / 25.4 + font;
    const textLines: number[] = [];
    for (let baseline = top; baseline < HEIGHT - (layout.marginMm * DPI) / 25.4; baseline += leading) textLines.push(baseline - 0.25 * font);
    const before = lineWaviness(bentPhoto, flatPhoto, textLines, leading, steepGutter, 20);
    const { image, decision } = await dewarp(bentPhoto, { dpi: DPI });
    const after = lineWaviness(image, flatPhoto, textLines, leading, flat, 20);
    expect(worst(before, 'range')).toBeGreaterThan(20);
    // Two corrections, applied to the page in one resampling: straight to within a pixel, nothing torn.
    expect(decision).toMatchObject({ applied: true, passes: 2 });
    expect(worst(after, 'range')).toBeLessThanOrEqual(1);
    expect(worst(after, 'spread')).toBeLessThanOrEqual(0.3);
  });

  it('straightens real text photographed under uneven light', async () => {
    const layout = { widthMm: (WIDTH / DPI) * 25.4, heightMm: (HEIGHT / DPI) * 25.4, dpi: DPI, marginMm: 18, seed: 4 };
    const page = await renderTextPage(layout);
    const lighting = { left: 150, right: 225, blur: 0.7, noise: 3, gutter: { side: 'left' as const, widthFraction: 0.15, darkest: 0.55 } };
    const flatPhoto = await photograph(page, lighting);
    const bentPhoto = await photograph(bend(page, gutterLeft), lighting);
    // renderTextPage's layout: 10.5 pt type on 13 pt leading; the band of each line is centred on its x-height.
    const font = (10.5 * DPI) / 72;
    const leading = (13 * DPI) / 72;
    const top = (layout.marginMm * DPI) / 25.4 + font;
    const textLines: number[] = [];
    for (let baseline = top; baseline < HEIGHT - (layout.marginMm * DPI) / 25.4; baseline += leading) textLines.push(baseline - 0.25 * font);
    const before = lineWaviness(bentPhoto, flatPhoto, textLines, leading, gutterLeft);
    const { image, decision } = await dewarp(bentPhoto, { dpi: DPI });
    const after = lineWaviness(image, flatPhoto, textLines, leading);
    expect(worst(before, 'range')).toBeGreaterThan(8);
    expect(decision.applied).toBe(true);
    expect(decision.residualPx).toBeLessThan(1);
    expect(worst(after, 'spread')).toBeLessThanOrEqual(1);
    expect(worst(after, 'range')).toBeLessThanOrEqual(2.5);
    expect(mean(after.map((w) => w.spread))).toBeLessThanOrEqual(0.4);
  });

  it('leaves a flat page untouched', async () => {
    const page = await photograph(await renderTextPage({ widthMm: (WIDTH / DPI) * 25.4, heightMm: (HEIGHT / DPI) * 25.4, dpi: DPI, marginMm: 18, seed: 6 }), {
      left: 220,
      right: 170,
      blur: 0.7,
      noise: 3,
    });
    const { image, decision } = await dewarp(page, { dpi: DPI });
    expect(decision.applied).toBe(false);
    expect(decision.lines).toBeGreaterThanOrEqual(20);
    expect(decision.maxShiftPx).toBeLessThan(0.5);
    expect(image).toBe(page);

    const words = await dewarp(truth, { dpi: DPI });
    expect(words.decision.applied).toBe(false);
    expect(words.image).toBe(truth);
  });

  it('does nothing with two lines of text, or none', async () => {
    const twoLines = drawWords(
      words.filter((w) => w.y0 < rows[2] - pitch / 2),
      pitch,
      gutterLeft,
    );
    expect(textRows(twoLines)).toHaveLength(2);
    const few = await dewarp(twoLines, { dpi: DPI });
    expect(few.decision.applied).toBe(false);
    expect(few.image).toBe(twoLines);

    for (const blank of [blankPage(235, 0), blankPage(180, 6)]) {
      const none = await dewarp(blank, { dpi: DPI });
      expect(none.decision).toEqual({ applied: false, lines: 0, maxShiftPx: 0, residualPx: 0 });
      expect(none.image).toBe(blank);
    }
  });

  it('moves no pixel further than maxShiftMm', async () => {
    const bent = drawWords(words, pitch, gutterLeft);
    const { decision } = await dewarp(bent, { dpi: DPI, maxShiftMm: 1 });
    expect(decision.applied).toBe(true);
    expect(decision.maxShiftPx).toBeLessThanOrEqual(DPI / 25.4 + 0.01);
  });

  it('refuses a page without a resolution', async () => {
    await expect(dewarp(truth, { dpi: 0 })).rejects.toThrow(RangeError);
  });
});
