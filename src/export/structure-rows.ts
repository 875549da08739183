/**
 * The document's structure, step 1: the geometry of the OCR result as rows of text in reading order, with the
 * measures the later steps need (font size, baseline, margins, spacing), and the text standing in the page's
 * margins (side notes, line numbers) set apart from the text block before reading order is decided. Everything here
 * is in points (1/72 in), so pages recognised at different resolutions compare.
 */
import type { OcrPage } from '../project/index.js';
import { ASCENT_TALL, DESCENT, glyphReach, median } from '../util/index.js';

export interface Word {
  text: string;
  /** Digits the correction step read in a raised mark at the word's end that the text does not show (a lost note call). */
  raised?: string;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
}

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

interface Line {
  words: Word[];
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  /** A reference number the engine read with a body line, cut off it: it goes to its margin. */
  reference?: boolean;
}

/** The value at fraction `q` of the sorted values (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function lineOf(words: Word[]): Line {
  return {
    words,
    x0: Math.min(...words.map((w) => w.x0)),
    x1: Math.max(...words.map((w) => w.x1)),
    top: Math.min(...words.map((w) => w.top)),
    bottom: Math.max(...words.map((w) => w.bottom)),
  };
}

/**
 * Words further apart than this many line heights, and far wider apart than the line's other words (a justified
 * line spreads all its spaces alike), are not one line: a number in the margin beside a body line.
 */
const LINE_GAP = 1.6;

/** A line's words in pieces, cut where a gap far wider than the line's word spaces separates them. */
function splitAtGaps(words: Word[]): Word[][] {
  const sorted = [...words].sort((a, b) => a.x0 - b.x0);
  const height = median(sorted.map((w) => w.bottom - w.top));
  const gaps = sorted.slice(1).map((w, k) => w.x0 - sorted[k].x1);
  const pieces: Word[][] = [[sorted[0]]];
  gaps.forEach((gap, k) => {
    const others = gaps.filter((_, j) => j !== k);
    const wide = others.length ? gap > LINE_GAP * height && gap > 3 * median(others) : gap > 3 * height;
    if (wide) pieces.push([sorted[k + 1]]);
    else pieces[pieces.length - 1].push(sorted[k + 1]);
  });
  return pieces;
}

/**
 * The engine's lines, as words in points, cut at wide gaps; the engine's blocks and paragraphs are ignored (they
 * group book pages badly).
 */
function pageLines(page: OcrPage): Line[] {
  const scale = 72 / (page.dpi > 0 ? page.dpi : 72);
  const lines: Line[] = [];
  for (const block of page.blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        // On a tilted or curved page a word's box is taller than its glyphs by the rise across it: keep the band
        // the glyphs cover at the word's middle.
        const b = line.baseline;
        const slope = b && b.x1 !== b.x0 ? Math.abs((b.y1 - b.y0) / (b.x1 - b.x0)) : 0;
        const words = line.words
          .map((w) => {
            const [x0, x1, top, bottom] = [w.box.x0 * scale, w.box.x1 * scale, w.box.y0 * scale, w.box.y1 * scale];
            const rise = Math.min(slope * (x1 - x0), 0.5 * (bottom - top)) / 2;
            return { text: w.text.trim(), ...(w.raised ? { raised: w.raised } : {}), x0, x1, top: top + rise, bottom: bottom - rise };
          })
          .filter((w) => w.text !== '' && w.x1 > w.x0 && w.bottom > w.top);
        if (words.length > 0) lines.push(...splitAtGaps(words).map(lineOf));
      }
    }
  }
  return lines;
}

/** A line number, verse number or reference number as set in a margin: `5`, `120`, `§ 3`, `xiv`, `a`. */
export function isMarginNumber(text: string): boolean {
  const core = text.replace(/[\s.,;:()[\]§*†|-]/gu, '');
  return /^\d{1,4}[a-z]?$/u.test(core) || /^[ivxlc]{1,6}$/iu.test(core) || /^\p{Ll}$/u.test(core);
}

/**
 * Margin numbers counted in steps of five (`5`, `10`, `15`): line numbers, which go. Reference numbers (a column or
 * page of another edition, `124`, `125`, or verse numbers) are not, and are kept as markers. Half of them at least,
 * since OCR may misread one.
 */
export function inStepsOfFive(numbers: string[]): boolean {
  const values = numbers.map((n) => Number(/\d+/u.exec(n)?.[0] ?? NaN)).filter((n) => !Number.isNaN(n));
  return values.length > 0 && 2 * values.filter((n) => n % 5 === 0).length > values.length;
}

/**
 * Lines standing beside the text block, in a narrow column of their own (side notes, line numbers, verse numbers),
 * set apart from the body. The text block spans the long lines of the page (the widest fifth set the measure; on a
 * two-column page both columns are long); a margin line lies wholly left or right of it, between its first and last
 * long lines. A number at either end of a body line, past where most lines start or end and well apart from the
 * line's words, is a margin number too.
 * A number level with the first or last long line stays: it is more likely the page's number beside its running head.
 */
function separateMargins(lines: Line[]): { body: Line[]; margin: { left: Line[]; right: Line[] } } {
  return marginsApart(withMarginsCut(lines));
}

/**
 * The lines with what the engine read of the margins together with a body line cut off it: line numbers set close
 * to the text (dropped, however they were read) and side notes set close to it (made lines of their own), measured
 * against where most long lines start and end.
 */
function withMarginsCut(lines: Line[]): Line[] {
  const width = (l: Line): number => l.x1 - l.x0;
  if (lines.length < 4) return lines;
  const measure = quantile(lines.map(width), 0.8);
  const long = lines.filter((l) => width(l) >= 0.6 * measure);
  if (long.length < 3) return lines;
  const em = (l: Line): number => (l.bottom - l.top) / (ASCENT_TALL + DESCENT);
  const usualLeft = median(long.map((l) => l.x0));
  const usualRight = median(long.map((l) => l.x1));
  const column = lineNumberColumn(lines, usualRight, em);
  const leftColumn = leftNumberColumn(lines, usualLeft, em);
  return lines.flatMap((original) => {
    if (column?.lineNumbers === false || leftColumn?.lineNumbers === false) {
      const references = withReferencesApart(original, column, leftColumn, em(original));
      if (references.length > 1) return references;
    }
    const cut = column?.lineNumbers ? withoutLineNumber(original, column, em(original)) : original;
    const line = leftColumn?.lineNumbers ? withoutLeftLineNumber(cut, leftColumn, em(original)) : cut;
    if (line.words.length === 0) return [];
    const note = sideNoteWords(line.words, usualLeft, usualRight, em(line), NOTE_WIDTH * measure);
    return note ? [lineOf(note.words), lineOf(note.rest)] : [line];
  });
}

/** Lines wholly in a margin, and numbers standing apart at a body line's ends, set apart from the body. */
function marginsApart(lines: Line[]): { body: Line[]; margin: { left: Line[]; right: Line[] } } {
  const width = (l: Line): number => l.x1 - l.x0;
  const none = { body: lines, margin: { left: [], right: [] } };
  if (lines.length < 4) return none;
  const measure = quantile(lines.map(width), 0.8);
  const long = lines.filter((l) => width(l) >= 0.6 * measure).sort((a, b) => a.top - b.top);
  if (long.length < 3) return none;
  const left = quantile(
    long.map((l) => l.x0),
    0.1,
  );
  const right = quantile(
    long.map((l) => l.x1),
    0.9,
  );
  const [first, last] = [long[0], long[long.length - 1]];
  const em = (l: Line): number => (l.bottom - l.top) / (ASCENT_TALL + DESCENT);
  const level = (l: Line, other: Line): boolean => Math.min(l.bottom, other.bottom) - Math.max(l.top, other.top) > 0.3 * (l.bottom - l.top);
  const edgeNumber = (l: Line): boolean => isMarginNumber(l.words.map((w) => w.text).join(' ')) && (level(l, first) || level(l, last));
  const within = (l: Line): boolean => {
    const middle = (l.top + l.bottom) / 2;
    return middle > first.top && middle < last.bottom && !edgeNumber(l);
  };
  // Where most long lines start and end: a number standing past these, well apart from its line's words, is a
  // margin number the engine read with the line.
  const usualLeft = median(long.map((l) => l.x0));
  const usualRight = median(long.map((l) => l.x1));
  const standsApart = (line: Line, k: number): boolean => {
    const gaps = line.words.slice(1).map((w, i) => w.x0 - line.words[i].x1);
    const gap = k === 0 ? gaps[0] : gaps[gaps.length - 1];
    const others = k === 0 ? gaps.slice(1) : gaps.slice(0, -1);
    return gap > 0.8 * em(line) && (others.length === 0 || gap > 2 * median(others));
  };
  // Reference numbers (two or more in one margin, not counted in steps of five) are margin text wherever they stand,
  // level with the first or last line too, where a lone number would be the page's.
  const outside = (l: Line): 'left' | 'right' | null => (l.x1 <= left - 0.5 * em(l) ? 'left' : l.x0 >= right + 0.5 * em(l) ? 'right' : null);
  const references = new Set<Line>();
  for (const side of ['left', 'right'] as const) {
    const numbers = lines.filter((l) => {
      const middle = (l.top + l.bottom) / 2;
      return (
        (l.reference || outside(l) === side) &&
        /^\d{1,4}[a-e]?$/u.test(l.words.map((w) => w.text).join('')) &&
        middle > first.top - em(l) &&
        middle < last.bottom + em(l)
      );
    });
    if (numbers.length >= 2 && !inStepsOfFive(numbers.map((l) => l.words[0].text))) for (const l of numbers) references.add(l);
  }
  const body: Line[] = [];
  const margin = { left: [] as Line[], right: [] as Line[] };
  for (const line of lines) {
    if (references.has(line)) {
      margin[line.x1 <= usualLeft ? 'left' : 'right'].push(line);
      continue;
    }
    const side = !within(line) ? null : line.x1 <= left - 0.5 * em(line) ? 'left' : line.x0 >= right + 0.5 * em(line) ? 'right' : null;
    if (side) {
      margin[side].push(line);
      continue;
    }
    let words = line.words;
    const [first, last] = [words[0], words[words.length - 1]];
    if (words.length > 2 && isMarginNumber(first.text) && first.x1 < usualLeft && standsApart(line, 0) && within(lineOf([first]))) {
      margin.left.push(lineOf([first]));
      words = words.slice(1);
    }
    if (words.length > 2 && isMarginNumber(last.text) && last.x0 > usualRight && standsApart(line, line.words.length - 1) && within(lineOf([last]))) {
      margin.right.push(lineOf([last]));
      words = words.slice(0, -1);
    }
    body.push(words === line.words ? line : lineOf(words));
  }
  return { body, margin };
}

/**
 * A side note set close to the text and read with the body line level with it: the words at the line's start that
 * all end left of the text block's edge, or at its end that all start right of it, apart from the rest of the line
 * (wider apart on the right, where a ragged line may end a little past the usual edge), narrower than `widest`, with
 * a word of three letters or more among them (a lone number is left to the margin-number rule).
 */
function sideNoteWords(
  words: Word[],
  usualLeft: number,
  usualRight: number,
  em: number,
  widest: number,
): { side: 'left' | 'right'; words: Word[]; rest: Word[] } | null {
  const noted = (part: Word[]): boolean => part.some((w) => /\p{L}{3}/u.test(w.text)) && part[part.length - 1].x1 - part[0].x0 < widest;
  const before = words.findIndex((w) => w.x1 >= usualLeft - 0.3 * em);
  if (before > 0 && words[before].x0 - words[before - 1].x1 > 0.5 * em && noted(words.slice(0, before))) {
    return { side: 'left', words: words.slice(0, before), rest: words.slice(before) };
  }
  const after = words.findIndex((w) => w.x0 > usualRight + 0.3 * em);
  if (after > 0 && words[after].x0 - words[after - 1].x1 > 0.8 * em && noted(words.slice(after))) {
    return { side: 'right', words: words.slice(after), rest: words.slice(0, after) };
  }
  return null;
}

/** A side note's lines are narrower than this fraction of the text block's measure. */
const NOTE_WIDTH = 0.4;

/** Where a column of line numbers stands right of the text block: from the left edge of its numbers to the right. */
interface NumberColumn {
  x0: number;
  x1: number;
  /** Counted in steps of five: line numbers, dropped however read. Otherwise reference numbers, kept. */
  lineNumbers: boolean;
}

/**
 * The last word of a line when it stands past the text block's right edge (by a third of an em), apart from the
 * word before it: where line numbers set close to the text are read with the line.
 */
function pastRightEdge(line: Line, usualRight: number, em: number): Word | null {
  const { words } = line;
  if (words.length < 2) return null;
  const [before, last] = [words[words.length - 2], words[words.length - 1]];
  return last.x0 > usualRight + 0.3 * em && last.x0 - before.x1 > 0.4 * em ? last : null;
}

/**
 * A column of line numbers set close to the right of the text block (critical editions set them half an em off):
 * two lines or more of the page end with a number standing past the block's edge. Null when none.
 */
function lineNumberColumn(lines: Line[], usualRight: number, em: (l: Line) => number): NumberColumn | null {
  const numbers = lines.flatMap((line) => {
    const word = pastRightEdge(line, usualRight, em(line));
    return word && /^\d{1,4}$/u.test(word.text) ? [word] : [];
  });
  if (numbers.length < 2) return null;
  return { x0: median(numbers.map((w) => w.x0)), x1: median(numbers.map((w) => w.x1)), lineNumbers: inStepsOfFive(numbers.map((w) => w.text)) };
}

/** The first word of a line when it stands left of the text block's left edge, apart from the word after it. */
function pastLeftEdge(line: Line, usualLeft: number, em: number): Word | null {
  const { words } = line;
  if (words.length < 2) return null;
  const [first, after] = [words[0], words[1]];
  return first.x1 < usualLeft - 0.3 * em && after.x0 - first.x1 > 0.4 * em ? first : null;
}

/** A column of line numbers set close to the left of the text block (a verso's): as {@link lineNumberColumn}. */
function leftNumberColumn(lines: Line[], usualLeft: number, em: (l: Line) => number): NumberColumn | null {
  const numbers = lines.flatMap((line) => {
    const word = pastLeftEdge(line, usualLeft, em(line));
    return word && /^\d{1,4}$/u.test(word.text) ? [word] : [];
  });
  if (numbers.length < 2) return null;
  return { x0: median(numbers.map((w) => w.x0)), x1: median(numbers.map((w) => w.x1)), lineNumbers: inStepsOfFive(numbers.map((w) => w.text)) };
}

/**
 * A line's reference numbers from the columns of reference numbers beside it (a number at the line's start or end,
 * standing in the column and apart from the next word) as lines of their own, marked for the margin, and the rest.
 */
function withReferencesApart(line: Line, right: NumberColumn | null, left: NumberColumn | null, em: number): Line[] {
  const { words } = line;
  if (words.length < 2) return [line];
  const reference = (w: Word): boolean => /^\d{1,4}[a-e]?$/u.test(w.text);
  const [first, last] = [words[0], words[words.length - 1]];
  const parts: Line[] = [];
  let rest = words;
  if (left && !left.lineNumbers && reference(first) && Math.abs(first.x1 - left.x1) < 0.8 * em && words[1].x0 - first.x1 > 0.4 * em) {
    parts.push({ ...lineOf([first]), reference: true });
    rest = rest.slice(1);
  }
  if (
    right &&
    !right.lineNumbers &&
    rest.length > 1 &&
    reference(last) &&
    Math.abs(last.x0 - right.x0) < 0.8 * em &&
    last.x0 - rest[rest.length - 2].x1 > 0.4 * em
  ) {
    parts.push({ ...lineOf([last]), reference: true });
    rest = rest.slice(0, -1);
  }
  return parts.length ? [lineOf(rest), ...parts] : [line];
}

/** The line without its line number from the column left of it: a short token ending in the column, however read. */
function withoutLeftLineNumber(line: Line, column: NumberColumn, em: number): Line {
  const { words } = line;
  if (words.length < 2) return line;
  const first = words[0];
  const inColumn = Math.abs(first.x1 - column.x1) < 0.8 * em && words[1].x0 - first.x1 > 0.4 * em;
  return first.text.length <= 3 && inColumn ? lineOf(words.slice(1)) : line;
}

/**
 * The line without its line number from the column beside it, however the OCR read it: a short token standing in
 * the column (`15`, or `jd` for 10), or marks glued after the hyphen of the line's last word (`phan-%`, `cor-?$`),
 * the word then ending at its hyphen.
 */
function withoutLineNumber(line: Line, column: NumberColumn, em: number): Line {
  const { words } = line;
  const last = words[words.length - 1];
  if (words.length < 2) return line;
  const inColumn = (w: Word): boolean => Math.abs(w.x0 - column.x0) < 0.8 * em && w.x0 - words[words.length - 2].x1 > 0.4 * em;
  if (last.text.length <= 3 && inColumn(last)) return lineOf(words.slice(0, -1));
  const glued = /^(.*\p{L}-)(\P{L}{1,3})$/u.exec(last.text);
  if (glued && Math.abs(last.x1 - column.x1) < em && last.x1 > column.x0) {
    const word = { ...last, text: glued[1], x1: Math.min(last.x1, column.x0 - 0.4 * em) };
    return lineOf([...words.slice(0, -1), word]);
  }
  return line;
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
