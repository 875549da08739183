/**
 * Blurs and sharpening: box-filter Gaussians, the unsharp mask, the edge-blur measure and Richardson–Lucy
 * deconvolution. Pure functions over typed arrays; nothing allocates per pixel.
 */
import { pageBytes } from './buffers.js';
import { type GrayImage, sharpFromGray } from './gray.js';
import { noiseLevel } from './threshold.js';
import { kernelsWithRoom } from './kernels.js';

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
 * `unsharpMask` with libvips' integer Gaussian for the blur (native, vectorised: 17 ms on a 4-megapixel page where the
 * three box blurs each way take 85) and the mix with the page in one pass here. Its mask is rounded to integers and
 * at some widths no longer sums to one (flat paper shifts by up to 4 grey levels); at those widths the box Gaussian
 * is used instead. σ = 1.5 px, the threshold's sharpening at 300 dpi, is exact. The blur differs from the box
 * Gaussian's by 0.3 grey levels on average (a true Gaussian rather than three boxes, rounded once).
 */
export async function unsharpMaskNative(page: GrayImage, sigma: number, amount: number): Promise<GrayImage> {
  const { width, height, data } = page;
  if (!(sigma > 0) || width < 3 || height < 3 || !(await keepsFlat(sigma))) return unsharpMask(page, sigma, amount);
  // `toColourspace('b-w')` keeps libvips in one band where `extractChannel` had it make three and drop two.
  const blurred = await sharpFromGray(page).blur({ sigma, precision: 'integer' }).toColourspace('b-w').raw().toBuffer();
  const mix = unsharpTable(amount);
  const size = width * height;
  const { kernels, at, buffer } = kernelsWithRoom(size, size, mix.length);
  const [src, blur, table] = at;
  new Uint8Array(buffer, src, size).set(data.subarray(0, size));
  new Uint8Array(buffer, blur, size).set(blurred.subarray(0, size));
  new Uint8Array(buffer, table, mix.length).set(mix);
  kernels.mix(src, blur, table, size);
  const out = pageBytes(size);
  out.set(new Uint8Array(buffer, blur, size));
  return { width, height, data: out };
}

/**
 * page + amount · (page − blur), rounded and clipped to a grey level, for every pair of grey levels (page · 256 +
 * blur): a table lookup per pixel instead of the arithmetic and two clips, the same values to the last bit.
 */
const unsharpTables = new Map<number, Uint8Array>();
function unsharpTable(amount: number): Uint8Array {
  let table = unsharpTables.get(amount);
  if (!table) {
    table = new Uint8Array(65536);
    for (let p = 0; p < 256; p++) {
      for (let b = 0; b < 256; b++) {
        const v = p + amount * (p - b);
        table[(p << 8) | b] = v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0;
      }
    }
    if (unsharpTables.size > 16) unsharpTables.clear();
    unsharpTables.set(amount, table);
  }
  return table;
}

/** Whether libvips' integer Gaussian of width `sigma` leaves every flat grey as it is, measured once per width. */
const flatWidths = new Map<number, Promise<boolean>>();
function keepsFlat(sigma: number): Promise<boolean> {
  let known = flatWidths.get(sigma);
  if (!known) {
    known = (async () => {
      const side = 8 * Math.ceil(sigma) + 9;
      for (const level of [1, 64, 128, 200, 237, 254]) {
        const flat = { width: side, height: side, data: new Uint8Array(side * side).fill(level) };
        const out = await sharpFromGray(flat).blur({ sigma, precision: 'integer' }).extractChannel(0).raw().toBuffer();
        if (out.some((v) => v !== level)) return false;
      }
      return true;
    })();
    flatWidths.set(sigma, known);
  }
  return known;
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
function greyBoxColumnsSharpen(
  src: Uint8Array,
  dst: Uint8Array,
  width: number,
  height: number,
  r: number,
  sums: Int32Array,
  page: Uint8Array,
  amount: number,
): void {
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
  // Slopes in quarter grey levels per pixel, binned from the squared gradient by table: no square root per pixel.
  const binOf = slopeBins();
  const bins = EDGE_BINS;
  const hist = new Uint32Array(bins);
  // Pixels that may be steep: the threshold below is never under `MIN_STEEP` grey levels a pixel.
  let candidates: Int32Array = new Int32Array(16384);
  let found = 0;
  for (let y = reach; y < height - reach; y++) {
    for (let x = reach, i = y * width + reach; x < width - reach; x++, i++) {
      const gx = data[i + 1] - data[i - 1];
      const gy = data[i + width] - data[i - width];
      const squared = gx * gx + gy * gy;
      hist[binOf[squared]]++;
      if (squared < MIN_STEEP_SQUARED) continue;
      if (found === candidates.length) candidates = grown(candidates);
      candidates[found++] = i;
    }
  }
  const counted = (width - 2 * reach) * (height - 2 * reach);
  let seen = 0;
  let bin = bins - 1;
  for (; bin > 0 && seen + hist[bin] <= counted * 0.01; bin--) seen += hist[bin];
  // An edge must stand well clear of the sensor noise, whatever the percentile says on a near-empty page.
  const steep = Math.max(bin / 4, 2 * Math.max(MIN_STEEP / 2, noiseLevel(page)));
  // The least squared gradient whose slope (as a 32-bit float, as it was once stored) reaches `steep`: slopes rise with it.
  let steepSquared = 0;
  for (let above = MAX_SQUARED_GRADIENT + 1; steepSquared < above;) {
    const mid = (steepSquared + above) >> 1;
    if (slopeOf(mid) < steep) steepSquared = mid + 1;
    else above = mid;
  }
  // Sorted as numbers by the typed array (a comparator per pair cost as much as the pass that finds them).
  const ratios = new Float64Array(found);
  let steepCount = 0;
  const norm = 1 / Math.sqrt(2 * Math.PI);
  for (let c = 0; c < found; c++) {
    const i = candidates[c];
    const gx = data[i + 1] - data[i - 1];
    const gy = data[i + width] - data[i - width];
    const squared = gx * gx + gy * gy;
    if (squared < steepSquared) continue;
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
    ratios[steepCount++] = ((hi - lo) * norm) / slopeOf(squared);
  }
  if (steepCount < 100) return null;
  const sorted = ratios.subarray(0, steepCount).sort();
  return sorted[steepCount >> 1];
}

/** An edge is at least this steep (grey levels a pixel), whatever the noise: 256 squared, exactly 8 once rooted and halved. */
const MIN_STEEP = 8;
const MIN_STEEP_SQUARED = 4 * MIN_STEEP * MIN_STEEP;

/** The same indices in an array twice as long. */
function grown(indices: Int32Array): Int32Array {
  const more = new Int32Array(2 * indices.length);
  more.set(indices);
  return more;
}

/** Central differences never exceed 255·√2/2 grey levels a pixel: bins of a quarter level, and the largest squared gradient. */
const EDGE_BINS = 4 * 181;
const MAX_SQUARED_GRADIENT = 2 * 255 * 255;

/** The slope of a central-difference gradient whose squared length is `squared`, rounded to a 32-bit float. */
function slopeOf(squared: number): number {
  return Math.fround(0.5 * Math.sqrt(squared));
}

/** The histogram bin (quarter grey levels) of every squared gradient, made once. */
let slopeBinTable: Uint16Array | undefined;
function slopeBins(): Uint16Array {
  if (!slopeBinTable) {
    slopeBinTable = new Uint16Array(MAX_SQUARED_GRADIENT + 1);
    for (let s = 0; s <= MAX_SQUARED_GRADIENT; s++) slopeBinTable[s] = Math.min(EDGE_BINS - 1, Math.floor(4 * (0.5 * Math.sqrt(s))));
  }
  return slopeBinTable;
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
