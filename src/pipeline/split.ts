/**
 * Page detection in a camera frame of an open book: find each page's text area (body, running head,
 * page number, footnotes; not the table, the finger, the gutter shadow or the next page's edge) and split
 * the frame at the gutter when it holds two pages.
 */
import type { Box, GrayImage } from '../imaging/index.js';
import { assertImage, downscaleBox, findText, median, unionBox, type TextFinding, type TextLine } from '../imaging/index.js';
import { BODY_X_HEIGHT_PT, dpiFromRhythm, measureTextRhythm } from './dpi.js';
import type { SplitDecision } from './types.js';
import type { PageRegion } from '../project/index.js';

export interface DetectPagesOptions {
  /** Frame resolution, when known; estimated from the text otherwise. */
  dpi?: number;
  /** Margin kept around the text area, in millimetres (default 4). */
  marginMm?: number;
  /** `auto` looks for a gutter; `single` never splits; `double` always does. */
  spread?: 'auto' | 'single' | 'double';
}

/** Frames are analysed at about this many pixels on their long side. */
const WORK_SIZE = 960;

/** Find the pages in a frame and their text areas. */
export function detectPages(frame: GrayImage, options: DetectPagesOptions = {}): SplitDecision {
  assertImage(frame);
  const { spread = 'auto' } = options;
  const marginMm = Math.max(0, options.marginMm ?? 4);
  const givenDpi = options.dpi !== undefined && Number.isFinite(options.dpi) && options.dpi > 0 ? options.dpi : undefined;
  const scale = Math.max(1, Math.round(Math.max(frame.width, frame.height) / WORK_SIZE));
  const work = downscaleBox(frame, scale);
  const text = findText(work);
  const toFrame = (b: Box): Box => frameBox(b, scale, frame);

  if (text.lines.length === 0) return blankFrame(text, spread, scale, frame);

  const rhythm = measureTextRhythm(text);
  const pitch = rhythm?.linePitchPx ?? 2 * text.textHeight;
  const dpi = givenDpi ?? (rhythm ? dpiFromRhythm(rhythm, scale).dpi : dpiFromLetters(text.textHeight * scale));
  const marginPx = (marginMm / 25.4) * dpi;

  const slant = textSlant(text);
  const gutter = spread === 'single' ? undefined : findGutter(work, text, slant, pitch, spread === 'double');
  if (gutter === undefined) {
    // Told the frame is one page, a second block of text beside the first is part of it, however far.
    const content = textArea(text, text.lines, text.marks, pitch, spread === 'single');
    const box = grow(toFrame(content), marginPx, { x: 0, y: 0, width: frame.width, height: frame.height });
    return { pages: [{ side: 'single', box, content: toFrame(content) }] };
  }

  const gutterX = Math.round(gutter * scale);
  const pages: PageRegion[] = [];
  for (const side of ['left', 'right'] as const) {
    const isOnSide = (l: Box): boolean => across(slant, l) < gutter === (side === 'left');
    const onSide = text.lines.filter(isOnSide);
    const limit: Box =
      side === 'left' ? { x: 0, y: 0, width: gutterX, height: frame.height } : { x: gutterX, y: 0, width: frame.width - gutterX, height: frame.height };
    if (onSide.length === 0) {
      // A blank page facing a printed one is still a page (numbering stays right): its sheet of paper.
      const sheet = sheetIn(text, side === 'left' ? 0 : gutter, side === 'left' ? gutter : text.ink.width);
      const blank = sheet ? clip(toFrame(sheet), limit) : limit;
      pages.push({ side, box: blank, content: blank });
      continue;
    }
    const content = clip(toFrame(textArea(text, onSide, text.marks.filter(isOnSide), pitch)), limit);
    pages.push({ side, box: grow(content, marginPx, limit), content });
  }
  return { pages, gutterX };
}

/** Resolution from the letter height alone, assuming ~10 pt type (used when the lines show no pitch). */
function dpiFromLetters(letterPx: number): number {
  // Components at analysis scale are mostly whole words: their height is nearer the ascender (0.7 em) than the x-height.
  const tenPointLetterPt = (0.7 * 10 + BODY_X_HEIGHT_PT * (10 / 11)) / 2;
  const dpi = letterPx > 0 ? (letterPx * 72) / tenPointLetterPt : 150;
  return Math.min(1200, Math.max(50, dpi));
}

/**
 * How the text leans: lines run down to the right by `slope` pixels per pixel, so "columns" of a tilted
 * book (its gutter, its margins) follow x + slope·(y − yMid) = constant. A tilt of a few degrees would
 * otherwise fill the empty band between the pages with the corners of the text blocks.
 */
interface Slant {
  slope: number;
  yMid: number;
}

function textSlant(text: TextFinding): Slant {
  const y0 = Math.min(...text.lines.map((l) => l.y));
  const y1 = Math.max(...text.lines.map((l) => l.y + l.height));
  const slopes: number[] = [];
  for (const l of text.lines) {
    if (l.members.length < 4 || l.width < 8 * l.height) continue;
    // Least squares through the letters' centres: long lines make the slope precise despite ascenders.
    let sx = 0;
    let sy = 0;
    let sxx = 0;
    let sxy = 0;
    for (const m of l.members) {
      const c = text.components[m];
      const x = c.x + c.width / 2;
      const y = c.y + c.height / 2;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    const n = l.members.length;
    const den = n * sxx - sx * sx;
    if (den > 0) slopes.push((n * sxy - sx * sy) / den);
  }
  const limit = Math.tan((10 * Math.PI) / 180);
  const measured = slopes.length >= 3 ? Math.max(-limit, Math.min(limit, median(slopes))) : 0;
  // Below half a degree the lines' lean is page curl more than tilt; following it would smear the fold.
  const slope = Math.abs(measured) < Math.tan((0.5 * Math.PI) / 180) ? 0 : measured;
  return { slope, yMid: (y0 + y1) / 2 };
}

/** Where a box's centre falls across the page, measured along the lines of a slanted frame. */
function across(slant: Slant, b: Box): number {
  return b.x + b.width / 2 + slant.slope * (b.y + b.height / 2 - slant.yMid);
}

/**
 * x of the gutter in work pixels (at mid-height of the text), or undefined when the frame holds one page.
 * The gutter is a band with no text near the middle third with a page of text on each side; it counts
 * when it is wide (three line pitches) or, from one and a half pitches, when its darkest column is clearly
 * darker than its lightest (the gutter shadow, the fold, or a break between two sheets).
 */
function findGutter(work: GrayImage, text: TextFinding, slant: Slant, pitch: number, forced: boolean): number | undefined {
  const w = text.ink.width;
  const profile = new Float64Array(w);
  for (const l of text.lines) {
    const weight = l.members.reduce((s, m) => s + text.components[m].area, 0) / l.width;
    const x0 = Math.round(across(slant, l) - l.width / 2);
    for (let x = Math.max(0, x0); x < Math.min(w, x0 + l.width); x++) profile[x] += weight;
  }
  let total = 0;
  let peak = 0;
  for (const v of profile) {
    total += v;
    peak = Math.max(peak, v);
  }
  const empty = 0.03 * peak;
  const lo = Math.floor(w / 3);
  const hi = Math.ceil((2 * w) / 3);
  const shade = columnShade(work, text, slant);
  let best: { x0: number; x1: number; score: number } | undefined;
  for (let x = 0; x < w;) {
    if (profile[x] > empty) {
      x++;
      continue;
    }
    const x0 = x;
    while (x < w && profile[x] <= empty) x++;
    const x1 = x;
    if (x1 <= lo || x0 >= hi || x0 === 0 || x1 === w) continue;
    // Two pages of a spread are about as wide as each other (even a chapter's last page has full lines),
    // and each holds some of the ink; a sliver of the next page at the frame edge is neither.
    let left = 0;
    let leftColumns = 0;
    let rightColumns = 0;
    for (let i = 0; i < w; i++) {
      if (i < x0) left += profile[i];
      if (profile[i] > empty) {
        if (i < x0) leftColumns++;
        else rightColumns++;
      }
    }
    const right = total - left;
    if (left < 0.05 * total || right < 0.05 * total) continue;
    if (Math.min(leftColumns, rightColumns) < 0.45 * Math.max(leftColumns, rightColumns)) continue;
    const score = x1 - x0;
    if (!best || score > best.score) best = { x0, x1, score };
  }
  if (!best) return forced ? foldIn(shade, lo, hi, Math.max(2, Math.round(pitch))).x : undefined;
  const width = best.x1 - best.x0;
  const fold = foldIn(shade, best.x0, best.x1, Math.max(2, Math.round(pitch)));
  const isGutter = forced || (width >= 1.5 * pitch && (width >= 3 * pitch || fold.found));
  if (!isGutter) return undefined;
  return fold.x;
}

/**
 * The fold inside the empty band [x0, x1): the column darkest relative to the paper on both sides of it
 * (a narrow dip), else the band's middle. `found` says the band shows a fold or a shadow clearly enough
 * to count as a gutter: a dip of 4 % or a darkest column 12 % below the lightest.
 */
function foldIn(shade: Float64Array, x0: number, x1: number, reach: number): { x: number; found: boolean } {
  let bestX = Math.round((x0 + x1) / 2);
  let bestDepth = 0;
  let darkest = Infinity;
  let lightest = 0;
  for (let x = x0; x < x1; x++) {
    let left = shade[x];
    for (let i = Math.max(x0, x - reach); i < x; i++) left = Math.max(left, shade[i]);
    let right = shade[x];
    for (let i = x + 1; i <= Math.min(x1 - 1, x + reach); i++) right = Math.max(right, shade[i]);
    const depth = Math.min(left, right) - shade[x];
    if (depth > bestDepth) {
      bestDepth = depth;
      bestX = x;
    }
    darkest = Math.min(darkest, shade[x]);
    lightest = Math.max(lightest, shade[x]);
  }
  const dip = bestDepth >= 0.01 * lightest;
  return { x: dip ? bestX : Math.round((x0 + x1) / 2), found: bestDepth >= 0.04 * lightest || darkest < 0.88 * lightest };
}

/** Mean brightness of each (slanted) work column over the rows holding text. */
function columnShade(work: GrayImage, text: TextFinding, slant: Slant): Float64Array {
  const { width: w, data } = work;
  const y0 = Math.min(...text.lines.map((l) => l.y));
  const y1 = Math.max(...text.lines.map((l) => l.y + l.height));
  const sums = new Float64Array(w);
  const counts = new Float64Array(w);
  for (let y = y0; y < y1; y++) {
    const row = y * w;
    const shift = Math.round(slant.slope * (y - slant.yMid));
    // Column x' of the slanted frame is pixel x' - shift of this row.
    const from = Math.max(0, shift);
    const to = Math.min(w, w + shift);
    for (let xs = from; xs < to; xs++) {
      sums[xs] += data[row + xs - shift];
      counts[xs]++;
    }
  }
  for (let x = 0; x < w; x++) sums[x] = counts[x] ? sums[x] / counts[x] : 0;
  return sums;
}

/**
 * The text area of one page in work pixels: lines are grouped into blocks (words a few letters apart,
 * lines up to two pitches apart); the block with the most ink is the body, and other blocks join it when
 * they sit above or below it, within its columns, on the same sheet of paper (running head, a chapter title
 * set well apart, page number, footnotes) — however wide the gap when the sheet is seen, within a few lines
 * when it is not — or beside it when they are large (a second column). Lone marks (a page number of one or
 * two digits) join when they sit in the body's columns below or above it on that sheet. Everything else (a
 * stray word from the next page, marks near the frame edge, the desk) stays out.
 */
function textArea(text: TextFinding, lines: readonly TextLine[], marks: readonly TextLine[], pitch: number, wholeFrame = false): Box {
  const blocks = groupBlocks(text, lines, pitch);
  blocks.sort((a, b) => b.ink - a.ink);
  const main = blocks[0];
  let area: Box = main.box;
  const joined = new Set([0]);
  for (let changed = true; changed;) {
    changed = false;
    for (let i = 1; i < blocks.length; i++) {
      if (joined.has(i)) continue;
      const b = blocks[i];
      if (!samePaper(main, b)) continue;
      const overlapX = Math.min(area.x + area.width, b.box.x + b.box.width) - Math.max(area.x, b.box.x);
      const overlapY = Math.min(area.y + area.height, b.box.y + b.box.height) - Math.max(area.y, b.box.y);
      const gapY = -overlapY;
      const gapX = -overlapX;
      const reachY = Math.max(6 * pitch, 0.1 * area.height);
      // Printed matter on the body's own sheet of paper is the page's, however far apart it is set.
      const sameSheet = main.paper !== 0 && b.paper === main.paper;
      const above = overlapX >= 0.6 * b.box.width && (gapY <= reachY || sameSheet);
      const beside = b.ink >= 0.3 * main.ink && overlapY >= 0.5 * b.box.height && (wholeFrame || gapX <= 2 * pitch);
      if (above || beside) {
        joined.add(i);
        area = unionBox([area, b.box]) ?? area;
        changed = true;
      }
    }
  }
  // Lone marks (a page number) count only inside the body's columns, a few lines above or below it.
  const body = area;
  for (const m of marks) {
    const paper = paperRegionAt(text, m);
    if (!samePaper(main, { paper })) continue;
    const inColumns = m.x >= body.x - pitch && m.x + m.width <= body.x + body.width + pitch;
    const gapY = Math.max(body.y - (m.y + m.height), m.y - (body.y + body.height));
    // A folio under the last lines of a chapter may sit far below them, still on the page's sheet.
    const reach = main.paper !== 0 && paper === main.paper ? 20 * pitch : 5 * pitch;
    if (inColumns && gapY <= reach) area = unionBox([area, m]) ?? area;
  }
  // The ink mask holds the dark cores of blurred letters; their soft edges reach about a pixel further.
  return { x: area.x - 1, y: area.y - 1, width: area.width + 2, height: area.height + 2 };
}

interface Block {
  box: Box;
  ink: number;
  /** Paper region under the block's centre (0 when none). */
  paper: number;
}

function groupBlocks(text: TextFinding, lines: readonly TextLine[], pitch: number): Block[] {
  const n = lines.length;
  const rx = 3 * Math.max(1, text.textHeight);
  const ry = pitch;
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (let i = 0; i < n; i++) {
    const a = lines[i];
    for (let j = i + 1; j < n; j++) {
      const b = lines[j];
      const gapX = Math.max(a.x, b.x) - Math.min(a.x + a.width, b.x + b.width);
      const gapY = Math.max(a.y, b.y) - Math.min(a.y + a.height, b.y + b.height);
      if (gapX <= rx && gapY <= ry) parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, TextLine[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    const group = groups.get(r);
    if (group) group.push(lines[i]);
    else groups.set(r, [lines[i]]);
  }
  return [...groups.values()].map((members) => {
    const box = unionBox(members) as Box;
    const ink = members.reduce((s, l) => s + l.members.reduce((t, m) => t + text.components[m].area, 0), 0);
    return { box, ink, paper: paperRegionAt(text, box) };
  });
}

/** Different sheets of paper (pages parted by a dark gutter, a loose sheet) never share a text area. */
function samePaper(a: { paper: number }, b: { paper: number }): boolean {
  return a.paper === 0 || b.paper === 0 || a.paper === b.paper;
}

function paperRegionAt(text: TextFinding, box: Box): number {
  const { cell, paper, paperRegions } = text;
  const cx = Math.min(paper.width - 1, Math.floor((box.x + box.width / 2) / cell));
  const cy = Math.min(paper.height - 1, Math.floor((box.y + box.height / 2) / cell));
  return paperRegions[cy * paper.width + cx];
}

/** No text: the page is the largest sheet of paper in view (split in the middle when asked to). */
function blankFrame(text: TextFinding, spread: DetectPagesOptions['spread'], scale: number, frame: GrayImage): SplitDecision {
  const whole = { x: 0, y: 0, width: frame.width, height: frame.height };
  const found = sheetIn(text, 0, text.ink.width);
  const sheet = found ? frameBox(found, scale, frame) : whole;
  if (spread !== 'double') return { pages: [{ side: 'single', box: sheet, content: sheet }] };
  const gutterX = Math.round(sheet.x + sheet.width / 2);
  const left = { x: sheet.x, y: sheet.y, width: gutterX - sheet.x, height: sheet.height };
  const right = { x: gutterX, y: sheet.y, width: sheet.x + sheet.width - gutterX, height: sheet.height };
  return {
    pages: [
      { side: 'left', box: left, content: left },
      { side: 'right', box: right, content: right },
    ],
    gutterX,
  };
}

/** Bounds (work pixels) of the largest sheet of paper among the cells between x0 and x1, if any. */
function sheetIn(text: TextFinding, x0: number, x1: number): Box | undefined {
  const { paper, paperRegions, cell } = text;
  const c0 = Math.max(0, Math.floor(x0 / cell));
  const c1 = Math.min(paper.width, Math.ceil(x1 / cell));
  const areas = new Map<number, number>();
  for (let cy = 0; cy < paper.height; cy++) {
    for (let cx = c0; cx < c1; cx++) {
      const r = paperRegions[cy * paper.width + cx];
      if (r) areas.set(r, (areas.get(r) ?? 0) + 1);
    }
  }
  const largest = [...areas.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (largest === undefined) return undefined;
  let bx0 = Infinity;
  let by0 = Infinity;
  let bx1 = -Infinity;
  let by1 = -Infinity;
  for (let cy = 0; cy < paper.height; cy++) {
    for (let cx = c0; cx < c1; cx++) {
      if (paperRegions[cy * paper.width + cx] !== largest) continue;
      bx0 = Math.min(bx0, cx);
      by0 = Math.min(by0, cy);
      bx1 = Math.max(bx1, cx + 1);
      by1 = Math.max(by1, cy + 1);
    }
  }
  return { x: bx0 * cell, y: by0 * cell, width: (bx1 - bx0) * cell, height: (by1 - by0) * cell };
}

/** A work-pixel box in frame pixels, inside the frame. */
function frameBox(b: Box, scale: number, frame: GrayImage): Box {
  return clip({ x: b.x * scale, y: b.y * scale, width: b.width * scale, height: b.height * scale }, { x: 0, y: 0, width: frame.width, height: frame.height });
}

function grow(b: Box, by: number, limit: Box): Box {
  const m = Math.round(by);
  return clip({ x: b.x - m, y: b.y - m, width: b.width + 2 * m, height: b.height + 2 * m }, limit);
}

function clip(b: Box, limit: Box): Box {
  const x0 = Math.max(limit.x, Math.min(limit.x + limit.width, Math.round(b.x)));
  const y0 = Math.max(limit.y, Math.min(limit.y + limit.height, Math.round(b.y)));
  const x1 = Math.max(x0, Math.min(limit.x + limit.width, Math.round(b.x + b.width)));
  const y1 = Math.max(y0, Math.min(limit.y + limit.height, Math.round(b.y + b.height)));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}
