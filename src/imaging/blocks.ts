/**
 * Block statistics and grey morphology on small grids: per-block sums of a page, averaging down, and the max, min
 * and closing filters the paper estimate is made with. Pure functions over typed arrays; nothing allocates per pixel.
 */
import type { GrayImage } from './gray.js';
import { kernelsWithRoom } from './kernels.js';

/** Sums over a grid of `size`×`size` pixel blocks (the last row/column of blocks may be smaller). */
export interface BlockSums {
  readonly cols: number;
  readonly rows: number;
  readonly size: number;
  /** Sum of grey values per block. */
  readonly sum: Float64Array;
  /** Sum of squared grey values per block. */
  readonly sumSq: Float64Array;
  /** Pixels per block. */
  readonly count: Float64Array;
}

/**
 * One pass over the page: per-block sums of grey and grey², enough to get exact window means and variances. Each band
 * of `size` rows is summed down its columns sixteen pixels at a time, then across each block, in WebAssembly
 * (`kernels.wat`): about 4× faster than summing each block in JavaScript registers, the same sums (integers).
 */
export function blockSums(page: GrayImage, size: number): BlockSums {
  const f = Math.max(1, Math.floor(size));
  const { width, height, data } = page;
  const cols = Math.ceil(width / f);
  const rows = Math.ceil(height / f);
  const n = cols * rows;
  const { kernels, at, buffer } = kernelsWithRoom(width * height, 4 * width, 4 * width, 8 * n, 8 * n, 8 * n);
  const [src, columns, columnsSq, sumAt, sumSqAt, countAt] = at;
  new Uint8Array(buffer, src, width * height).set(data.subarray(0, width * height));
  kernels.blockSums(src, width, height, f, columns, columnsSq, sumAt, sumSqAt, countAt);
  const sum = new Float64Array(buffer.slice(sumAt, sumAt + 8 * n));
  const sumSq = new Float64Array(buffer.slice(sumSqAt, sumSqAt + 8 * n));
  const count = new Float64Array(buffer.slice(countAt, countAt + 8 * n));
  return { cols, rows, size: f, sum, sumSq, count };
}

/** Downscale by an integer factor, each output pixel the mean of its block (partial edge blocks included). */
export function reduceByAverage(page: GrayImage, factor: number): GrayImage {
  const f = Math.max(1, Math.floor(factor));
  if (f === 1) return page;
  const { width, height, data } = page;
  const cols = Math.ceil(width / f);
  const rows = Math.ceil(height / f);
  const out = new Uint8Array(cols * rows);
  const colSum = new Int32Array(width);
  for (let by = 0; by < rows; by++) {
    colSum.fill(0);
    const y1 = Math.min(height, (by + 1) * f);
    for (let y = by * f; y < y1; y++) {
      const row = y * width;
      for (let x = 0; x < width; x++) colSum[x] += data[row + x];
    }
    const bh = y1 - by * f;
    for (let bx = 0, x = 0; bx < cols; bx++) {
      const x1 = Math.min(width, x + f);
      let s = 0;
      for (let n = x; n < x1; n++) s += colSum[n];
      out[by * cols + bx] = Math.round(s / (bh * (x1 - x)));
      x = x1;
    }
  }
  return { width: cols, height: rows, data: out };
}

/**
 * Running maximum of one line with a window of 2r+1 (van Herk / Gil–Werman: three comparisons per value,
 * whatever the window). `pad` must hold n + 2r values; `g` and `h` are scratch of the same length.
 */
function lineMax(
  src: Float32Array,
  srcOffset: number,
  srcStride: number,
  n: number,
  r: number,
  dst: Float32Array,
  pad: Float32Array,
  g: Float32Array,
  h: Float32Array,
): void {
  const w = 2 * r + 1;
  const len = n + 2 * r;
  pad.fill(-Infinity, 0, r);
  for (let i = 0; i < n; i++) pad[r + i] = src[srcOffset + i * srcStride];
  pad.fill(-Infinity, r + n, len);
  // Per block of w values: g the running maximum from the block's start, h from its end.
  for (let start = 0; start < len; start += w) {
    const end = Math.min(len, start + w);
    let m = (g[start] = pad[start]);
    for (let i = start + 1; i < end; i++) g[i] = m = pad[i] > m ? pad[i] : m;
    m = h[end - 1] = pad[end - 1];
    for (let i = end - 2; i >= start; i--) h[i] = m = pad[i] > m ? pad[i] : m;
  }
  for (let i = 0; i < n; i++) {
    const a = h[i];
    const b = g[i + 2 * r];
    dst[srcOffset + i * srcStride] = a > b ? a : b;
  }
}

/** Square running maximum (grey dilation) of a `width`×`height` grid, window (2·radius+1)², clipped at the edges. */
export function maxFilter(values: Float32Array, width: number, height: number, radius: number): Float32Array {
  const r = Math.max(0, Math.floor(radius));
  const out = Float32Array.from(values);
  if (r === 0) return out;
  const pad = new Float32Array(width + 2 * r);
  const g = new Float32Array(width + 2 * r);
  const h = new Float32Array(width + 2 * r);
  for (let y = 0; y < height; y++) lineMax(out, y * width, 1, width, r, out, pad, g, h);
  columnsMax(out, width, height, r);
  return out;
}

/**
 * The running maximum of `lineMax` down every column at once, in place: the same blocks and comparisons, worked a
 * whole row at a time so memory is read in order (column by column, each value was a cache miss: twice as slow).
 */
function columnsMax(data: Float32Array, width: number, height: number, r: number): void {
  const w = 2 * r + 1;
  const len = height + 2 * r;
  const g = new Float32Array(len * width);
  const h = new Float32Array(len * width);
  for (let start = 0; start < len; start += w) {
    const end = Math.min(len, start + w);
    paddedRow(data, width, height, r, start, g);
    for (let p = start + 1; p < end; p++) {
      paddedRow(data, width, height, r, p, g);
      for (let o = p * width, x = 0; x < width; x++) if (g[o - width + x] > g[o + x]) g[o + x] = g[o - width + x];
    }
    paddedRow(data, width, height, r, end - 1, h);
    for (let p = end - 2; p >= start; p--) {
      paddedRow(data, width, height, r, p, h);
      for (let o = p * width, x = 0; x < width; x++) if (h[o + width + x] > h[o + x]) h[o + x] = h[o + width + x];
    }
  }
  for (let y = 0; y < height; y++) {
    const o = y * width;
    const below = (y + 2 * r) * width;
    for (let x = 0; x < width; x++) {
      const a = h[o + x];
      const b = g[below + x];
      data[o + x] = a > b ? a : b;
    }
  }
}

/** Row `p` of the grid padded with `r` rows of -Infinity above and below, copied into row `p` of `target`. */
function paddedRow(data: Float32Array, width: number, height: number, r: number, p: number, target: Float32Array): void {
  const o = p * width;
  if (p < r || p >= r + height) target.fill(-Infinity, o, o + width);
  else target.set(data.subarray((p - r) * width, (p - r + 1) * width), o);
}

/** Square running minimum (grey erosion), the mirror of `maxFilter`. */
export function minFilter(values: Float32Array, width: number, height: number, radius: number): Float32Array {
  const negated = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) negated[i] = -values[i];
  const out = maxFilter(negated, width, height, radius);
  for (let i = 0; i < out.length; i++) out[i] = -out[i];
  return out;
}

/**
 * Grey closing: removes dark features narrower than the window and keeps everything broader — on a page,
 * ink goes and the paper's lighting (gradients, soft shadows, which are broad) stays. The grid is first
 * extended by repeating its edges, so that a ramp running into the border (a gutter shadow) is kept exactly;
 * with clipped windows the closing would carry the brighter paper from inside out to the border.
 */
export function grayClosing(values: Float32Array, width: number, height: number, radius: number): Float32Array {
  const r = Math.max(0, Math.floor(radius));
  const w = width + 2 * r;
  const h = height + 2 * r;
  const padded = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const src = Math.min(height - 1, Math.max(0, y - r)) * width;
    for (let x = 0; x < w; x++) padded[y * w + x] = values[src + Math.min(width - 1, Math.max(0, x - r))];
  }
  const closed = minFilter(maxFilter(padded, w, h, r), w, h, r);
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) out.set(closed.subarray((y + r) * w + r, (y + r) * w + r + width), y * width);
  return out;
}
