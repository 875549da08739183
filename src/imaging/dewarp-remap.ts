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
    for (let x = 0; x < width; x++) {
      let sy = y + shift[x];
      if (sy <= 0) sy = 0;
      else if (sy >= last) sy = last;
      const y0 = sy | 0;
      const f = sy - y0;
      const p = y0 * width + x;
      const top = data[p];
      out[o + x] = f === 0 ? top : top + (data[p + width] - top) * f + 0.5;
    }
  }
  return { width, height, data: out };
}
