/**
 * The illumination-normalised Sauvola threshold and the levelled grey page: summed-area tables, noise level,
 * paper estimate per block, thresholds interpolated along each row.
 */
import { type BlockSums, blockSums, grayClosing } from './blocks.js';
import { pageBytes } from './buffers.js';
import type { GrayImage } from './gray.js';
import { kernelsWithRoom } from './kernels.js';

/** Summed-area table of a `width`×`height` grid, (width+1)×(height+1) with a zero first row and column. */
export function integralOf(values: ArrayLike<number>, width: number, height: number): Float64Array {
  const stride = width + 1;
  const out = new Float64Array(stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let run = 0;
    for (let x = 0; x < width; x++) {
      run += values[y * width + x];
      out[(y + 1) * stride + x + 1] = out[y * stride + x + 1] + run;
    }
  }
  return out;
}

/** Sum of the grid cells in [x0, x1) × [y0, y1) from its summed-area table. */
export function windowSum(integral: Float64Array, width: number, x0: number, y0: number, x1: number, y1: number): number {
  const s = width + 1;
  return integral[y1 * s + x1] - integral[y0 * s + x1] - integral[y1 * s + x0] + integral[y0 * s + x0];
}

/**
 * Standard deviation of the sensor noise, from the median absolute difference of horizontal neighbours
 * (edges are rare, so the median sees paper and ink interiors). For Gaussian noise median|dx| ≈ 0.954 σ.
 */
export function noiseLevel(page: GrayImage): number {
  const { width, height, data } = page;
  const hist = new Uint32Array(256);
  let n = 0;
  const step = Math.max(1, Math.floor(height / 256));
  for (let y = 0; y < height; y += step) {
    const row = y * width;
    for (let x = 1; x < width; x++) {
      hist[Math.abs(data[row + x] - data[row + x - 1])]++;
      n++;
    }
  }
  if (n === 0) return 0;
  let seen = 0;
  for (let d = 0; d < 256; d++) {
    seen += hist[d];
    if (seen * 2 >= n) return d / 0.954;
  }
  return 0;
}

export interface SauvolaParams {
  /** Side of the square window the local mean and deviation are taken over, in pixels. */
  windowPx: number;
  /** Side of the window that finds the paper under the ink (grey closing); wider than any glyph. */
  backgroundPx: number;
  /** Sauvola's k: how far below the local mean ink must be where there is little contrast. */
  k: number;
  /** Sauvola's dynamic range R, on the paper-normalised scale where paper is 255. */
  range?: number;
  /** Ink must be at least this many grey levels below the paper; default 4× the noise, at least 8. */
  minContrast?: number;
  /** Ink must be at least this fraction darker than the paper. */
  minRelativeContrast?: number;
}

/**
 * Sauvola binarisation made robust to uneven light. The paper brightness P is found by a grey closing on a grid
 * of small blocks, and the statistics are taken on the page divided by P, where gradients and soft shadows are
 * gone: T = P/255 · m(1 + k(s/R − 1)) with m, s over the window of the normalised page. On top, ink must be
 * darker than P by a contrast floor, so an empty window (s ≈ noise) stays white instead of turning to speckle.
 * The threshold is computed per block (1/24 of the window) and interpolated bilinearly: two passes over the
 * pixels in all. Returns 0 for ink, 255 for paper.
 */
export function sauvolaBinarize(page: GrayImage, params: SauvolaParams): GrayImage {
  const { windowPx, k } = params;
  const range = params.range ?? 128;
  const minContrast = params.minContrast ?? Math.max(8, 4 * noiseLevel(page));
  const keepBelow = 1 - (params.minRelativeContrast ?? 0.1);

  const { blocks, paper } = paperOfBlocks(page, params);
  const { cols, rows, sum, sumSq, count, size: f } = blocks;
  const n = cols * rows;

  // Statistics of the page divided by its paper: inside a block the paper is taken as constant.
  const normSum = new Float64Array(n);
  const normSq = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const gain = 255 / Math.max(4, paper[i]);
    normSum[i] = sum[i] * gain;
    normSq[i] = sumSq[i] * gain * gain;
  }
  const iSum = integralOf(normSum, cols, rows);
  const iSq = integralOf(normSq, cols, rows);
  const iCount = integralOf(count, cols, rows);

  const r = Math.max(1, Math.round((windowPx / f - 1) / 2));
  const threshold = new Float32Array(n);
  for (let by = 0; by < rows; by++) {
    const y0 = Math.max(0, by - r);
    const y1 = Math.min(rows, by + r + 1);
    for (let bx = 0; bx < cols; bx++) {
      const x0 = Math.max(0, bx - r);
      const x1 = Math.min(cols, bx + r + 1);
      const c = windowSum(iCount, cols, x0, y0, x1, y1);
      const m = windowSum(iSum, cols, x0, y0, x1, y1) / c;
      const variance = windowSum(iSq, cols, x0, y0, x1, y1) / c - m * m;
      const s = Math.sqrt(Math.max(0, variance));
      const o = by * cols + bx;
      const p = Math.max(4, paper[o]);
      const sauvola = (m * (1 + k * (s / range - 1)) * p) / 255;
      threshold[o] = Math.min(sauvola, p * keepBelow, p - minContrast);
    }
  }
  return rowByRow(page, threshold, cols, rows, f, 'thresholdRow');
}

/**
 * The paper's brightness under the page, per block of 1/24 of the window: a grey closing of the block means over
 * `backgroundPx`, which takes the ink away and keeps the light's gradients and soft shadows.
 */
function paperOfBlocks(page: GrayImage, params: Pick<SauvolaParams, 'windowPx' | 'backgroundPx'>): { blocks: BlockSums; paper: Float32Array } {
  const f = Math.max(1, Math.round(params.windowPx / 24));
  const blocks = blockSums(page, f);
  const { cols, rows, sum, count } = blocks;
  const mean = new Float32Array(cols * rows);
  for (let i = 0; i < mean.length; i++) mean[i] = sum[i] / count[i];
  return { blocks, paper: grayClosing(mean, cols, rows, Math.max(1, Math.round((params.backgroundPx / f - 1) / 2))) };
}

/**
 * The page divided by its paper brightness (the paper as `sauvolaBinarize` finds it, interpolated between blocks):
 * paper becomes white (255) everywhere and the ink keeps its darkness relative to the paper around it, so uneven
 * light and gutter shadows are gone while every grey of the strokes stays. What OCR reads best on camera pages.
 */
export function levelBackground(page: GrayImage, params: Pick<SauvolaParams, 'windowPx' | 'backgroundPx'>): GrayImage {
  const { blocks, paper } = paperOfBlocks(page, params);
  const gain = new Float32Array(paper.length);
  for (let i = 0; i < paper.length; i++) gain[i] = 255 / Math.max(4, paper[i]);
  return rowByRow(page, gain, blocks.cols, blocks.rows, blocks.size, 'levelRow');
}

/** Row `y` of block values (one per `f`×`f` block) interpolated bilinearly between block-centre rows, into `line`. */
function blockRow(values: ArrayLike<number>, cols: number, rows: number, f: number, y: number, line: Float64Array): void {
  // Block i's centre is at pixel i·f + (f − 1)/2.
  const half = (f - 1) / 2;
  const fy = Math.min(rows - 1, Math.max(0, (y - half) / f));
  const j0 = Math.min(Math.max(0, rows - 2), Math.floor(fy));
  const j1 = Math.min(rows - 1, j0 + 1);
  const wy = fy - j0;
  for (let bx = 0; bx < cols; bx++) {
    const a = values[j0 * cols + bx];
    line[bx] = a + (values[j1 * cols + bx] - a) * wy;
  }
}

/**
 * Each row of the page with the block values (one per `f`×`f` block) interpolated bilinearly between block centres:
 * down the rows here (`blockRow`), then along the row in WebAssembly (`kernels.wat`), where each span between two
 * centres starts at its value and grows by its step per pixel (flat left of the first centre and right of the last),
 * the running sum rounded to single precision as it is stored; `thresholdRow` compares each pixel with it (0 below,
 * 255 at or above), `levelRow` multiplies each pixel by it. The page is worked in place in the kernels' memory.
 */
function rowByRow(page: GrayImage, values: Float32Array, cols: number, rows: number, f: number, kernel: 'thresholdRow' | 'levelRow'): GrayImage {
  const { width, height, data } = page;
  const size = width * height;
  const { kernels, at, buffer } = kernelsWithRoom(size, 8 * cols, 4 * width);
  const [pixels, lineAt, scratch] = at;
  new Uint8Array(buffer, pixels, size).set(data.subarray(0, size));
  const line = new Float64Array(buffer, lineAt, cols);
  const run = kernels[kernel];
  for (let y = 0; y < height; y++) {
    blockRow(values, cols, rows, f, y, line);
    run(pixels + y * width, pixels + y * width, width, lineAt, cols, f, scratch);
  }
  const out = pageBytes(size);
  out.set(new Uint8Array(buffer, pixels, size));
  return { width, height, data: out };
}
