/**
 * Page curl, measured: the text lines of a grey page as smooth curves y = f(x) through their baselines.
 * Used by the dewarp step; pure functions over typed arrays.
 */
import { downscaleBox, downscaleMax, groupIntoLines, median, type Component } from './analysis.js';
import { maxFilter } from './blocks.js';
import { inkComponents } from './filters.js';
import type { GrayImage } from './gray.js';

/** One text line as a curve through its baseline. */
export interface CurvedLine {
  /** Polynomial in u = (x − centre) / halfSpan, lowest order first (`centre`, `halfSpan` are the page's, shared). */
  coefficients: Float64Array;
  /** Leftmost and rightmost x of the line's ink. */
  left: number;
  right: number;
  /** Baseline samples the robust fit kept. */
  points: number;
  /** Sum of squared distances of the kept samples from the curve, px² (for a pooled RMS). */
  squaredResidual: number;
}

/** The curves of a page and the x scale they are written in. */
export interface CurvedLines {
  centre: number;
  halfSpan: number;
  lines: CurvedLine[];
  /** Median height of the letters (components) the lines are made of, px. */
  letterHeight: number;
}

export interface LineFitOptions {
  /** Resolution of the page, to size the threshold window and tell letters from specks and pictures. */
  dpi: number;
  /** Keep lines at least this fraction as wide as the widest lines of the page (default 0.5). */
  minWidthFraction?: number;
}

/**
 * Quintic: a book page is flat over most of its width and bends sharply in the last third before the gutter, and a
 * cubic cannot follow both (on the quality benchmark's strong curl it left the lines' gutter ends a line pitch off:
 * word recall 0.924, CER 8.6 %; a quintic: 0.950, 2.5 %). Still too stiff to follow single letters; degree 7
 * measured worse (0.919).
 */
const DEGREE = 5;
/** A chunk row belongs to the letters' body when it holds this fraction of the chunk's fullest row (descenders are thin). */
const BODY_ROW_FRACTION = 0.4;
/** A line needs this many baseline samples to be fitted at all. */
const MIN_POINTS = 10;
/** Pieces of one line are joined across gaps up to this fraction of the page width (a column gutter). */
const JOIN_GAP = 0.25;
/** A piece continues a line when its baseline is within this fraction of a letter height of the line's extension. */
const JOIN_TOLERANCE = 0.3;
/** A fitted line whose samples stray from it by more than this fraction of a letter height (RMS) is refused. */
const MAX_SCATTER = 0.15;

/** Find the text lines of a page and fit a curve through the baseline of each (sorted top to bottom). */
export function fitTextLines(page: GrayImage, options: LineFitOptions): CurvedLines {
  const { dpi, minWidthFraction = 0.5 } = options;
  const pxPerMm = dpi / 25.4;
  const centre = page.width / 2;
  const halfSpan = Math.max(1, page.width / 2);
  const mask = coarseInk(page, pxPerMm);
  const letters = inkComponents(mask).filter(
    (c) => c.area >= 4 && c.height >= Math.max(3, 0.6 * pxPerMm) && c.height <= 6 * pxPerMm && c.width <= page.width / 3,
  );
  const chains = groupIntoLines(letters).filter((l) => l.members.length >= 2 || l.width >= 2 * l.height);
  const letterHeight = median(chains.flatMap((l) => l.members.map((m) => letters[m].height)));
  if (chains.length === 0) return { centre, halfSpan, lines: [], letterHeight };
  const fragments = chains.map((chain): Fragment => {
    const members = chain.members.map((m) => letters[m]);
    return { ...baselineSamples(mask, members, median(members.map((c) => c.height))), left: chain.x, right: chain.x + chain.width };
  });
  const joined = joinFragments(fragments, letterHeight, JOIN_GAP * page.width);
  // Short lines (paragraph ends, page numbers, a footnote rule) say little about the curl across the page.
  const widths = joined.map((l) => l.right - l.left).sort((a, b) => a - b);
  const fullWidth = widths[Math.floor(0.9 * (widths.length - 1))];
  const lines: CurvedLine[] = [];
  for (const line of joined) {
    if (line.right - line.left < minWidthFraction * fullWidth) continue;
    const fit = robustFit(line, centre, halfSpan, DEGREE, MIN_POINTS);
    // Samples scattered that far about the curve are two lines run together (tight leading, accents): no shape.
    if (fit && Math.sqrt(fit.squaredResidual / fit.points) <= Math.max(1, MAX_SCATTER * letterHeight)) {
      lines.push({ ...fit, left: line.left, right: line.right });
    }
  }
  lines.sort((a, b) => evaluate(a.coefficients, 0) - evaluate(b.coefficients, 0));
  return { centre, halfSpan, lines, letterHeight };
}

/** Part of a text line: its baseline samples and horizontal extent. */
interface Fragment extends Samples {
  left: number;
  right: number;
}

/**
 * Chain the pieces of each text line back together. Letters are grouped into lines only across gaps of about
 * a letter, so a line breaks at a wide justified space, a dash or a column gutter; a piece that continues the
 * straight extension of a longer piece's end (within a third of a letter height) is the same line. Longest
 * pieces first, so the short ones join the line they continue.
 */
function joinFragments(fragments: readonly Fragment[], letterHeight: number, maxGap: number): Fragment[] {
  const order = fragments.map((_, i) => i).sort((a, b) => fragments[b].right - fragments[b].left - (fragments[a].right - fragments[a].left));
  const used = new Uint8Array(fragments.length);
  const reach = 8 * letterHeight;
  const tolerance = Math.max(1, JOIN_TOLERANCE * letterHeight);
  const joined: Fragment[] = [];
  for (const seed of order) {
    if (used[seed]) continue;
    used[seed] = 1;
    let line = fragments[seed];
    for (let grew = true; grew;) {
      grew = false;
      const leftEnd = endTangent(line, 'left', reach);
      const rightEnd = endTangent(line, 'right', reach);
      for (const j of order) {
        if (used[j]) continue;
        const piece = fragments[j];
        let end: Tangent | undefined;
        if (piece.left >= line.right - letterHeight && piece.left - line.right <= maxGap) end = rightEnd;
        else if (piece.right <= line.left + letterHeight && line.left - piece.right <= maxGap) end = leftEnd;
        if (!end || piece.count === 0) continue;
        const off: number[] = [];
        for (let k = 0; k < piece.count; k++) off.push(Math.abs(piece.ys[k] - (end.y + end.slope * (piece.xs[k] - end.x))));
        if (median(off) > tolerance) continue;
        used[j] = 1;
        line = mergeFragments(line, piece);
        grew = true;
        break;
      }
    }
    joined.push(line);
  }
  return joined;
}

/** A straight line through one end of a text line: y at x, and its slope. */
interface Tangent {
  x: number;
  y: number;
  slope: number;
}

/** The straight line that best fits the samples within `reach` of one end of a line. */
function endTangent(line: Fragment, side: 'left' | 'right', reach: number): Tangent | undefined {
  const x = side === 'left' ? line.left : line.right;
  const near: Samples = { xs: new Float64Array(line.count), ys: new Float64Array(line.count), count: 0 };
  for (let k = 0; k < line.count; k++) {
    if (Math.abs(line.xs[k] - x) > reach) continue;
    near.xs[near.count] = line.xs[k];
    near.ys[near.count] = line.ys[k];
    near.count++;
  }
  if (near.count === 0) return undefined;
  // Over a short end, a flat line through the median is safer than a slope.
  const fit = near.count >= 4 ? robustFit(near, x, reach, 1, 3) : undefined;
  if (!fit) return { x, y: median(Array.from(near.ys.subarray(0, near.count))), slope: 0 };
  return { x, y: fit.coefficients[0], slope: fit.coefficients[1] / reach };
}

function mergeFragments(a: Fragment, b: Fragment): Fragment {
  const xs = new Float64Array(a.count + b.count);
  const ys = new Float64Array(a.count + b.count);
  xs.set(a.xs.subarray(0, a.count));
  xs.set(b.xs.subarray(0, b.count), a.count);
  ys.set(a.ys.subarray(0, a.count));
  ys.set(b.ys.subarray(0, b.count), a.count);
  return { xs, ys, count: a.count + b.count, left: Math.min(a.left, b.left), right: Math.max(a.right, b.right) };
}

/** y of a curve at page column x. */
export function lineY(lines: Pick<CurvedLines, 'centre' | 'halfSpan'>, line: CurvedLine, x: number): number {
  return evaluate(line.coefficients, (x - lines.centre) / lines.halfSpan);
}

/** Baseline samples of a line: x and y pairs. */
interface Samples {
  xs: Float64Array;
  ys: Float64Array;
  count: number;
}

/**
 * One baseline sample per chunk of each letter (or run of touching letters), a chunk about a letter wide: the
 * lowest row still holding a good part of the chunk's ink. A descender is a thin stroke below the body, so a
 * chunk with a "p" or a "g" still gives the baseline; a chunk that is all descender gives an outlier the robust
 * fit drops.
 */
function baselineSamples(mask: GrayImage, members: readonly Component[], chunkWidth: number): Samples {
  const step = Math.max(3, Math.round(chunkWidth));
  let total = 0;
  for (const c of members) total += Math.max(1, Math.round(c.width / step));
  const xs = new Float64Array(total);
  const ys = new Float64Array(total);
  let count = 0;
  const rowInk = new Int32Array(Math.max(1, ...members.map((c) => c.height)));
  const { width, data } = mask;
  for (const c of members) {
    const chunks = Math.max(1, Math.round(c.width / step));
    for (let k = 0; k < chunks; k++) {
      const x0 = c.x + Math.round((k * c.width) / chunks);
      const x1 = c.x + Math.round(((k + 1) * c.width) / chunks);
      let fullest = 0;
      for (let r = 0; r < c.height; r++) {
        const row = (c.y + r) * width;
        let n = 0;
        for (let x = x0; x < x1; x++) if (data[row + x] < 128) n++;
        rowInk[r] = n;
        if (n > fullest) fullest = n;
      }
      if (fullest === 0) continue;
      let bottom = c.height - 1;
      while (bottom > 0 && rowInk[bottom] < BODY_ROW_FRACTION * fullest) bottom--;
      xs[count] = (x0 + x1) / 2;
      // The bottom edge of the lowest body row.
      ys[count] = c.y + bottom + 1;
      count++;
    }
  }
  return { xs, ys, count };
}

/**
 * Least-squares polynomial through the samples (x written as (x − centre) / halfSpan), refitted without the samples far from it (descenders, accents,
 * punctuation, a neighbour line's letter) until it settles. Undefined when too few samples remain.
 */
function robustFit(samples: Samples, centre: number, halfSpan: number, degree: number, minPoints: number): Omit<CurvedLine, 'left' | 'right'> | undefined {
  const { xs, ys, count } = samples;
  if (count < minPoints) return undefined;
  const us = new Float64Array(count);
  for (let i = 0; i < count; i++) us[i] = (xs[i] - centre) / halfSpan;
  const keep = new Uint8Array(count).fill(1);
  const residuals = new Float64Array(count);
  let coefficients: Float64Array | undefined;
  for (let round = 0; round < 4; round++) {
    coefficients = leastSquares(us, ys, keep, degree);
    if (!coefficients) return undefined;
    const kept: number[] = [];
    for (let i = 0; i < count; i++) {
      residuals[i] = ys[i] - evaluate(coefficients, us[i]);
      if (keep[i]) kept.push(Math.abs(residuals[i]));
    }
    // 1.4826 × the median absolute residual estimates the spread of the good samples; a pixel is the floor.
    const limit = Math.max(1, 2.5 * 1.4826 * median(kept));
    let changed = false;
    for (let i = 0; i < count; i++) {
      const k = Math.abs(residuals[i]) <= limit ? 1 : 0;
      if (k !== keep[i]) changed = true;
      keep[i] = k;
    }
    if (!changed) break;
  }
  if (!coefficients) return undefined;
  let points = 0;
  let squaredResidual = 0;
  for (let i = 0; i < count; i++) {
    if (!keep[i]) continue;
    points++;
    const r = ys[i] - evaluate(coefficients, us[i]);
    squaredResidual += r * r;
  }
  if (points < minPoints || points < 0.5 * count) return undefined;
  return { coefficients, points, squaredResidual };
}

/** Weighted polynomial least squares (weights 0 or 1) by the normal equations; undefined if they are singular. */
function leastSquares(us: Float64Array, ys: Float64Array, keep: Uint8Array, degree: number): Float64Array | undefined {
  const n = degree + 1;
  const a = new Float64Array(n * (n + 1));
  const powers = new Float64Array(2 * degree + 1);
  const moments = new Float64Array(2 * degree + 1);
  const rhs = new Float64Array(n);
  let used = 0;
  for (let i = 0; i < us.length; i++) {
    if (!keep[i]) continue;
    used++;
    powers[0] = 1;
    for (let p = 1; p <= 2 * degree; p++) powers[p] = powers[p - 1] * us[i];
    for (let p = 0; p <= 2 * degree; p++) moments[p] += powers[p];
    for (let p = 0; p < n; p++) rhs[p] += powers[p] * ys[i];
  }
  if (used < n) return undefined;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) a[r * (n + 1) + c] = moments[r + c];
    a[r * (n + 1) + n] = rhs[r];
  }
  return solve(a, n);
}

/** Gaussian elimination with partial pivoting of an n×(n+1) augmented matrix. */
function solve(a: Float64Array, n: number): Float64Array | undefined {
  const w = n + 1;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r * w + col]) > Math.abs(a[pivot * w + col])) pivot = r;
    if (Math.abs(a[pivot * w + col]) < 1e-9) return undefined;
    if (pivot !== col) {
      for (let c = 0; c < w; c++) {
        const t = a[col * w + c];
        a[col * w + c] = a[pivot * w + c];
        a[pivot * w + c] = t;
      }
    }
    for (let r = col + 1; r < n; r++) {
      const f = a[r * w + col] / a[col * w + col];
      for (let c = col; c < w; c++) a[r * w + c] -= f * a[col * w + c];
    }
  }
  const x = new Float64Array(n);
  for (let r = n - 1; r >= 0; r--) {
    let s = a[r * w + n];
    for (let c = r + 1; c < n; c++) s -= a[r * w + c] * x[c];
    x[r] = s / a[r * w + r];
  }
  return x;
}

function evaluate(coefficients: Float64Array, u: number): number {
  let y = 0;
  for (let p = coefficients.length - 1; p >= 0; p--) y = y * u + coefficients[p];
  return y;
}

/**
 * Ink as 0 on 255, by a coarse local threshold: darker than the paper around it by a fifth (and by 18 grey
 * levels). The paper level is the brightest 2×2 mean within a few millimetres, so gradients and the gutter
 * shadow do not matter; per-cell thresholds without interpolation are enough to see letters, and cost two
 * passes over the page where Sauvola costs several.
 */
function coarseInk(page: GrayImage, pxPerMm: number): GrayImage {
  const { width, height, data } = page;
  const half = Math.max(2, Math.round(0.75 * pxPerMm));
  const cell = 2 * half;
  const grid = downscaleMax(downscaleBox(page, 2), half);
  const paper = maxFilter(Float32Array.from(grid.data), grid.width, grid.height, 1);
  const threshold = new Float32Array(paper.length);
  for (let i = 0; i < paper.length; i++) threshold[i] = paper[i] - Math.max(18, 0.2 * paper[i]);
  const cellOfColumn = new Int32Array(width);
  for (let x = 0; x < width; x++) cellOfColumn[x] = Math.min(grid.width - 1, Math.floor(x / cell));
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const cells = Math.min(grid.height - 1, Math.floor(y / cell)) * grid.width;
    const row = y * width;
    for (let x = 0; x < width; x++) out[row + x] = data[row + x] < threshold[cells + cellOfColumn[x]] ? 0 : 255;
  }
  return { width, height, data: out };
}
