import { type GrayImage, reduceByAverage, sauvolaBinarize, sharpFromGray } from '../imaging/index.js';
import type { DeskewDecision } from '../project/index.js';

export interface SkewOptions {
  /** Largest skew looked for, degrees either way (default 10). */
  maxAngle?: number;
}

export interface DeskewOptions extends SkewOptions {
  /** Below this many degrees the page is left as it is (default 0.05). */
  minAngle?: number;
}

/** Text is measured on a copy at most this many pixels on its long side: enough for 0.05° over a text line. */
const WORK_SIDE = 1800;
/**
 * Below this confidence the page is not turned: lines of text score 0.85–1, scattered marks, pictures and
 * textures 0.1–0.3, and turning a page by a guess would make it worse.
 */
const MIN_CONFIDENCE = 0.5;
/** Fewer ink pixels than this is not text to measure. */
const MIN_INK = 200;

/** Ink pixel coordinates of the working copy, in working pixels. */
interface InkPoints {
  xs: Float32Array;
  ys: Float32Array;
  count: number;
}

/**
 * Estimate the skew of the text lines: the angle at which the ink, projected along the lines, gives the
 * sharpest row profile (sum of squared differences of neighbouring rows, as in Postl's and Bloomberg's methods).
 * Coarse-to-fine: 0.5° steps over ±maxAngle, then 0.1° steps, on samples of the ink; then 0.02° steps on all
 * of it and a parabola through the best three. `angle` is counter-clockwise positive as seen on screen.
 */
export function estimateSkew(page: GrayImage, options: SkewOptions = {}): DeskewDecision {
  const maxAngle = Math.min(45, Math.abs(options.maxAngle ?? 10));
  const ink = inkPointsOf(page);
  if (ink.count < MIN_INK) return { angle: 0, confidence: 0 };

  // The coarse pass needs only the overall shape of the profile: ~20k points and 2-px rows over its 41 angles;
  // the medium pass ~40k. The fine pass, on all the ink, starts from the medium pass's parabola (within a few
  // hundredths of a degree), so ±0.06° around it is enough.
  const sample = subsample(ink, 40_000);
  const coarse = scan(subsample(sample, 20_000), -maxAngle, maxAngle, 0.5, 2);
  const medium = scan(sample, coarse.best - 0.5, coarse.best + 0.5, 0.1, 1);
  const fine = scan(ink, medium.refined - 0.06, medium.refined + 0.06, 0.02, 1);
  const angle = Math.max(-maxAngle, Math.min(maxAngle, fine.refined));
  // How much the best angle stands out from a typical wrong one: 0 for noise or a blank page.
  const confidence = coarse.peak > 0 ? Math.max(0, Math.min(1, 1 - coarse.median / coarse.peak)) : 0;
  return { angle: round3(angle), confidence: round3(confidence) };
}

/**
 * Straighten the page: rotate it by -angle with sharp and crop the result back to the page's own size, centred,
 * so its geometry stays what the split step measured. The corners the rotation uncovers are filled by
 * repeating the nearest page pixels of the row: a white or black fill would draw a false edge that
 * binarisation turns into lines. Not turned below `minAngle` or when the estimate is unsure (no lines of
 * text); the decision still says what was measured.
 */
export async function deskew(page: GrayImage, options: DeskewOptions = {}): Promise<{ image: GrayImage; decision: DeskewDecision }> {
  const minAngle = options.minAngle ?? 0.05;
  const decision = estimateSkew(page, options);
  if (Math.abs(decision.angle) < minAngle || decision.confidence < MIN_CONFIDENCE) return { image: page, decision };
  const image = await rotatePage(page, decision.angle);
  return { image, decision };
}

/** Rotate the page counter-clockwise by -`angle` degrees (sharp's angles are clockwise), same size, corners filled. */
export async function rotatePage(page: GrayImage, angle: number): Promise<GrayImage> {
  const { data, info } = await sharpFromGray(page)
    .rotate(angle, { background: '#ffffff' })
    // The background colour makes libvips go to three channels; back to one.
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`rotatePage: expected 1 channel, got ${info.channels}`);
  const { width, height } = page;
  const left = Math.round((info.width - width) / 2);
  const top = Math.round((info.height - height) / 2);
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const src = (y + top) * info.width + left;
    out.set(data.subarray(src, src + width), y * width);
  }
  fillUncoveredCorners(out, width, height, angle, left - (info.width - width) / 2, top - (info.height - height) / 2);
  return { width, height, data: out };
}

/**
 * For each row, find the span that came from inside the original page (rotation about the centre by `angle`
 * clockwise) and repeat its end pixels outwards. `dx`, `dy` are the sub-pixel offsets of the crop.
 */
function fillUncoveredCorners(data: Uint8Array, width: number, height: number, angle: number, dx: number, dy: number): void {
  const a = (angle * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const cx = (width - 1) / 2;
  const cy = (height - 1) / 2;
  // Stay clear of the anti-aliased border the rotation blends with the white background.
  const inset = 2;
  for (let y = 0; y < height; y++) {
    const v = y + dy - cy;
    // Source of output (u, v) relative to the centre: x = u cos + v sin, y = -u sin + v cos (clockwise inverse).
    let lo = (-cx + inset - v * sin) / cos;
    let hi = (cx - inset - v * sin) / cos;
    if (Math.abs(sin) > 1e-9) {
      const e0 = (v * cos - (cy - inset)) / sin;
      const e1 = (v * cos + (cy - inset)) / sin;
      lo = Math.max(lo, Math.min(e0, e1));
      hi = Math.min(hi, Math.max(e0, e1));
    }
    const row = y * width;
    const x0 = Math.max(0, Math.ceil(lo + cx - dx));
    const x1 = Math.min(width - 1, Math.floor(hi + cx - dx));
    if (x0 > x1) {
      // A row the page no longer reaches: repeat the row above (the first rows cannot be uncovered for ≤45°).
      if (y > 0) data.copyWithin(row, row - width, row);
      continue;
    }
    if (x0 > 0) data.fill(data[row + x0], row, row + x0);
    if (x1 < width - 1) data.fill(data[row + x1], row + x1 + 1, row + width);
  }
}

/** Ink of a working copy, found with the same illumination-robust threshold as binarisation. */
function inkPointsOf(page: GrayImage): InkPoints {
  const factor = Math.max(1, Math.ceil(Math.max(page.width, page.height) / WORK_SIDE));
  const work = reduceByAverage(page, factor);
  // Without a resolution, take the window as a fraction of the page: about 20 mm on a book page. Only where the
  // ink lies matters here, not the shape of each letter: a window twice that of the page's own threshold finds
  // the same lines in half the time (its blocks are twice as large), and the angle is as accurate.
  const side = Math.max(work.width, work.height);
  const windowPx = Math.max(15, Math.round(side / 10)) | 1;
  const mask = sauvolaBinarize(work, { windowPx, backgroundPx: windowPx, k: 0.2 });
  let count = 0;
  for (let i = 0; i < mask.data.length; i++) if (mask.data[i] === 0) count++;
  const xs = new Float32Array(count);
  const ys = new Float32Array(count);
  let n = 0;
  for (let y = 0; y < work.height; y++) {
    const row = y * work.width;
    for (let x = 0; x < work.width; x++) {
      if (mask.data[row + x] === 0) {
        xs[n] = x;
        ys[n] = y;
        n++;
      }
    }
  }
  return { xs, ys, count };
}

function subsample(ink: InkPoints, most: number): InkPoints {
  if (ink.count <= most) return ink;
  const step = ink.count / most;
  const xs = new Float32Array(most);
  const ys = new Float32Array(most);
  for (let i = 0; i < most; i++) {
    const j = Math.floor(i * step);
    xs[i] = ink.xs[j];
    ys[i] = ink.ys[j];
  }
  return { xs, ys, count: most };
}

interface ScanResult {
  best: number;
  /** Best angle refined by a parabola through its neighbours. */
  refined: number;
  peak: number;
  median: number;
}

/** Score every angle from `from` to `to` by `step` degrees; rows of `rowPx` working pixels. */
function scan(ink: InkPoints, from: number, to: number, step: number, rowPx: number): ScanResult {
  const n = Math.round((to - from) / step) + 1;
  const scores = new Float64Array(n);
  let widest = 0;
  let tallest = 0;
  for (let i = 0; i < ink.count; i++) {
    widest = Math.max(widest, ink.xs[i]);
    tallest = Math.max(tallest, ink.ys[i]);
  }
  const bins = new Float64Array(Math.ceil((widest + tallest) / rowPx) + 3);
  let bestIndex = 0;
  for (let a = 0; a < n; a++) {
    scores[a] = sharpness(ink, from + a * step, rowPx, widest, bins);
    if (scores[a] > scores[bestIndex]) bestIndex = a;
  }
  let refined = from + bestIndex * step;
  if (bestIndex > 0 && bestIndex < n - 1) {
    const l = scores[bestIndex - 1];
    const c = scores[bestIndex];
    const r = scores[bestIndex + 1];
    const curvature = l - 2 * c + r;
    if (curvature < 0) refined += (step * 0.5 * (l - r)) / curvature;
  }
  const sorted = Array.from(scores).sort((p, q) => p - q);
  return { best: from + bestIndex * step, refined, peak: scores[bestIndex], median: sorted[Math.floor(n / 2)] };
}

/**
 * Project the ink along lines of skew `angle` (counter-clockwise on screen, so a line runs y = y0 - x·tan)
 * into rows, each point split linearly between its two nearest rows, and sum the squared row-to-row changes.
 */
function sharpness(ink: InkPoints, angle: number, rowPx: number, widest: number, bins: Float64Array): number {
  const a = (angle * Math.PI) / 180;
  const cos = Math.cos(a) / rowPx;
  const sin = Math.sin(a) / rowPx;
  bins.fill(0);
  // Keep y·cos + x·sin at least 1 (a negative angle lifts the right end of the lines), within the bins.
  const shift = 1 + (sin < 0 ? -sin * widest : 0);
  const { xs, ys, count } = ink;
  for (let i = 0; i < count; i++) {
    const p = ys[i] * cos + xs[i] * sin + shift;
    // p ≥ 1, so truncation is the floor (and cheaper than Math.floor here).
    const j = p | 0;
    const w = p - j;
    bins[j] += 1 - w;
    bins[j + 1] += w;
  }
  let sum = 0;
  for (let j = 1; j < bins.length; j++) {
    const d = bins[j] - bins[j - 1];
    sum += d * d;
  }
  return sum;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
