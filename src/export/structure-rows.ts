/**
 * The document's structure, step 1: the geometry of the OCR result as rows of text in reading order, with the
 * measures the later steps need (font size, baseline, margins, spacing), and the text standing in the page's
 * margins (side notes, line numbers; `structure-margins.ts`) set apart from the text block before reading order is
 * decided. Everything here is in points (1/72 in), so pages recognised at different resolutions compare.
 */
import type { OcrPage } from '../project/index.js';
import { ASCENT_TALL, DESCENT, glyphReach, median } from '../util/index.js';
import { type Line, lineOf, pageLines, quantile, type Word } from './structure-lines.js';
import { separateMargins } from './structure-margins.js';

export type { Word } from './structure-lines.js';

/** `full` on a one-column page (and for lines crossing the gutter of a two-column page). */
export type Column = 'full' | 'left' | 'right';

/** One line of text as a reader sees it: the words at the same height in one column, left to right. */
export interface Row {
  /** Index of the page in the document. */
  page: number;
  column: Column;
  words: Word[];
  /** The words joined by single spaces. */
  text: string;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  /** Estimated font size (the em), from the glyph boxes and the letters in them. */
  size: number;
  baseline: number;
}

/** Document-wide measures: the body text's font size and its line pitch (baseline to baseline). */
export interface Metrics {
  bodySize: number;
  pitch: number;
}

/** The text block of one page (or column): where body lines start and end. */
export interface Margins {
  left: number;
  right: number;
}

/**
 * A vertical gutter no line crosses, between two columns of at least three lines each that stand side by side;
 * null on a one-column page (short last lines alone never make a column: nothing stands to their right).
 */
function findGutter(lines: Line[], width: number): number | null {
  if (lines.length < 6) return null;
  let best: { x: number; crossing: number; left: number; right: number } | null = null;
  for (let step = 30; step <= 70; step++) {
    const x = (width * step) / 100;
    const left = lines.filter((l) => l.x1 <= x).length;
    const right = lines.filter((l) => l.x0 >= x).length;
    const crossing = lines.length - left - right;
    if (!best || crossing < best.crossing || (crossing === best.crossing && Math.min(left, right) > Math.min(best.left, best.right))) {
      best = { x, crossing, left, right };
    }
  }
  if (!best) return null;
  const { x, crossing, left, right } = best;
  const enough = Math.max(3, 0.2 * lines.length);
  if (left < enough || right < enough || crossing > 0.2 * lines.length) return null;
  const leftLines = lines.filter((l) => l.x1 <= x);
  const rightLines = lines.filter((l) => l.x0 >= x);
  const span = (ls: Line[]): [number, number] => [Math.min(...ls.map((l) => l.top)), Math.max(...ls.map((l) => l.bottom))];
  const [lt, lb] = span(leftLines);
  const [rt, rb] = span(rightLines);
  const overlap = Math.min(lb, rb) - Math.max(lt, rt);
  return overlap > 0.5 * Math.min(lb - lt, rb - rt) ? x : null;
}

/** Lines in reading order, in groups that belong to one column: full-width lines cut the columns into bands. */
function columnGroups(lines: Line[], width: number): { column: Column; lines: Line[] }[] {
  const gutter = findGutter(lines, width);
  if (gutter === null) return [{ column: 'full', lines }];
  const groups: { column: Column; lines: Line[] }[] = [];
  let left: Line[] = [];
  let right: Line[] = [];
  const flush = (): void => {
    if (left.length) groups.push({ column: 'left', lines: left });
    if (right.length) groups.push({ column: 'right', lines: right });
    left = [];
    right = [];
  };
  for (const line of [...lines].sort((a, b) => a.top - b.top)) {
    if (line.x1 <= gutter) left.push(line);
    else if (line.x0 >= gutter) right.push(line);
    else {
      flush();
      groups.push({ column: 'full', lines: [line] });
    }
  }
  flush();
  return groups;
}

/** Whether a word of one line stands over a word of the other (the lines are then above one another). */
function wordsCollide(a: Line, b: Line): boolean {
  return a.words.some((u) => b.words.some((v) => Math.min(u.x1, v.x1) - Math.max(u.x0, v.x0) > 0.3 * Math.min(u.x1 - u.x0, v.x1 - v.x0)));
}

/**
 * Lines side by side that overlap by half their height are one row (a running head set as page number + title, a
 * line the engine cut in two). Lines above one another never are, however their boxes overlap (curved pages).
 */
function mergeRows(lines: Line[]): Line[] {
  const rows: Line[] = [];
  for (const line of [...lines].sort((a, b) => a.top - b.top || a.x0 - b.x0)) {
    const last = rows[rows.length - 1];
    const height = last ? Math.min(last.bottom - last.top, line.bottom - line.top) : 0;
    const overlap = last ? Math.min(last.bottom, line.bottom) - Math.max(last.top, line.top) : 0;
    if (last && overlap >= 0.5 * height && !wordsCollide(last, line)) {
      rows[rows.length - 1] = lineOf([...last.words, ...line.words].sort((a, b) => a.x0 - b.x0));
    } else {
      rows.push(line);
    }
  }
  return rows;
}

function toRow(line: Line, page: number, column: Column): Row {
  const reached = line.words.map((w) => ({ w, reach: glyphReach(w.text) }));
  const ems: number[] = [];
  for (const { w, reach } of reached) if (reach) ems.push((w.bottom - w.top) / (reach.above + reach.below));
  const size = ems.length ? median(ems) : (line.bottom - line.top) / (ASCENT_TALL + DESCENT);
  const baselines: number[] = [];
  for (const { w, reach } of reached) if (reach) baselines.push(w.bottom - reach.below * size);
  return {
    page,
    column,
    words: line.words,
    text: line.words.map((w) => w.text).join(' '),
    x0: line.x0,
    x1: line.x1,
    top: line.top,
    bottom: line.bottom,
    size,
    baseline: baselines.length ? median(baselines) : line.bottom,
  };
}

/**
 * Specks read as a lone quote or bar (page edges, gutter shadow). Scene breaks such as `* * *` are kept, and so
 * is a long rule read as one dash (the rule above footnotes).
 */
function isNoise(row: Row): boolean {
  const narrow = row.x1 - row.x0 < 2 * (row.bottom - row.top) || row.x1 - row.x0 < 2 * row.size;
  return !/[\p{L}\p{N}]/u.test(row.text) && row.text.replace(/\s/g, '').length < 3 && narrow;
}

/** A page's text: the rows of its text block in reading order, and the lines standing in its margins. */
export interface PageRegions {
  /** Top to bottom; on a two-column page the left column first. */
  rows: Row[];
  /** Side notes, line numbers and the like, one row per line, top to bottom; `column` says which margin. */
  margin: Row[];
}

/** The rows of one page, its margins set apart first so that they never enter the reading order. */
export function pageRegions(page: OcrPage, pageIndex: number): PageRegions {
  const width = (page.width * 72) / (page.dpi > 0 ? page.dpi : 72);
  const { body, margin } = separateMargins(pageLines(page));
  const rows: Row[] = [];
  for (const group of columnGroups(body, width)) {
    for (const line of mergeRows(group.lines)) {
      const row = toRow(line, pageIndex, group.column);
      if (!isNoise(row)) rows.push(row);
    }
  }
  const marginRows = (['left', 'right'] as const).flatMap((side) =>
    mergeRows(margin[side])
      .map((line) => toRow(line, pageIndex, side))
      .filter((row) => !isNoise(row)),
  );
  return { rows, margin: marginRows.sort((a, b) => a.top - b.top) };
}

/** The rows of one page's text block in reading order (top to bottom; on a two-column page the left column first). */
export function pageRows(page: OcrPage, pageIndex: number): Row[] {
  return pageRegions(page, pageIndex).rows;
}

/**
 * Body font size: the size most characters are set in (headings, page numbers and notes are fewer and shorter).
 * Line pitch: the usual baseline-to-baseline distance between consecutive body-size rows.
 */
export function measureDocument(pages: Row[][]): Metrics {
  const rows = [...pages.flat()].sort((a, b) => a.size - b.size);
  // The size most of the text is set in: the median weighted by characters (long body lines outweigh notes and heads).
  const total = rows.reduce((sum, r) => sum + r.text.length, 0);
  let seen = 0;
  const bodySize = rows.find((r) => (seen += r.text.length) >= total / 2)?.size ?? 10;
  const pitches: number[] = [];
  for (const page of pages) {
    for (let i = 1; i < page.length; i++) {
      const [a, b] = [page[i - 1], page[i]];
      const diff = b.baseline - a.baseline;
      if (a.column === b.column && isBodySize(a, bodySize) && isBodySize(b, bodySize) && diff > 0.5 * bodySize && diff < 4 * bodySize) {
        pitches.push(diff);
      }
    }
  }
  // A low quantile, not the median: on a short document most pairs of lines may straddle a paragraph gap.
  return { bodySize, pitch: pitches.length ? quantile(pitches, 0.3) : 1.2 * bodySize };
}

/** Space above a row, beyond the usual leading, that sets it apart (a paragraph break, a heading's isolation): in pitches. */
export const BREAK_SPACE = 0.4;
/** A heading's font is this much larger than the body's. */
const TALL = 1.2;

export function isTall(row: Row, metrics: Metrics): boolean {
  return row.size >= TALL * metrics.bodySize;
}

/** Space below the row sets it apart from the next one (or nothing follows in its column). */
export function isolatedBelow(row: Row, next: Row | undefined, metrics: Metrics): boolean {
  return !next || next.column !== row.column || extraSpace(row, next, metrics) > BREAK_SPACE * metrics.pitch;
}

export function isBodySize(row: Row, bodySize: number): boolean {
  return row.size > 0.85 * bodySize && row.size < 1.15 * bodySize;
}

/**
 * White space between two rows beyond the usual space between body lines, in points: 0 between lines of a
 * paragraph, about one pitch for a blank line. Measured between em boxes, so a tall heading's own size does not count.
 */
export function extraSpace(above: Row, below: Row, metrics: Metrics): number {
  const gap = below.baseline - ASCENT_TALL * below.size - (above.baseline + DESCENT * above.size);
  const usual = metrics.pitch - (ASCENT_TALL + DESCENT) * metrics.bodySize;
  return gap - usual;
}

/**
 * The text block of a set of rows (one page or column). Left edge: the leftmost place where several lines start
 * (within 0.4 em; indented first lines and a stray speck do not count). Right edge: the rightmost place where
 * several lines end (within an em; short last lines do not pull it in, ragged lines settle near their limit).
 * Only body-size rows count when there are any.
 */
export function measureMargins(rows: Row[], metrics: Metrics): Margins | null {
  const body = rows.filter((r) => isBodySize(r, metrics.bodySize));
  const use = body.length ? body : rows;
  if (use.length === 0) return null;
  const needed = Math.min(3, Math.max(1, Math.ceil(use.length / 4)));
  const starts = use.map((r) => r.x0).sort((a, b) => a - b);
  const ends = use.map((r) => r.x1).sort((a, b) => b - a);
  const left = starts.find((x) => starts.filter((s) => s >= x && s - x <= 0.4 * metrics.bodySize).length >= needed) ?? starts[0];
  const right = ends.find((x) => ends.filter((e) => e <= x && x - e <= metrics.bodySize).length >= needed) ?? ends[0];
  return { left, right };
}
