/**
 * Bicubic enlargement of a grey page, written by hand: libvips enlarges with its affine interpolator, which makes
 * every output pixel from its own 4×4 window (16 taps, one pixel at a time: 72 ms for a camera page enlarged 2.63× to
 * 300 dpi, in one thread). The interpolation is separable, so here a row pass and a column pass do the same sums,
 * each source row enlarged once, in WebAssembly: 72 → 8 ms a camera page (40 in JavaScript), and the same bytes.
 */
import { pageBytes } from './buffers.js';
import type { GrayImage } from './gray.js';
import { kernelsWithRoom } from './kernels.js';

/** Sub-pixel positions are rounded to 1/64 of a pixel, as libvips does (`VIPS_TRANSFORM_SCALE`). */
const POSITIONS = 64;
/** Source samples a line is padded with on each side, so the taps of edge pixels read repeated edge values. */
const PAD = 2;

/**
 * Catmull-Rom weights of the four taps at sub-pixel position k/64, in fixed point with 12 fractional bits as libvips'
 * 8-bit path (`VIPS_INTERPOLATE_SHIFT`; `kernels.wat` rounds each sum and shifts it back), times 4096 and truncated toward zero as libvips
 * truncates its table. With t = k/64 the weights are (−t³ + 2t² − t)/2, (3t³ − 5t² + 2)/2, (−3t³ + 4t² + t)/2 and
 * (t³ − t²)/2: worked in integers over 64³, so each is exact before the truncation.
 */
function weightTable(): Int32Array {
  const table = new Int32Array((POSITIONS + 1) * 4);
  const p = POSITIONS;
  for (let k = 0; k <= p; k++) {
    const k2 = k * k;
    const k3 = k2 * k;
    // Each weight times 4096 is (cubic in k over 64³) · 2048 = numerator / 128.
    const numerators = [-k3 + 2 * k2 * p - k * p * p, 3 * k3 - 5 * k2 * p + 2 * p * p * p, -3 * k3 + 4 * k2 * p + k * p * p, k3 - k2 * p];
    for (let i = 0; i < 4; i++) table[k * 4 + i] = Math.trunc(numerators[i] / 128);
  }
  return table;
}

const WEIGHTS = weightTable();

/**
 * The four taps of every output position along one axis of `from` samples enlarged to `to`: the first tap's index in
 * the padded line and the row of `WEIGHTS` to use. Output pixel o samples the source at o·from/to − 0.5, libvips'
 * geometry (half an output pixel right of and below the centre-aligned grid, (o + 0.5)·from/to − 0.5); the fraction
 * is rounded to 1/64 as libvips rounds it (truncated to 1/128, then halved upwards).
 */
function cubicTaps(from: number, to: number): { first: Int32Array; weightRow: Int32Array } {
  const first = new Int32Array(to);
  const weightRow = new Int32Array(to);
  const step = from / to;
  for (let o = 0; o < to; o++) {
    const x = o * step - 0.5;
    const x0 = Math.floor(x);
    first[o] = x0 - 1 + PAD;
    weightRow[o] = ((Math.floor((x - x0) * POSITIONS * 2) + 1) >> 1) * 4;
  }
  return { first, weightRow };
}

/**
 * Enlarge a grey page to exactly `width` × `height` (neither smaller than the page) with Catmull-Rom bicubic
 * interpolation, edges repeated: the bytes sharp's `resize` gives when it enlarges (libvips' bicubic interpolator in
 * its 8-bit fixed point, which rounds each row's sum before the column's). The loops run in WebAssembly
 * (`kernels.wat`: the row pass one tap at a time, the column pass sixteen pixels at a time): the row pass writes into
 * a ring of four enlarged rows, each source row enlarged once as the column pass reaches it.
 */
export function enlargeBicubic(page: GrayImage, width: number, height: number): GrayImage {
  const { width: w, height: h, data } = page;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < w || height < h || w < 1 || h < 1) {
    throw new RangeError(`enlargeBicubic: cannot enlarge ${w}×${h} to ${width}×${height}`);
  }
  const tx = cubicTaps(w, width);
  const ty = cubicTaps(h, height);
  const { kernels, at, buffer } = kernelsWithRoom(
    w * h,
    width * height,
    4 * width,
    4 * width,
    4 * height,
    4 * height,
    WEIGHTS.byteLength,
    4 * (w + 2 * PAD),
    4 * 4 * width,
    4 * 4,
  );
  const [src, out, firstX, weightsX, firstY, weightsY, weights, padded, ring, slots] = at;
  new Uint8Array(buffer, src, w * h).set(data.subarray(0, w * h));
  new Int32Array(buffer, firstX, width).set(tx.first);
  new Int32Array(buffer, weightsX, width).set(tx.weightRow);
  new Int32Array(buffer, firstY, height).set(ty.first);
  new Int32Array(buffer, weightsY, height).set(ty.weightRow);
  new Int32Array(buffer, weights, WEIGHTS.length).set(WEIGHTS);
  kernels.enlarge(src, w, h, out, width, height, firstX, weightsX, firstY, weightsY, weights, padded, ring, slots);
  const pixels = pageBytes(width * height);
  pixels.set(new Uint8Array(buffer, out, width * height));
  return { width, height, data: pixels };
}
