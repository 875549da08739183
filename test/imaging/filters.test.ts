import { describe, expect, it } from 'vitest';
import {
  blockSums,
  boxRadiiForGaussian,
  deconvolve,
  edgeBlur,
  gaussianBlur,
  grayClosing,
  inkComponents,
  integralOf,
  isBitonal,
  maxFilter,
  minFilter,
  noiseLevel,
  padRight,
  reduceByAverage,
  sauvolaBinarize,
  unsharpMask,
  unsharpMaskNative,
  windowSum,
} from '../../src/imaging/index.js';
import { createGray, type GrayImage, sharpFromGray } from '../../src/imaging/index.js';
import { seededRandom } from '../helpers.js';

function randomPage(width: number, height: number, seed = 1): GrayImage {
  let s = seed;
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  return { width, height, data };
}

function drawBox(page: GrayImage, x: number, y: number, w: number, h: number, value = 0): void {
  for (let yy = y; yy < y + h; yy++) page.data.fill(value, yy * page.width + x, yy * page.width + x + w);
}

describe('block statistics', () => {
  it('sums blocks exactly, including the partial ones at the edges', () => {
    for (const [width, height, f] of [
      [23, 17, 5],
      [1, 1, 3],
      [70, 9, 1],
      [133, 41, 16],
      [97, 120, 40],
    ]) {
      const page = randomPage(width, height);
      // The brightest pixels too, where the squares are largest.
      page.data.fill(255, 0, width);
      const blocks = blockSums(page, f);
      expect([blocks.cols, blocks.rows]).toEqual([Math.ceil(width / f), Math.ceil(height / f)]);
      for (let by = 0; by < blocks.rows; by++) {
        for (let bx = 0; bx < blocks.cols; bx++) {
          let sum = 0;
          let sq = 0;
          let n = 0;
          for (let y = by * f; y < Math.min(height, by * f + f); y++) {
            for (let x = bx * f; x < Math.min(width, bx * f + f); x++) {
              const v = page.data[y * width + x];
              sum += v;
              sq += v * v;
              n++;
            }
          }
          const o = by * blocks.cols + bx;
          expect([blocks.sum[o], blocks.sumSq[o], blocks.count[o]]).toEqual([sum, sq, n]);
        }
      }
    }
  });

  it('averages blocks when reducing a page', () => {
    const page = createGray(7, 4, 100);
    drawBox(page, 0, 0, 2, 2, 0);
    const small = reduceByAverage(page, 2);
    expect([small.width, small.height]).toEqual([4, 2]);
    expect(Array.from(small.data)).toEqual([0, 100, 100, 100, 100, 100, 100, 100]);
    expect(reduceByAverage(page, 1)).toBe(page);
  });

  it('sums any window from a summed-area table', () => {
    const values = Array.from({ length: 30 }, (_, i) => i);
    const table = integralOf(values, 6, 5);
    let expected = 0;
    for (let y = 1; y < 4; y++) for (let x = 2; x < 5; x++) expected += values[y * 6 + x];
    expect(windowSum(table, 6, 2, 1, 5, 4)).toBe(expected);
  });
});

describe('grey morphology', () => {
  it('takes running maxima and minima over a square, clipped at the edges', () => {
    const w = 13;
    const h = 9;
    const grid = Float32Array.from(randomPage(w, h, 3).data);
    const r = 2;
    const max = maxFilter(grid, w, h, r);
    const min = minFilter(grid, w, h, r);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let hi = -Infinity;
        let lo = Infinity;
        for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
          for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) {
            hi = Math.max(hi, grid[yy * w + xx]);
            lo = Math.min(lo, grid[yy * w + xx]);
          }
        }
        expect(max[y * w + x]).toBe(hi);
        expect(min[y * w + x]).toBe(lo);
      }
    }
  });

  it('closing removes ink narrower than the window and keeps a shadow ramp up to the border', () => {
    const w = 60;
    const h = 10;
    const paper = new Float32Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) paper[y * w + x] = 200 - 2 * x; // darker to the right edge
    const page = Float32Array.from(paper);
    for (let y = 3; y < 6; y++) for (let x = 20; x < 24; x++) page[y * w + x] = 20; // a glyph
    const closed = grayClosing(page, w, h, 4);
    for (let i = 0; i < w * h; i++) expect(closed[i]).toBeCloseTo(paper[i], 4);
  });
});

describe('noiseLevel', () => {
  it('measures the sensor noise of flat paper', () => {
    const uniform = seededRandom(7);
    const page = createGray(400, 300, 0);
    for (let i = 0; i < page.data.length; i++) {
      // Box–Muller: Gaussian noise of σ = 5 around 180.
      const g = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
      page.data[i] = Math.round(180 + 5 * g);
    }
    expect(noiseLevel(page)).toBeGreaterThan(4);
    expect(noiseLevel(page)).toBeLessThan(6.5);
    expect(noiseLevel(createGray(50, 50, 128))).toBe(0);
  });
});

describe('sauvolaBinarize', () => {
  const params = { windowPx: 31, backgroundPx: 25, k: 0.25 };

  it('leaves flat paper white and puts ink on the marks', () => {
    const page = createGray(120, 90, 190);
    expect(sauvolaBinarize(page, params).data.every((v) => v === 255)).toBe(true);
    drawBox(page, 40, 30, 3, 12, 60);
    const out = sauvolaBinarize(page, params);
    expect(isBitonal(out)).toBe(true);
    for (let y = 0; y < 90; y++) {
      for (let x = 0; x < 120; x++) expect(out.data[y * 120 + x]).toBe(x >= 40 && x < 43 && y >= 30 && y < 42 ? 0 : 255);
    }
  });

  it('ignores marks fainter than the contrast floor', () => {
    const page = createGray(120, 90, 190);
    drawBox(page, 40, 30, 3, 12, 185);
    expect(sauvolaBinarize(page, params).data.every((v) => v === 255)).toBe(true);
  });
});

describe('inkComponents', () => {
  it('finds 8-connected ink with boxes and areas', () => {
    const page = createGray(20, 12, 255);
    drawBox(page, 1, 1, 3, 3); // a square
    page.data[4 * 20 + 4] = 0; // touching it diagonally: same component
    drawBox(page, 10, 2, 1, 6); // a U: two legs joined at the bottom
    drawBox(page, 14, 2, 1, 6);
    drawBox(page, 10, 7, 5, 1);
    page.data[11 * 20 + 19] = 0; // a lone speck in the corner
    const found = inkComponents(page).sort((a, b) => a.x - b.x);
    expect(found).toEqual([
      { x: 1, y: 1, width: 4, height: 4, area: 10 },
      { x: 10, y: 2, width: 5, height: 6, area: 15 },
      { x: 19, y: 11, width: 1, height: 1, area: 1 },
    ]);
  });

  it('finds the same components as a pixel-by-pixel flood fill, whatever the page width and where its bytes start', () => {
    // A seeded pseudo-random page of blobs, lines and specks: widths not a multiple of 4, bytes at an odd offset too.
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const [width, height, offset] of [
      [203, 97, 0],
      [158, 121, 1],
      [64, 64, 4],
    ]) {
      const buffer = new Uint8Array(width * height + offset).fill(255);
      const page = { width, height, data: buffer.subarray(offset) };
      for (let k = 0; k < 60; k++) {
        const [x, y] = [Math.floor(random() * width), Math.floor(random() * height)];
        drawBox(page, x, y, Math.min(width - x, 1 + Math.floor(random() * 12)), Math.min(height - y, 1 + Math.floor(random() * 4)));
      }
      for (let i = 0; i < width * height; i += 1 + Math.floor(random() * 40)) page.data[i] = random() < 0.5 ? 0 : 100;
      const key = (c: { x: number; y: number; width: number; height: number; area: number }): string => `${c.x},${c.y},${c.width},${c.height},${c.area}`;
      expect(inkComponents(page).map(key).sort()).toEqual(floodFilled(page).map(key).sort());
    }
  });

  it('handles pages with many components', () => {
    const page = createGray(400, 400, 255);
    for (let y = 0; y < 400; y += 4) for (let x = 0; x < 400; x += 4) page.data[y * 400 + x] = 0;
    expect(inkComponents(page)).toHaveLength(100 * 100);
  });
});

describe('isBitonal and padRight', () => {
  it('pads with the fill colour on the right only', () => {
    const page = createGray(3, 2, 0);
    const padded = padRight(page, 5);
    expect(Array.from(padded.data)).toEqual([0, 0, 0, 255, 255, 0, 0, 0, 255, 255]);
    expect(padRight(page, 3)).toBe(page);
    expect(isBitonal(padded)).toBe(true);
    expect(isBitonal(createGray(2, 2, 128))).toBe(false);
  });

  it('finds one grey pixel wherever it lies, in pages whose bytes start at any offset in their buffer', () => {
    const buffer = new Uint8Array(64);
    for (let start = 0; start < 4; start++) {
      for (let length = 1; length <= 13; length++) {
        const data = buffer.subarray(start, start + length);
        for (let i = 0; i < length; i++) data[i] = i % 3 === 0 ? 0 : 255;
        expect(isBitonal({ width: length, height: 1, data })).toBe(true);
        for (const grey of [1, 127, 128, 254]) {
          for (let at = 0; at < length; at++) {
            const kept = data[at];
            data[at] = grey;
            expect(isBitonal({ width: length, height: 1, data })).toBe(false);
            data[at] = kept;
          }
        }
      }
    }
  });
});

/** A page of dark bars on light paper (every edge a clean step), blurred by a Gaussian of `sigma` pixels. */
function barsPage(sigma: number): GrayImage {
  const page = createGray(240, 160, 220);
  for (let x = 20; x < 220; x += 24) drawBox(page, x, 20, 10, 120, 40);
  return sigma > 0 ? gaussianBlur(page, sigma) : page;
}

/** Steepest grey step between horizontal neighbours along row y. */
function steepest(page: GrayImage, y: number): number {
  let most = 0;
  for (let x = 1; x < page.width; x++) most = Math.max(most, Math.abs(page.data[y * page.width + x] - page.data[y * page.width + x - 1]));
  return most;
}

describe('gaussianBlur and unsharpMask', () => {
  it('chooses boxes whose combined spread is that of the Gaussian', () => {
    // Odd widths only: coarse steps below 2 px, within a few per cent above.
    for (const [sigma, within] of [
      [1, 0.16],
      [1.5, 0.1],
      [3, 0.06],
      [7, 0.03],
    ]) {
      const radii = boxRadiiForGaussian(sigma);
      expect(radii).toHaveLength(3);
      const variance = radii.reduce((v, r) => v + ((2 * r + 1) ** 2 - 1) / 12, 0);
      expect(Math.abs(Math.sqrt(variance) - sigma) / sigma).toBeLessThan(within);
    }
  });

  it('spreads a line by sigma and keeps its ink and flat paper as they are', () => {
    const page = createGray(101, 9, 0);
    for (let y = 0; y < 9; y++) page.data[y * 101 + 50] = 255;
    const blurred = gaussianBlur(page, 3);
    const row = Array.from(blurred.data.subarray(4 * 101, 5 * 101));
    const total = row.reduce((a, b) => a + b, 0);
    const variance = row.reduce((a, v, x) => a + v * (x - 50) ** 2, 0) / total;
    expect(Math.abs(total - 255)).toBeLessThan(12);
    expect(Math.sqrt(variance)).toBeGreaterThan(2.8);
    expect(Math.sqrt(variance)).toBeLessThan(3.5);
    expect(row[50]).toBe(Math.max(...row));
    expect(gaussianBlur(createGray(30, 20, 177), 2).data.every((v) => v === 177)).toBe(true);
  });

  it('makes blurred edges steep again without moving them or touching flat paper', () => {
    const soft = barsPage(1.5);
    const sharp = unsharpMask(soft, 1.5, 1.5);
    expect(steepest(sharp, 80)).toBeGreaterThan(1.3 * steepest(soft, 80));
    // The middle of each edge stays where it was: the bars keep their width at mid-grey.
    const dark = (page: GrayImage): number => Array.from(page.data.subarray(80 * 240, 81 * 240)).filter((v) => v < 130).length;
    expect(Math.abs(dark(sharp) - dark(soft))).toBeLessThanOrEqual(2);
    expect(sharp.data[5 * 240 + 5]).toBe(soft.data[5 * 240 + 5]);
    expect(unsharpMask(createGray(30, 20, 90), 1, 2).data.every((v) => v === 90)).toBe(true);
  });

  it("mixes the page with libvips' blur as page + amount · (page − blur), rounded and clipped, pixel for pixel", async () => {
    const page = randomPage(53, 37);
    for (const amount of [0.6, 1.7, 2.5]) {
      const blurred = await sharpFromGray(page).blur({ sigma: 1.5, precision: 'integer' }).toColourspace('b-w').raw().toBuffer();
      const expected = Array.from(page.data, (p, i) => {
        const v = p + amount * (p - blurred[i]);
        return v <= 0 ? 0 : v >= 255 ? 255 : Math.floor(v + 0.5);
      });
      expect(Array.from((await unsharpMaskNative(page, 1.5, amount)).data)).toEqual(expected);
    }
  });

  it("sharpens with libvips' Gaussian as the box mask does, flat paper untouched at every width", async () => {
    const soft = barsPage(1.5);
    const boxes = unsharpMask(soft, 1.5, 2);
    const native = await unsharpMaskNative(soft, 1.5, 2);
    expect(steepest(native, 80)).toBeGreaterThan(1.3 * steepest(soft, 80));
    // A true Gaussian rounded once against three boxes rounded each: apart by a few levels at the steepest edges only.
    let worst = 0;
    let total = 0;
    for (let i = 0; i < native.data.length; i++) {
      const d = Math.abs(native.data[i] - boxes.data[i]);
      worst = Math.max(worst, d);
      total += d;
    }
    expect(worst).toBeLessThanOrEqual(12);
    // This page is bars, edges everywhere; on a camera page the two differ by 0.7 levels on average.
    expect(total / native.data.length).toBeLessThan(3);
    // 1.5 px (the threshold's width at 300 dpi) is libvips' own; 1.3 px is a width where its rounded mask would shift paper.
    for (const sigma of [1.5, 1.3]) expect((await unsharpMaskNative(createGray(40, 30, 200), sigma, 2)).data.every((v) => v === 200)).toBe(true);
  });

  it('sharpens to exactly page + amount · (page − its blur), on pages narrower than the boxes too', () => {
    for (const [width, height, sigma, amount] of [
      [240, 160, 1.5, 2],
      [240, 160, 2.3, 1.5],
      [3, 40, 4, 2],
      [40, 2, 1.1, 4.5],
    ]) {
      const page = barsPage(0);
      const cut = { width, height, data: page.data.slice(0, width * height).map((v, i) => (v + 37 * i) % 256) };
      const blurred = gaussianBlur(cut, sigma).data;
      const expected = Array.from(cut.data, (v, i) => Math.min(255, Math.max(0, Math.round(v + amount * (v - blurred[i])))));
      expect(Array.from(unsharpMask(cut, sigma, amount).data)).toEqual(expected);
    }
  });
});

describe('deconvolve', () => {
  it('undoes a Gaussian blur: edges steep again, the page closer to the unblurred one than any mask makes it, paper untouched', () => {
    const crisp = barsPage(0);
    const soft = barsPage(2.2);
    const restored = deconvolve(soft, 2.2, 50);
    // Edge blur 2.2 px before, about 1.45 after (0.8 px is a perfect step).
    expect(edgeBlur(soft)!).toBeGreaterThan(2);
    expect(edgeBlur(restored)!).toBeLessThan(1.6);
    // Mean grey difference from the unblurred page: 18.8 blurred, 12.5 deconvolved; a mask as steep (4.5) overshoots
    // into halos, 22.6, a gentle one (1.5) 16.4.
    const off = (page: GrayImage): number => page.data.reduce((sum, v, i) => sum + Math.abs(v - crisp.data[i]), 0) / page.data.length;
    expect(off(restored)).toBeLessThan(0.75 * off(soft));
    expect(off(restored)).toBeLessThan(off(unsharpMask(soft, 2.2, 1.5)));
    expect(off(restored)).toBeLessThan(off(unsharpMask(soft, 2.2, 4.5)));
    expect(restored.data[5 * 240 + 5]).toBe(soft.data[5 * 240 + 5]);
    expect(deconvolve(createGray(30, 20, 200), 2, 10).data.every((v) => v === 200)).toBe(true);
  });
});

describe('edgeBlur', () => {
  it('measures how soft the edges are, and says nothing on blank paper', () => {
    // A perfect step reads 0.8 px (the floor of central differences); blur adds to it in quadrature.
    const crisp = edgeBlur(barsPage(0));
    const soft = edgeBlur(barsPage(1.5));
    const softer = edgeBlur(barsPage(2.2));
    expect(crisp).not.toBeNull();
    expect(Math.abs(crisp! - 0.8)).toBeLessThan(0.05);
    expect(Math.abs(soft! - Math.hypot(1.5, 0.8))).toBeLessThan(0.2);
    expect(Math.abs(softer! - Math.hypot(2.2, 0.8))).toBeLessThan(0.3);
    expect(edgeBlur(createGray(200, 200, 200))).toBeNull();
    expect(edgeBlur(randomPage(8, 8))).toBeNull();
  });
});

/** Reference labelling: 8-connected flood fill from every unlabelled ink pixel (< 128). */
function floodFilled(page: { width: number; height: number; data: Uint8Array }): { x: number; y: number; width: number; height: number; area: number }[] {
  const { width, height, data } = page;
  const seen = new Uint8Array(width * height);
  const out = [];
  for (let i = 0; i < width * height; i++) {
    if (seen[i] || data[i] >= 128) continue;
    let [x0, y0, x1, y1, area] = [width, height, 0, 0, 0];
    const stack = [i];
    seen[i] = 1;
    while (stack.length > 0) {
      const j = stack.pop() as number;
      const [x, y] = [j % width, Math.floor(j / width)];
      [x0, y0, x1, y1, area] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 1), Math.max(y1, y + 1), area + 1];
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const [nx, ny] = [x + dx, y + dy];
          const n = ny * width + nx;
          if (nx >= 0 && ny >= 0 && nx < width && ny < height && !seen[n] && data[n] < 128) {
            seen[n] = 1;
            stack.push(n);
          }
        }
    }
    out.push({ x: x0, y: y0, width: x1 - x0, height: y1 - y0, area });
  }
  return out;
}
