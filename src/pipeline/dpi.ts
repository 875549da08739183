/**
 * Resolution estimate for pages whose capture says nothing about it (camera frames): book body text has
 * a line pitch of about 13 pt, so measuring the pitch in pixels gives the pixels per inch.
 */
import type { Box, GrayImage } from '../imaging/index.js';
import { assertImage, autocorrelation, downscaleBox, findText, median, type TextFinding } from '../imaging/index.js';
import type { DpiEstimate } from './types.js';

/** Baseline-to-baseline distance of book body text, in points (11 pt type on 13 pt leading). */
export const BODY_LINE_PITCH_PT = 13;
/** x-height of that body type, in points (0.46 em of 11 pt). */
export const BODY_X_HEIGHT_PT = 0.46 * 11;
const MIN_DPI = 50;
const MAX_DPI = 1200;

/** How the text on a page repeats: its line pitch and letter height, in the pixels it was measured in. */
export interface TextRhythm {
  linePitchPx: number;
  xHeightPx: number;
  /** 0..1: how strongly the rows repeat at that pitch. */
  strength: number;
}

/** Estimate a page's resolution from its text; null when there is no text to measure (a blank page). */
export function estimateDpi(page: GrayImage): DpiEstimate | null {
  assertImage(page);
  // Big pages are halved: text stays several pixels high, and the work stays well under a second.
  const factor = Math.max(1, Math.floor(Math.max(page.width, page.height) / 1600));
  const work = downscaleBox(page, factor);
  const rhythm = measureTextRhythm(findText(work));
  return rhythm ? dpiFromRhythm(rhythm, factor) : null;
}

/** Turn a rhythm measured on an image downscaled by `scale` into the page's resolution. */
export function dpiFromRhythm(rhythm: TextRhythm, scale = 1): DpiEstimate {
  const linePitchPx = rhythm.linePitchPx * scale;
  const xHeightPx = rhythm.xHeightPx * scale;
  const dpi = Math.min(MAX_DPI, Math.max(MIN_DPI, (linePitchPx * 72) / BODY_LINE_PITCH_PT));
  return { dpi: Math.round(dpi), linePitchPx, xHeightPx };
}

/**
 * Measure the line pitch (autocorrelation of the row profile of text ink, taken in narrow vertical strips
 * so a slight skew does not smear the rows) and the x-height (the most common letter height) of the text
 * lines found in `region` (whole image by default). Null when there are too few lines or no repetition.
 */
export function measureTextRhythm(text: TextFinding, region?: Box): TextRhythm | null {
  const { width: w, height: h } = text.ink;
  const r = clampBox(region ?? { x: 0, y: 0, width: w, height: h }, w, h);
  const lines = text.lines.filter((l) => {
    const cx = l.x + l.width / 2;
    const cy = l.y + l.height / 2;
    return cx >= r.x && cx < r.x + r.width && cy >= r.y && cy < r.y + r.height;
  });
  if (lines.length < 3) return null;
  const heights = lines.flatMap((l) => l.members.map((m) => text.components[m].height));
  const letter = median(heights);
  if (letter < 1) return null;

  const mask = textInkIn(text, lines, r);
  const maxLag = Math.min(r.height - 1, Math.round(6 * letter) + 2);
  const minLag = Math.max(2, Math.floor(1.1 * letter));
  if (maxLag <= minLag + 1) return null;
  const stripWidth = Math.max(24, Math.round(12 * letter));
  const sum = new Float64Array(maxLag + 1);
  for (let sx = 0; sx < r.width; sx += stripWidth) {
    const sw = Math.min(stripWidth, r.width - sx);
    if (sw < stripWidth / 2 && sx > 0) break;
    const profile = new Float64Array(r.height);
    for (let y = 0; y < r.height; y++) {
      let s = 0;
      const row = y * r.width + sx;
      for (let x = 0; x < sw; x++) s += mask[row + x];
      profile[y] = s;
    }
    const ac = autocorrelation(profile, maxLag);
    for (let lag = 0; lag < ac.length; lag++) sum[lag] += ac[lag];
  }
  if (sum[0] <= 0) return null;
  const peak = firstStrongPeak(sum, minLag, maxLag);
  if (!peak) return null;
  const strength = sum[Math.round(peak)] / sum[0];
  if (strength < 0.08) return null;
  return { linePitchPx: peak, xHeightPx: commonHeight(heights), strength };
}

/** Ink of the text lines only, cropped to `r`, as one byte per pixel. */
function textInkIn(text: TextFinding, lines: readonly Box[], r: Box): Uint8Array {
  const { width: w } = text.ink;
  const out = new Uint8Array(r.width * r.height);
  for (const l of lines) {
    const x0 = Math.max(r.x, l.x);
    const x1 = Math.min(r.x + r.width, l.x + l.width);
    const y0 = Math.max(r.y, l.y);
    const y1 = Math.min(r.y + r.height, l.y + l.height);
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) out[(y - r.y) * r.width + (x - r.x)] = text.ink.data[y * w + x];
    }
  }
  return out;
}

/**
 * The pitch: the shortest-lag local maximum reaching 70 % of the highest one (twice the pitch also peaks,
 * nearly as high), refined to a fraction of a pixel by a parabola through its neighbours.
 */
function firstStrongPeak(ac: Float64Array, minLag: number, maxLag: number): number | null {
  const peaks: number[] = [];
  for (let lag = Math.max(1, minLag); lag < Math.min(maxLag, ac.length - 1); lag++) {
    if (ac[lag] > 0 && ac[lag] >= ac[lag - 1] && ac[lag] > ac[lag + 1]) peaks.push(lag);
  }
  if (peaks.length === 0) return null;
  const best = Math.max(...peaks.map((p) => ac[p]));
  const lag = peaks.find((p) => ac[p] >= 0.7 * best) ?? peaks[0];
  const a = ac[lag - 1];
  const b = ac[lag];
  const c = ac[lag + 1];
  const denom = a - 2 * b + c;
  const shift = denom < 0 ? (0.5 * (a - c)) / denom : 0;
  return lag + Math.max(-0.5, Math.min(0.5, shift));
}

/** Most common height among the letters (bins of one pixel, each counted with its neighbours). */
function commonHeight(heights: readonly number[]): number {
  const max = Math.max(...heights);
  const counts = new Float64Array(max + 2);
  for (const h of heights) counts[h]++;
  let best = 1;
  let bestScore = -1;
  for (let h = 1; h <= max; h++) {
    const score = counts[h] + 0.5 * (counts[h - 1] + counts[h + 1]);
    if (score > bestScore) {
      bestScore = score;
      best = h;
    }
  }
  return best;
}

function clampBox(b: Box, w: number, h: number): Box {
  const x0 = Math.max(0, Math.min(w, Math.round(b.x)));
  const y0 = Math.max(0, Math.min(h, Math.round(b.y)));
  const x1 = Math.max(x0, Math.min(w, Math.round(b.x + b.width)));
  const y1 = Math.max(y0, Math.min(h, Math.round(b.y + b.height)));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}
