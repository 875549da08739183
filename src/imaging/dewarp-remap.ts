/**
 * Moving pixels up and down a page by a smooth vertical displacement field, for the dewarp step.
 */
import type { GrayImage } from './gray.js';

/**
 * A vertical displacement d(x, y) given at a few rows of the output page (one per straightened text line):
 * linear in y between two of them, constant above the first and below the last.
 */
export interface VerticalField {
  /** Output rows where the shifts are known, increasing. */
  rows: Float64Array;
  /** `rows.length` × page width, row-major: the shift at that row and each column, px (down is positive). */
  shifts: Float32Array;
}

/**
 * Resample the page so out(x, y) = in(x, y + d(x, y)), linearly between the two nearest source rows
 * (displacement is vertical only, so bilinear sampling reduces to this). Rows beyond the page repeat its
 * first or last row.
 */
export function remapVertical(page: GrayImage, field: VerticalField): GrayImage {
  const { width, height, data } = page;
  const { rows, shifts } = field;
  const out = new Uint8Array(width * height);
  const shift = new Float32Array(width);
  const last = height - 1;
  let k = 0;
  for (let y = 0; y < height; y++) {
    while (k < rows.length && rows[k] <= y) k++;
    // Rows k-1 and k bracket y.
    if (k === 0 || k === rows.length) {
      const only = (k === 0 ? 0 : rows.length - 1) * width;
      shift.set(shifts.subarray(only, only + width));
    } else {
      const w = (y - rows[k - 1]) / (rows[k] - rows[k - 1]);
      const a = (k - 1) * width;
      const b = k * width;
      for (let x = 0; x < width; x++) shift[x] = shifts[a + x] + (shifts[b + x] - shifts[a + x]) * w;
    }
    const o = y * width;
    for (let x = 0; x < width; x++) out[o + x] = sampleColumn(data, width, last, x, y + shift[x]);
  }
  return { width, height, data: out };
}

/** The field's shift at column x and output row y (linear between its rows, constant beyond them). */
function shiftAt(field: VerticalField, width: number, x: number, y: number): number {
  const { rows, shifts } = field;
  if (y <= rows[0]) return shifts[x];
  const n = rows.length;
  if (y >= rows[n - 1]) return shifts[(n - 1) * width + x];
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (rows[mid] <= y) lo = mid;
    else hi = mid;
  }
  const w = (y - rows[lo]) / (rows[hi] - rows[lo]);
  const a = shifts[lo * width + x];
  return a + (shifts[hi * width + x] - a) * w;
}

/**
 * The page moved by several fields one after the other (`fields[0]` first), sampled once: out(x, y) is the page at
 * the row the last field sends y to from the one before it, and so on back to the first — no blur piles up from
 * resampling twice.
 */
export function remapVerticalThrough(page: GrayImage, fields: readonly VerticalField[]): GrayImage {
  const { width, height, data } = page;
  const out = new Uint8Array(width * height);
  const last = height - 1;
  for (let y = 0; y < height; y++) {
    const o = y * width;
    for (let x = 0; x < width; x++) {
      let sy = y;
      for (let f = fields.length - 1; f >= 0; f--) sy += shiftAt(fields[f], width, x, sy);
      out[o + x] = sampleColumn(data, width, last, x, sy);
    }
  }
  return { width, height, data: out };
}

/** The page at column x and fractional row sy, linearly between the two rows around it (clamped to the page), rounded. */
function sampleColumn(data: Uint8Array, width: number, last: number, x: number, sy: number): number {
  const y = sy <= 0 ? 0 : sy >= last ? last : sy;
  const y0 = y | 0;
  const f = y - y0;
  const p = y0 * width + x;
  const top = data[p];
  return f === 0 ? top : top + (data[p + width] - top) * f + 0.5;
}
