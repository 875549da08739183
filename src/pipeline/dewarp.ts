/**
 * Dewarp: straighten text lines that page curl bends (near the gutter and at the foot of a book page photographed
 * open). Text-line based: each line's baseline is fitted as a smooth curve, and the page is moved up and down,
 * column by column, so every curve becomes a straight horizontal line; between lines the shift is interpolated.
 *
 * Out of scope: the horizontal compression of letters toward the gutter (the page turning away from the camera)
 * and any change of line spacing that curl causes. Only vertical displacement is corrected, which is what makes
 * lines wavy for OCR and for the eye.
 */
import {
  assertImage,
  type CurvedLine,
  type CurvedLines,
  fitTextLines,
  lineY,
  remapVertical,
  remapVerticalThrough,
  type VerticalField,
} from '../imaging/index.js';
import type { GrayImage } from '../imaging/index.js';
import type { DewarpDecision } from '../project/index.js';

export interface DewarpOptions {
  /** Resolution of the page (camera resolution: the step runs before upsampling). */
  dpi: number;
  /** No pixel moves further than this, millimetres (default 6): a bad fit cannot tear the page. */
  maxShiftMm?: number;
}

/** Fewer lines than this do not show the shape of the page. */
const MIN_LINES = 4;
/** A correction smaller than this moves nothing a reader or OCR would notice. */
const MIN_SHIFT_PX = 0.5;
/** A line is "full" when it reaches within this fraction of the text width of both text edges. */
const FULL_LINE_SLACK = 0.05;
/** The slope used to continue a line past its ends is taken over this fraction of the text width. */
const END_SLOPE_SPAN = 0.1;
/** A line that disagrees with its neighbours by more than this many px (and this many times the typical) is a misfit. */
const MISFIT_PX = 2;
const MISFIT_RATIO = 4;
/**
 * A first correction moving the text by this many letter heights is a strong curl, followed by a second correction
 * fitted on its result: no single polynomial follows a page flat over most of its width and steep at the gutter, and
 * the first fit overshoots the lines' gutter ends by up to a letter height (measured by fitting the lines of a
 * straightened page again). On the quality benchmark's strong curl (3 line pitches) word recall 0.951 → 0.982; a
 * curl of 0.8 pitch (1–1.5 letter heights) reads as well with one pass.
 */
const SECOND_PASS_LETTERS = 2;
/** Lines whose shifts are smoothed together: about a paragraph's worth of page, little enough to follow a curl. */
const SMOOTHING_LINES = 5;

/**
 * Straighten curled text lines of a grey page (deskewed, at camera resolution). Returns the page itself, with
 * `applied: false`, when it finds fewer than four usable lines or they are already straight.
 */
export async function dewarp(page: GrayImage, options: DewarpOptions): Promise<{ image: GrayImage; decision: DewarpDecision }> {
  assertImage(page);
  const { dpi, maxShiftMm = 6 } = options;
  if (!(dpi > 0 && Number.isFinite(dpi))) throw new RangeError(`dewarp: dpi must be positive, got ${dpi}`);
  if (!(maxShiftMm >= 0 && Number.isFinite(maxShiftMm))) throw new RangeError(`dewarp: maxShiftMm must be zero or more, got ${maxShiftMm}`);
  const measured = fitTextLines(page, { dpi });
  const model = curlField(measured, page.width, (maxShiftMm / 25.4) * dpi);
  const decision: DewarpDecision = {
    applied: false,
    lines: model.lines,
    maxShiftPx: round2(model.maxShift),
    residualPx: round2(model.residual),
  };
  if (!model.field || model.lines < MIN_LINES || model.maxShift < MIN_SHIFT_PX) return { image: page, decision };
  const once = { image: remapVertical(page, model.field), decision: { ...decision, applied: true } };
  if (!(model.maxShift >= SECOND_PASS_LETTERS * measured.letterHeight)) return once;
  // A strong curl is straightened twice: what the first fit left near the gutter is measured on its result, and the
  // two corrections are applied to the page in one resampling.
  const again = curlField(fitTextLines(once.image, { dpi }), page.width, (maxShiftMm / 25.4) * dpi);
  if (!again.field || again.lines < MIN_LINES || again.maxShift < MIN_SHIFT_PX) return once;
  return {
    image: remapVerticalThrough(page, [model.field, again.field]),
    decision: { ...once.decision, passes: 2, residualPx: round2(again.residual) },
  };
}

interface CurlModel {
  field?: VerticalField;
  lines: number;
  maxShift: number;
  residual: number;
}

/** A fitted line with its curve sampled at every column and the row it is straightened to. */
interface SampledLine {
  line: CurvedLine;
  /** y of the curve at each column of the page, continued past the line's ends. */
  ys: Float32Array;
  /** The output row it becomes. */
  row: number;
}

/**
 * The displacement field that maps each fitted line onto a straight row: the row is the line's y where the
 * page's lines are flattest (so the flat part of the page does not move), and the shift at that row is the
 * curve minus the row, clamped to `maxShift`.
 */
function curlField(measured: CurvedLines, width: number, maxShift: number): CurlModel {
  const residual = pooledResidual(measured.lines);
  if (measured.lines.length < MIN_LINES) return { lines: measured.lines.length, maxShift: 0, residual };
  const sampled = sampleLines(measured, width);
  const reference = flattestColumn(sampled, measured);
  for (const s of sampled) s.row = s.ys[reference];
  const [textLeft, textRight] = textSpan(measured.lines);
  let kept = withoutDuplicates(sampled.sort((a, b) => a.row - b.row));
  kept = withoutMisfits(kept, Math.max(0, Math.round(textLeft)), Math.min(width, Math.round(textRight)));
  if (kept.length < MIN_LINES) return { lines: kept.length, maxShift: 0, residual };

  const rows = Float64Array.from(kept, (s) => s.row);
  const shifts = smoothAcrossLines(kept, width);
  for (let i = 0; i < shifts.length; i++) shifts[i] = Math.max(-maxShift, Math.min(maxShift, shifts[i]));
  preventFolds(rows, shifts, width);
  // What the text itself moves by: the margins only follow it.
  let largest = 0;
  for (let i = 0; i < kept.length; i++) {
    for (let x = Math.max(0, Math.round(textLeft)); x < Math.min(width, Math.round(textRight)); x++) {
      largest = Math.max(largest, Math.abs(shifts[i * width + x]));
    }
  }
  return { field: { rows, shifts }, lines: kept.length, maxShift: largest, residual: pooledResidual(kept.map((s) => s.line)) };
}

/**
 * The shifts of each line (curve minus its row), each replaced by a straight-line fit in y through its
 * neighbourhood of lines (`SMOOTHING_LINES` lines): the page surface is smooth, the fits of single lines are
 * not (a line of round letters sits a fraction of a pixel lower), and a trend linear in y passes unchanged.
 */
function smoothAcrossLines(sorted: readonly SampledLine[], width: number): Float32Array {
  const n = sorted.length;
  const shifts = new Float32Array(n * width);
  const span = Math.min(n, SMOOTHING_LINES);
  for (let i = 0; i < n; i++) {
    const from = Math.max(0, Math.min(n - span, i - (span >> 1)));
    let meanRow = 0;
    for (let j = from; j < from + span; j++) meanRow += sorted[j].row;
    meanRow /= span;
    let spread = 0;
    for (let j = from; j < from + span; j++) spread += (sorted[j].row - meanRow) ** 2;
    // Weight of each neighbour's shift in the fitted value at this line's row (ordinary least squares).
    const weights = new Float64Array(span);
    for (let j = from; j < from + span; j++) {
      const lever = spread > 0 ? ((sorted[j].row - meanRow) * (sorted[i].row - meanRow)) / spread : 0;
      weights[j - from] = 1 / span + lever;
    }
    for (let x = 0; x < width; x++) {
      let d = 0;
      for (let j = from; j < from + span; j++) d += weights[j - from] * (sorted[j].ys[x] - sorted[j].row);
      shifts[i * width + x] = d;
    }
  }
  return shifts;
}

/** Where the text of the page starts and ends: most lines begin after the first and end before the second. */
function textSpan(lines: readonly CurvedLine[]): [number, number] {
  const lefts = lines.map((l) => l.left).sort((a, b) => a - b);
  const rights = lines.map((l) => l.right).sort((a, b) => a - b);
  return [lefts[Math.floor(0.1 * (lefts.length - 1))], rights[Math.ceil(0.9 * (rights.length - 1))]];
}

/**
 * Each line's curve at every column. Inside its own extent, the fit. Past the ends of a line that spans the
 * text, a straight continuation of its end slope (a polynomial bends wildly outside its data). Past the ends of a
 * shorter line (a paragraph's last line), the change its nearest spanning neighbours show there, blended by
 * distance, so a short line follows the page's curl instead of inventing its own.
 */
function sampleLines(measured: CurvedLines, width: number): SampledLine[] {
  const { lines } = measured;
  const [textLeft, textRight] = textSpan(lines);
  const textWidth = Math.max(1, textRight - textLeft);
  const slack = FULL_LINE_SLACK * textWidth;
  const isFull = lines.map((l) => l.left <= textLeft + slack && l.right >= textRight - slack);
  const anyFull = isFull.some(Boolean);
  const sampled: SampledLine[] = lines.map((line) => ({ line, ys: new Float32Array(width), row: 0 }));
  const own = (s: SampledLine): [number, number] => [Math.max(0, Math.ceil(s.line.left)), Math.min(width - 1, Math.floor(s.line.right))];

  // Lines that span the text first: the short ones borrow from them.
  for (let i = 0; i < lines.length; i++) {
    if (anyFull && !isFull[i]) continue;
    const s = sampled[i];
    const [a, b] = own(s);
    for (let x = a; x <= b; x++) s.ys[x] = lineY(measured, s.line, x);
    const run = Math.max(2, Math.min(b - a, Math.round(END_SLOPE_SPAN * textWidth)));
    const slopeLeft = (lineY(measured, s.line, a + run) - s.ys[a]) / run;
    const slopeRight = (s.ys[b] - lineY(measured, s.line, b - run)) / run;
    for (let x = 0; x < a; x++) s.ys[x] = s.ys[a] + slopeLeft * (x - a);
    for (let x = b + 1; x < width; x++) s.ys[x] = s.ys[b] + slopeRight * (x - b);
  }
  if (!anyFull) return sampled;

  const full = sampled.filter((_, i) => isFull[i]);
  const middle = Math.round(width / 2);
  for (let i = 0; i < lines.length; i++) {
    if (isFull[i]) continue;
    const s = sampled[i];
    const [a, b] = own(s);
    for (let x = a; x <= b; x++) s.ys[x] = lineY(measured, s.line, x);
    const y = s.ys[Math.min(b, Math.max(a, middle))];
    const neighbours = nearestAboveAndBelow(full, y, middle);
    for (let x = 0; x < width; x++) {
      if (x >= a && x <= b) continue;
      const end = x < a ? a : b;
      let change = 0;
      for (const { line: n, weight } of neighbours) change += weight * (n.ys[x] - n.ys[end]);
      s.ys[x] = s.ys[end] + change;
    }
  }
  return sampled;
}

/** The spanning lines just above and just below height y (at column x), weighted by closeness. */
function nearestAboveAndBelow(full: readonly SampledLine[], y: number, x: number): { line: SampledLine; weight: number }[] {
  let above: SampledLine | undefined;
  let below: SampledLine | undefined;
  for (const f of full) {
    const fy = f.ys[x];
    if (fy <= y && (!above || fy > above.ys[x])) above = f;
    if (fy > y && (!below || fy < below.ys[x])) below = f;
  }
  if (above && below) {
    const t = (y - above.ys[x]) / Math.max(1e-6, below.ys[x] - above.ys[x]);
    return [
      { line: above, weight: 1 - t },
      { line: below, weight: t },
    ];
  }
  const only = above ?? below;
  return only ? [{ line: only, weight: 1 }] : [];
}

/**
 * The column inside the text where the lines are flattest overall (least total slope): curl is strongest at
 * the gutter and fades away from it, so there the page is closest to its true shape.
 */
function flattestColumn(sampled: readonly SampledLine[], measured: CurvedLines): number {
  const lefts = measured.lines.map((l) => l.left).sort((a, b) => a - b);
  const rights = measured.lines.map((l) => l.right).sort((a, b) => a - b);
  const width = sampled[0].ys.length;
  const from = Math.max(1, Math.round(lefts[Math.floor(lefts.length / 2)]));
  const to = Math.min(width - 2, Math.round(rights[Math.floor(rights.length / 2)]));
  const step = Math.max(1, Math.round((to - from) / 64));
  let best = Math.round((from + to) / 2);
  let bestSlope = Infinity;
  for (let x = from; x <= to; x += step) {
    let slope = 0;
    for (const s of sampled) slope += Math.abs(s.ys[x + 1] - s.ys[x - 1]);
    if (slope < bestSlope - 1e-9) {
      bestSlope = slope;
      best = x;
    }
  }
  return best;
}

/** Two fits that land on the same row (fragments of one line): keep the one with more samples. */
function withoutDuplicates(sorted: SampledLine[]): SampledLine[] {
  if (sorted.length < 2) return sorted;
  const gaps: number[] = [];
  for (let i = 1; i < sorted.length; i++) gaps.push(sorted[i].row - sorted[i - 1].row);
  gaps.sort((a, b) => a - b);
  const pitch = gaps[gaps.length >> 1];
  const out: SampledLine[] = [];
  for (const s of sorted) {
    const prev = out[out.length - 1];
    if (prev && s.row - prev.row < 0.5 * pitch) {
      if (s.line.points > prev.line.points) out[out.length - 1] = s;
    } else {
      out.push(s);
    }
  }
  return out;
}

/**
 * Drop a line whose shape disagrees with what its two neighbours say at its row (a heading set askew, a
 * formula, a misread fit): the page surface is smooth, one line cannot bend alone.
 */
function withoutMisfits(sorted: SampledLine[], from: number, to: number): SampledLine[] {
  if (sorted.length < 3) return sorted;
  const step = Math.max(1, Math.floor((to - from) / 32));
  const deviation = new Float64Array(sorted.length);
  for (let i = 1; i < sorted.length - 1; i++) {
    const up = sorted[i - 1];
    const down = sorted[i + 1];
    const t = (sorted[i].row - up.row) / Math.max(1e-6, down.row - up.row);
    let worst = 0;
    for (let x = from; x < to; x += step) {
      const expected = up.ys[x] - up.row + t * (down.ys[x] - down.row - (up.ys[x] - up.row));
      worst = Math.max(worst, Math.abs(sorted[i].ys[x] - sorted[i].row - expected));
    }
    deviation[i] = worst;
  }
  const typical = [...deviation.subarray(1, sorted.length - 1)].sort((a, b) => a - b)[(sorted.length - 2) >> 1];
  const limit = Math.max(MISFIT_PX, MISFIT_RATIO * typical);
  return sorted.filter((_, i) => deviation[i] <= limit);
}

/**
 * Keep the mapping from output rows to page rows increasing in every column, so the remap never folds the page
 * over itself: two consecutive lines stay at least a quarter of their spacing apart on the page.
 */
function preventFolds(rows: Float64Array, shifts: Float32Array, width: number): void {
  for (let i = 1; i < rows.length; i++) {
    const least = 0.25 * (rows[i] - rows[i - 1]);
    for (let x = 0; x < width; x++) {
      const above = rows[i - 1] + shifts[(i - 1) * width + x];
      const here = rows[i] + shifts[i * width + x];
      if (here - above < least) shifts[i * width + x] = above + least - rows[i];
    }
  }
}

function pooledResidual(lines: readonly CurvedLine[]): number {
  let squares = 0;
  let points = 0;
  for (const l of lines) {
    squares += l.squaredResidual;
    points += l.points;
  }
  return points > 0 ? Math.sqrt(squares / points) : 0;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
