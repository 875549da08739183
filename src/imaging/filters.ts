/**
 * Pixel primitives for the clean-up steps (deskew, binarisation, resolution, crop): block statistics, grey
 * morphology on small grids, an illumination-normalised Sauvola threshold, ink components of a bitonal page,
 * padding. Pure functions over typed arrays; nothing allocates per pixel.
 */
import type { Box, GrayImage } from './gray.js';

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

/** One pass over the page: per-block sums of grey and grey², enough to get exact window means and variances. */
export function blockSums(page: GrayImage, size: number): BlockSums {
  const f = Math.max(1, Math.floor(size));
  const { width, height, data } = page;
  const cols = Math.ceil(width / f);
  const rows = Math.ceil(height / f);
  const sum = new Float64Array(cols * rows);
  const sumSq = new Float64Array(cols * rows);
  const count = new Float64Array(cols * rows);
  // Sum down each pixel column over the block's rows first (sequential, cheap), then across the columns.
  // Int32 is exact: at most f·255² per column within one block row.
  const colSum = new Int32Array(width);
  const colSq = new Int32Array(width);
  for (let by = 0; by < rows; by++) {
    colSum.fill(0);
    colSq.fill(0);
    const y1 = Math.min(height, (by + 1) * f);
    for (let y = by * f; y < y1; y++) {
      const row = y * width;
      for (let x = 0; x < width; x++) {
        const v = data[row + x];
        colSum[x] += v;
        colSq[x] += v * v;
      }
    }
    const bh = y1 - by * f;
    for (let bx = 0, x = 0; bx < cols; bx++) {
      const x1 = Math.min(width, x + f);
      let s = 0;
      let q = 0;
      for (let n = x; n < x1; n++) {
        s += colSum[n];
        q += colSq[n];
      }
      const o = by * cols + bx;
      sum[o] = s;
      sumSq[o] = q;
      count[o] = bh * (x1 - x);
      x = x1;
    }
  }
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
function lineMax(src: Float32Array, srcOffset: number, srcStride: number, n: number, r: number, dst: Float32Array, pad: Float32Array, g: Float32Array, h: Float32Array): void {
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

/**
 * Radii of `passes` successive box filters whose combined variance is closest to sigma²: three boxes make a
 * Gaussian to within a few per cent in shape. Box widths are odd, so a blur never shifts the page; the spread
 * then comes in steps, coarse below 2 px (σ = 1 gets 1.15).
 */
export function boxRadiiForGaussian(sigma: number, passes = 3): number[] {
  // A box of width w = 2r+1 has variance (w² − 1)/12; take the two odd widths around the ideal one and mix them.
  const ideal = Math.sqrt((12 * sigma * sigma) / passes + 1);
  let lower = Math.floor(ideal);
  if (lower % 2 === 0) lower--;
  lower = Math.max(1, lower);
  const upper = lower + 2;
  const wide = Math.round((12 * sigma * sigma - passes * lower * lower + passes) / (4 * lower + 4));
  const radii: number[] = [];
  for (let i = 0; i < passes; i++) radii.push(((i < Math.max(0, Math.min(passes, wide)) ? upper : lower) - 1) / 2);
  return radii;
}

/** Pixels a box blur reads and writes: grey levels (rounded when written) or floats. */
type Pixels = Uint8Array | Float32Array;

/**
 * Box mean of radius r along each row, the edge pixels repeated beyond the border. `half` is added before a value is
 * stored: 0.5 rounds into grey levels (the store truncates), 0 keeps floats as they are.
 */
function boxRows(src: Pixels, dst: Pixels, width: number, height: number, r: number, half: number): void {
  const scale = 1 / (2 * r + 1);
  const last = width - 1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const first = src[row];
    const end = src[row + last];
    let sum = 0;
    for (let i = -r; i <= r; i++) sum += src[row + Math.min(last, Math.max(0, i))];
    // Three spans so the middle one, nearly all of the row, needs no clamping.
    const a = Math.min(width, r + 1);
    const b = Math.max(a, width - r - 1);
    let x = 0;
    for (; x < a; x++) {
      dst[row + x] = sum * scale + half;
      sum += src[row + Math.min(last, x + r + 1)] - first;
    }
    for (; x < b; x++) {
      dst[row + x] = sum * scale + half;
      sum += src[row + x + r + 1] - src[row + x - r];
    }
    for (; x < width; x++) {
      dst[row + x] = sum * scale + half;
      sum += end - src[row + Math.max(0, x - r)];
    }
  }
}

/** Box mean of radius r down each column, kept as running column sums so the page is read row by row. */
function boxColumns(src: Pixels, dst: Pixels, width: number, height: number, r: number, sums: Float64Array, half: number): void {
  const scale = 1 / (2 * r + 1);
  const last = height - 1;
  sums.fill(0);
  for (let i = -r; i <= r; i++) {
    const row = Math.min(last, Math.max(0, i)) * width;
    for (let x = 0; x < width; x++) sums[x] += src[row + x];
  }
  for (let y = 0; y < height; y++) {
    const out = y * width;
    const enter = Math.min(last, y + r + 1) * width;
    const leave = Math.max(0, y - r) * width;
    for (let x = 0; x < width; x++) {
      dst[out + x] = sums[x] * scale + half;
      sums[x] += src[enter + x] - src[leave + x];
    }
  }
}

/** Gaussian blur of standard deviation `sigma` pixels, as three box blurs each way: cost independent of sigma. */
export function gaussianBlur(page: GrayImage, sigma: number): GrayImage {
  const { width, height } = page;
  if (!(sigma > 0) || width === 0 || height === 0) return { width, height, data: Uint8Array.from(page.data) };
  return { width, height, data: greyBoxGaussian(page.data, width, height, sigma) };
}

/**
 * Unsharp mask: page + amount · (page − blurred page). Undoes part of a blur of about `sigma` pixels: an edge
 * keeps its middle where it was but gets steep again, and a thin stroke the blur left pale gets its depth back.
 */
export function unsharpMask(page: GrayImage, sigma: number, amount: number): GrayImage {
  const { width, height } = page;
  if (!(sigma > 0) || width === 0 || height === 0) return { width, height, data: Uint8Array.from(page.data) };
  return { width, height, data: greyBoxGaussian(page.data, width, height, sigma, amount) };
}

/**
 * The grey-level box Gaussian of `boxGaussian` (each pass rounded to grey levels, the same values to the last bit),
 * worked for speed: the row passes of a row run one after the other in two row-long scratch lines, and when
 * `sharpen` is given the last column pass writes page + sharpen · (page − blurred) instead of the blur (the unsharp
 * mask), so the page is read and written four times rather than seven.
 */
function greyBoxGaussian(src: Uint8Array, width: number, height: number, sigma: number, sharpen?: number): Uint8Array {
  const radii = boxRadiiForGaussian(sigma).filter((r) => r > 0);
  const n = width * height;
  const a = new Uint8Array(n);
  // No blur at all: the page itself, which an unsharp mask leaves as it is too.
  if (radii.length === 0) {
    a.set(src);
    return a;
  }
  const lines = [new Uint8Array(width), new Uint8Array(width)];
  for (let y = 0, row = 0; y < height; y++, row += width) {
    let from: Uint8Array = src;
    let fromOffset = row;
    for (let i = 0; i < radii.length; i++) {
      const last = i === radii.length - 1;
      const to = last ? a : lines[i % 2];
      greyBoxLine(from, fromOffset, to, last ? row : 0, width, radii[i]);
      from = to;
      fromOffset = 0;
    }
  }
  const b = new Uint8Array(n);
  const sums = new Int32Array(width);
  let from = a;
  let to = b;
  for (let i = 0; i < radii.length; i++) {
    const last = i === radii.length - 1;
    if (last && sharpen !== undefined) greyBoxColumnsSharpen(from, to, width, height, radii[i], sums, src, sharpen);
    else greyBoxColumns(from, to, width, height, radii[i], sums);
    [from, to] = [to, from];
  }
  return from;
}

/** One row of grey levels, box mean of radius r (edge pixels repeated), rounded as `boxRows` rounds. */
function greyBoxLine(src: Uint8Array, so: number, dst: Uint8Array, dO: number, width: number, r: number): void {
  const scale = 1 / (2 * r + 1);
  const last = width - 1;
  const first = src[so];
  const end = src[so + last];
  let sum = 0;
  for (let i = -r; i <= r; i++) sum += src[so + Math.min(last, Math.max(0, i))];
  const a = Math.min(width, r + 1);
  const b = Math.max(a, width - r - 1);
  let x = 0;
  for (; x < a; x++) {
    dst[dO + x] = (sum * scale + 0.5) | 0;
    sum += src[so + Math.min(last, x + r + 1)] - first;
  }
  for (; x < b; x++) {
    dst[dO + x] = (sum * scale + 0.5) | 0;
    sum += src[so + x + r + 1] - src[so + x - r];
  }
  for (; x < width; x++) {
    dst[dO + x] = (sum * scale + 0.5) | 0;
    sum += end - src[so + Math.max(0, x - r)];
  }
}

/** The first 2r+1 rows' column sums (edge rows repeated), ready for row 0 of a column box pass. */
function startColumnSums(src: Uint8Array, width: number, height: number, r: number, sums: Int32Array): void {
  sums.fill(0);
  for (let i = -r; i <= r; i++) {
    const row = Math.min(height - 1, Math.max(0, i)) * width;
    for (let x = 0; x < width; x++) sums[x] += src[row + x];
  }
}

/** `boxColumns` for grey levels, with exact integer column sums. */
function greyBoxColumns(src: Uint8Array, dst: Uint8Array, width: number, height: number, r: number, sums: Int32Array): void {
  const scale = 1 / (2 * r + 1);
  const last = height - 1;
  startColumnSums(src, width, height, r, sums);
  for (let y = 0; y < height; y++) {
    const out = y * width;
    const enter = Math.min(last, y + r + 1) * width;
    const leave = Math.max(0, y - r) * width;
    for (let x = 0; x < width; x++) {
      const s = sums[x];
      dst[out + x] = (s * scale + 0.5) | 0;
      sums[x] = s + src[enter + x] - src[leave + x];
    }
  }
}

/** The last column pass of an unsharp mask: each blurred value is mixed with the `page` pixel as it is made. */
function greyBoxColumnsSharpen(src: Uint8Array, dst: Uint8Array, width: number, height: number, r: number, sums: Int32Array, page: Uint8Array, amount: number): void {
  const scale = 1 / (2 * r + 1);
  const last = height - 1;
  startColumnSums(src, width, height, r, sums);
  for (let y = 0; y < height; y++) {
    const out = y * width;
    const enter = Math.min(last, y + r + 1) * width;
    const leave = Math.max(0, y - r) * width;
    for (let x = 0; x < width; x++) {
      const s = sums[x];
      const blurred = (s * scale + 0.5) | 0;
      sums[x] = s + src[enter + x] - src[leave + x];
      const p = page[out + x];
      const v = p + amount * (p - blurred);
      dst[out + x] = v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0;
    }
  }
}

/**
 * Three box blurs each way, a Gaussian of `sigma` to within a few percent, worked in the two `buffers` (of the
 * source's kind: grey levels are rounded, floats kept); the result is one of them. The source is left as it is.
 */
function boxGaussian<T extends Pixels>(src: T, width: number, height: number, sigma: number, buffers: [T, T]): T {
  // A box of radius 0 would only copy the page.
  const radii = boxRadiiForGaussian(sigma).filter((r) => r > 0);
  const half = src instanceof Uint8Array ? 0.5 : 0;
  // Each pass writes the buffer the pass before last wrote; the first pass reads the source itself.
  if (radii.length === 0) {
    buffers[0].set(src);
    return buffers[0];
  }
  const sums = new Float64Array(width);
  let a: T = src;
  let pass = 0;
  for (const r of radii) {
    const b = buffers[pass++ % 2];
    boxRows(a, b, width, height, r, half);
    a = b;
  }
  for (const r of radii) {
    const b = buffers[pass++ % 2];
    boxColumns(a, b, width, height, r, sums, half);
    a = b;
  }
  return a;
}

/**
 * How soft the page's sharpest edges are, as the standard deviation in pixels of a Gaussian blur that would
 * explain them, or null when the page has too few edges to tell. A blurred step of contrast C has a steepest
 * slope of C / (σ·√(2π)); σ is taken as the median of contrast / (√(2π)·slope) over the 1 % steepest pixels,
 * the contrast being the grey range of a 9×9 window around each. Central differences read a perfect step as
 * 0.8 px and blur adds to that in quadrature; the crisp webcam frames we measured read 0.77–0.83, the soft
 * synthetic ones of `examples/` 0.97–1.02.
 */
export function edgeBlur(page: GrayImage): number | null {
  const { width, height, data } = page;
  if (width < 12 || height < 12) return null;
  const reach = 4;
  // Slopes in quarter grey levels per pixel; central differences never exceed 255·√2/2.
  const bins = 4 * 181;
  const hist = new Uint32Array(bins);
  const slope = new Float32Array(width * height);
  for (let y = reach; y < height - reach; y++) {
    for (let x = reach, i = y * width + reach; x < width - reach; x++, i++) {
      const gx = data[i + 1] - data[i - 1];
      const gy = data[i + width] - data[i - width];
      const g = 0.5 * Math.sqrt(gx * gx + gy * gy);
      slope[i] = g;
      hist[Math.min(bins - 1, Math.floor(4 * g))]++;
    }
  }
  const counted = (width - 2 * reach) * (height - 2 * reach);
  let seen = 0;
  let bin = bins - 1;
  for (; bin > 0 && seen + hist[bin] <= counted * 0.01; bin--) seen += hist[bin];
  // An edge must stand well clear of the sensor noise, whatever the percentile says on a near-empty page.
  const steep = Math.max(bin / 4, 2 * Math.max(4, noiseLevel(page)));
  const ratios: number[] = [];
  const norm = 1 / Math.sqrt(2 * Math.PI);
  for (let y = reach; y < height - reach; y++) {
    for (let x = reach, i = y * width + reach; x < width - reach; x++, i++) {
      if (slope[i] < steep) continue;
      let lo = 255;
      let hi = 0;
      for (let dy = -reach; dy <= reach; dy++) {
        const row = i + dy * width;
        for (let dx = -reach; dx <= reach; dx++) {
          const v = data[row + dx];
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
      }
      ratios.push(((hi - lo) * norm) / slope[i]);
    }
  }
  if (ratios.length < 100) return null;
  ratios.sort((a, b) => a - b);
  return ratios[ratios.length >> 1];
}

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
      const sauvola = ((m * (1 + k * (s / range - 1))) * p) / 255;
      threshold[o] = Math.min(sauvola, p * keepBelow, p - minContrast);
    }
  }
  return applyBlockThreshold(page, threshold, cols, rows, f);
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
  const { width, height, data } = page;
  const out = new Uint8Array(width * height);
  const line = new Float64Array(blocks.cols);
  for (let y = 0; y < height; y++) {
    blockRow(gain, blocks.cols, blocks.rows, blocks.size, y, line);
    const row = y * width;
    eachSpan(line, blocks.size, width, (x0, x1, start, step) => {
      let t = start;
      for (let x = x0; x < x1; x++) {
        const v = data[row + x] * Math.fround(t) + 0.5;
        out[row + x] = v >= 255 ? 255 : v | 0;
        t += step;
      }
    });
  }
  return { width, height, data: out };
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
 * A row of block values (`line`, one per `f` pixels) interpolated linearly between block centres over `width` pixels,
 * handed out as spans: `span(x0, x1, start, step)` covers pixels x0…x1−1, whose value is `start` at x0 and grows by
 * `step` per pixel (flat left of the first centre and right of the last). The value of a pixel is the running sum
 * rounded to single precision, as the per-pixel rows these spans replace stored it.
 */
function eachSpan(line: Float64Array, f: number, width: number, span: (x0: number, x1: number, start: number, step: number) => void): void {
  const cols = line.length;
  const half = (f - 1) / 2;
  const firstCentre = Math.min(width, Math.ceil(half));
  span(0, firstCentre, line[0], 0);
  let x = firstCentre;
  for (let i = 0; i < cols - 1 && x < width; i++) {
    const end = Math.min(width, Math.ceil((i + 1) * f + half));
    const step = (line[i + 1] - line[i]) / f;
    span(x, end, line[i] + step * (x - (i * f + half)), step);
    x = Math.max(x, end);
  }
  span(x, width, line[cols - 1], 0);
}

/** Compare every pixel with the block thresholds interpolated bilinearly between block centres. */
function applyBlockThreshold(page: GrayImage, threshold: Float32Array, cols: number, rows: number, f: number): GrayImage {
  const { width, height, data } = page;
  const out = new Uint8Array(width * height);
  const line = new Float64Array(cols);
  for (let y = 0; y < height; y++) {
    blockRow(threshold, cols, rows, f, y, line);
    const row = y * width;
    eachSpan(line, f, width, (x0, x1, start, step) => {
      let t = start;
      for (let x = x0; x < x1; x++) {
        out[row + x] = data[row + x] < Math.fround(t) ? 0 : 255;
        t += step;
      }
    });
  }
  return { width, height, data: out };
}

/** A connected group of ink pixels (8-connected) of a bitonal page. */
export interface InkComponent extends Box {
  /** Number of ink pixels. */
  area: number;
}

/**
 * Connected ink components (pixels < 128) with their bounding boxes, 8-connected. Works on runs of ink per row
 * with a union–find over runs, so memory is proportional to the ink, not to the page.
 */
export function inkComponents(page: GrayImage): InkComponent[] {
  const { width, height, data } = page;
  let starts: Int32Array = new Int32Array(1024);
  let ends: Int32Array = new Int32Array(1024);
  let runRow: Int32Array = new Int32Array(1024);
  let parent: Int32Array = new Int32Array(1024);
  let runs = 0;
  let prevFirst = 0;
  let prevLast = 0;
  const find = (a: number): number => {
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]];
      a = parent[a];
    }
    return a;
  };
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const first = runs;
    let x = 0;
    while (x < width) {
      if (data[row + x] >= 128) {
        x++;
        continue;
      }
      const start = x;
      while (x < width && data[row + x] < 128) x++;
      if (runs === starts.length) {
        const grow = (a: Int32Array): Int32Array => {
          const b = new Int32Array(a.length * 2);
          b.set(a);
          return b;
        };
        starts = grow(starts);
        ends = grow(ends);
        runRow = grow(runRow);
        parent = grow(parent);
      }
      starts[runs] = start;
      ends[runs] = x; // exclusive
      runRow[runs] = y;
      parent[runs] = runs;
      // 8-connectivity: a run touches a run of the previous row if they overlap after widening by one pixel.
      for (let p = prevFirst; p < prevLast; p++) {
        if (ends[p] < start) continue;
        if (starts[p] > x) break;
        const a = find(p);
        const b = find(runs);
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
      runs++;
    }
    prevFirst = first;
    prevLast = runs;
  }
  const index = new Int32Array(runs).fill(-1);
  const out: InkComponent[] = [];
  for (let i = 0; i < runs; i++) {
    const root = find(i);
    let c = index[root];
    if (c < 0) {
      c = out.length;
      index[root] = c;
      out.push({ x: starts[i], y: runRow[i], width: 0, height: 0, area: 0 });
    }
    const comp = out[c];
    const x0 = Math.min(comp.x, starts[i]);
    const x1 = Math.max(comp.x + comp.width, ends[i]);
    const y1 = Math.max(comp.y + comp.height, runRow[i] + 1);
    comp.x = x0;
    comp.width = x1 - x0;
    comp.height = y1 - comp.y;
    comp.area += ends[i] - starts[i];
  }
  return out;
}

/** True when every pixel is pure black or pure white. */
export function isBitonal(page: GrayImage): boolean {
  const d = page.data;
  for (let i = 0; i < d.length; i++) {
    const v = d[i];
    if (v !== 0 && v !== 255) return false;
  }
  return true;
}

/** Widen the page to `width` by adding `fill` columns on the right (returns the page itself if wide enough). */
export function padRight(page: GrayImage, width: number, fill = 255): GrayImage {
  if (width <= page.width) return page;
  const out = new Uint8Array(width * page.height).fill(fill);
  for (let y = 0; y < page.height; y++) out.set(page.data.subarray(y * page.width, (y + 1) * page.width), y * width);
  return { width, height: page.height, data: out };
}

/** The page set on a `width`×`height` canvas of `fill` with its top-left corner at (x, y) (clipped to the canvas). */
export function placeOnCanvas(page: GrayImage, width: number, height: number, x: number, y: number, fill = 255): GrayImage {
  const out = new Uint8Array(width * height).fill(fill);
  const x0 = Math.max(0, x);
  const x1 = Math.min(width, x + page.width);
  for (let row = Math.max(0, y); row < Math.min(height, y + page.height); row++) {
    const from = (row - y) * page.width + (x0 - x);
    out.set(page.data.subarray(from, from + (x1 - x0)), row * width + x0);
  }
  return { width, height, data: out };
}

/**
 * Richardson–Lucy deconvolution of a Gaussian blur of `sigma` pixels, `iterations` rounds: the page that, blurred so,
 * gives the page seen, estimated multiplicatively so that it stays positive. Worked on the ink (256 − grey), where
 * paper is near zero and text is the signal. Each round is two box-Gaussian blurs of the page in floats.
 */
export function deconvolve(page: GrayImage, sigma: number, iterations: number): GrayImage {
  const { width, height, data } = page;
  const n = data.length;
  const seen = new Float32Array(n);
  for (let i = 0; i < n; i++) seen[i] = 256 - data[i];
  const estimate = Float32Array.from(seen);
  const ratio = new Float32Array(n);
  const buffers: [Float32Array, Float32Array] = [new Float32Array(n), new Float32Array(n)];
  for (let k = 0; k < iterations; k++) {
    const blurred = boxGaussian(estimate, width, height, sigma, buffers);
    for (let i = 0; i < n; i++) ratio[i] = seen[i] / (blurred[i] > 1e-3 ? blurred[i] : 1e-3);
    // The blurred estimate is read: its buffer may take the next blur.
    const back = boxGaussian(ratio, width, height, sigma, buffers);
    for (let i = 0; i < n; i++) estimate[i] *= back[i];
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = 256 - estimate[i];
    out[i] = v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0;
  }
  return { width, height, data: out };
}
