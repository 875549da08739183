/**
 * Markdown export, step 2: what each row is — running head or foot (dropped), heading, body line, or footnote.
 */
import { extraSpace, isBodySize, measureMargins, median, type Column, type Margins, type Metrics, type Row } from './structure-rows.js';
import {
  hasLetter,
  isAllCaps,
  isPageNumberText,
  isRomanNumeral,
  isTerminated,
  noteMarker,
  refersToNote,
  runningKey,
  type NoteMarker,
} from './structure-text.js';

/** Space above a row, beyond the usual leading, that sets it apart (a paragraph break, a heading's isolation): in pitches. */
export const BREAK_SPACE = 0.4;
/** A heading's font is this much larger than the body's. */
const TALL = 1.2;
/** Footnotes are set this much smaller than the body. */
const SMALL = 0.9;
/** A page number stands this far (in ems) from the title in a running head. */
const RUNNING_NUMBER_GAP = 2;
/** Running heads repeat on nearby pages: look this many pages either side. */
const RUNNING_WINDOW = 4;

/** Levenshtein distance, for running heads the OCR read a little differently on each page. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/** Same running head: equal, one inside the other (a page number read as letters), or a fifth of the letters differ. */
function similarKeys(a: string, b: string): boolean {
  if (a.length < 2 || b.length < 2) return false;
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= 8 && long.includes(short)) return true;
  // The distance is at least the difference in length: most pairs are settled without computing it.
  const allowed = 0.2 * long.length;
  return long.length >= 8 && long.length <= 120 && long.length - short.length <= allowed && editDistance(a, b) <= allowed;
}

export function isolatedBelow(row: Row, next: Row | undefined, metrics: Metrics): boolean {
  return !next || next.column !== row.column || extraSpace(row, next, metrics) > BREAK_SPACE * metrics.pitch;
}

function isTall(row: Row, metrics: Metrics): boolean {
  return row.size >= TALL * metrics.bodySize;
}

/** `2      PRIDE AND PREJUDICE` or `CHAPTER I      3`: a number at one end, far from the short title. */
function hasPageNumberAtEnd(row: Row): boolean {
  const { words } = row;
  if (words.length < 2 || words.length > 10) return false;
  const first = words[0];
  const last = words[words.length - 1];
  const far = RUNNING_NUMBER_GAP * row.size;
  return (/^\d{1,4}$/.test(first.text) && words[1].x0 - first.x1 > far) || (/^\d{1,4}$/.test(last.text) && last.x0 - words[words.length - 2].x1 > far);
}

/**
 * Running heads, running feet and page numbers, to be dropped. Looks at the first two and last two rows of each
 * page (the second only when the first is running). A row is running when it is
 * - a lone page number (arabic or roman, decorations allowed) not set larger than a heading;
 * - or, not set large, text whose letters (digits ignored) are the book title (`title`), or a heading set large
 *   elsewhere in the document (the chapter title repeated at the top of its pages); when set apart, also text
 *   nearly the same (see below);
 * - or short text set apart (or a page's first row narrower than the text block), repeated at that edge of another
 *   page up to four pages away (digits ignored; equal, one inside the other, or a fifth of the letters different,
 *   as OCR reads the same head a little differently);
 *   the first of them is kept when it is set larger than the others, or when its page has no page number at that
 *   edge while the others do (the chapter's own title on its first page);
 * - or, at the top and set apart from the text below, a short line with a page number far from its other words.
 */
export function findRunningRows(pages: Row[][], metrics: Metrics, title?: string): Set<Row> {
  const titleKey = title ? runningKey(title) : '';
  const tallKeys = new Set(pages.flat().filter((r) => isTall(r, metrics) && !isPageNumberText(r.text)).map((r) => runningKey(r.text)));
  const edges = (rows: Row[]): { top: Row[]; bottom: Row[] } => ({ top: rows.slice(0, 2), bottom: rows.slice(-2) });

  /** The row and the rows like it at the same edge of nearby pages, in page order. */
  const repeats = (row: Row, edge: 'top' | 'bottom'): Row[] => {
    const key = runningKey(row.text);
    const like: Row[] = [];
    for (let p = Math.max(0, row.page - RUNNING_WINDOW); p <= Math.min(pages.length - 1, row.page + RUNNING_WINDOW); p++) {
      if (p === row.page) like.push(row);
      else {
        const match = edges(pages[p])[edge].find((r) => similarKeys(key, runningKey(r.text)));
        if (match) like.push(match);
      }
    }
    return like;
  };

  // A page number at either end of one of the page's top or bottom rows.
  const numberedEdge = (row: Row, edge: 'top' | 'bottom'): boolean =>
    edges(pages[row.page])[edge].some((r) => /^\d{1,4}\b|\b\d{1,4}$/u.test(r.text));
  const keptFirst = (row: Row, group: Row[], edge: 'top' | 'bottom'): boolean => {
    if (group[0] !== row) return false;
    const others = group.slice(1);
    const usualSize = others.map((r) => r.size).sort((a, b) => a - b)[others.length >> 1];
    const numbered = others.filter((r) => numberedEdge(r, edge)).length;
    return row.size >= 1.15 * usualSize || (!numberedEdge(row, edge) && numbered * 2 >= others.length);
  };

  const narrow = (row: Row): boolean => {
    const widths = pages[row.page].map((r) => r.x1 - r.x0);
    return row.x1 - row.x0 < 0.7 * median(widths);
  };

  const isRunning = (row: Row, edge: 'top' | 'bottom', neighbour: Row | undefined): boolean => {
    const apart = !neighbour || (edge === 'top' ? isolatedBelow(row, neighbour, metrics) : isolatedBelow(neighbour, row, metrics));
    if (isPageNumberText(row.text)) {
      // A roman numeral may be a chapter number: only when set apart and not larger than the text.
      return isRomanNumeral(row.text) ? apart && row.size < 1.15 * metrics.bodySize : row.size < 1.3 * metrics.bodySize;
    }
    if (isTall(row, metrics)) return false;
    const key = runningKey(row.text);
    if (key.length >= 2) {
      if (key === titleKey || tallKeys.has(key)) return true;
      // Read a little differently by the OCR: only when set apart like a running head.
      if (apart && [titleKey, ...tallKeys].some((k) => similarKeys(key, k))) return true;
      // Repeated body lines are not running heads: those are short, and set apart (or, the page's first row,
      // narrower than the text: the page number beside it may crowd it).
      const group = (apart || (edge === 'top' && row === pages[row.page][0] && narrow(row))) && row.words.length <= 12 ? repeats(row, edge) : [];
      if (group.length >= 2 && !keptFirst(row, group, edge)) return true;
    }
    return edge === 'top' && apart && hasPageNumberAtEnd(row);
  };

  const running = new Set<Row>();
  for (const rows of pages) {
    for (let i = 0; i < Math.min(2, rows.length) && isRunning(rows[i], 'top', rows[i + 1]); i++) running.add(rows[i]);
    for (let i = rows.length - 1; i >= Math.max(0, rows.length - 2) && !running.has(rows[i]) && isRunning(rows[i], 'bottom', rows[i - 1]); i--) {
      running.add(rows[i]);
    }
  }
  return running;
}

/** A heading: one or more rows of the same size read as one title. */
export interface HeadingItem {
  kind: 'heading';
  rows: Row[];
  size: number;
}

/** A body line and what its position says about the paragraph it belongs to. */
export interface LineItem {
  kind: 'line';
  row: Row;
  /** A new paragraph starts here (the first line of a page says false: the page stitcher decides). */
  startsParagraph: boolean;
  /** Starts further right than the text block's left edge by more than half an em. */
  indented: boolean;
}

export interface NoteItem {
  marker: NoteMarker | null;
  rows: Row[];
}

/** One page: headings and body lines in reading order, and its footnotes. */
export interface PageLayout {
  items: (HeadingItem | LineItem)[];
  notes: NoteItem[];
}

/**
 * The text block's edges for each column of a page. A one-column page narrower than the document's usual text
 * width (a page of short lines of dialogue, where no line reaches the right edge) takes the usual width.
 */
function marginsOf(rows: Row[], metrics: Metrics, textWidth?: number): (column: Column) => Margins {
  const page = measureMargins(rows, metrics) ?? { left: 0, right: 0 };
  const byColumn = new Map<Column, Margins>();
  for (const column of ['full', 'left', 'right'] as const) {
    const m = measureMargins(rows.filter((r) => r.column === column), metrics);
    if (m) byColumn.set(column, m);
  }
  const full = byColumn.get('full');
  if (full && textWidth && !byColumn.has('left') && full.right - full.left < 0.85 * textWidth) {
    byColumn.set('full', { left: full.left, right: full.left + textWidth });
  }
  return (column) => byColumn.get(column) ?? page;
}

/** The usual width of the text block over the document: from one-column pages with enough body lines to tell. */
export function usualTextWidth(pages: Row[][], metrics: Metrics): number | undefined {
  const widths: number[] = [];
  for (const rows of pages) {
    const body = rows.filter((r) => r.column === 'full' && isBodySize(r, metrics.bodySize));
    const m = body.length >= 6 && rows.every((r) => r.column === 'full') ? measureMargins(body, metrics) : null;
    if (m) widths.push(m.right - m.left);
  }
  return widths.length ? median(widths) : undefined;
}

/**
 * The short rule above footnotes, as OCR reads it: a run of dashes or underscores with a few specks, or a single
 * dash far too wide to be one.
 */
export function isNoteRule(row: Row, metrics: Metrics): boolean {
  const chars = row.text.replace(/\s/gu, '');
  const dashes = chars.match(/[-–—_─―.…·]/gu)?.length ?? 0;
  const run = /[-–—_─―]{3,}/u.test(row.text) || (/[-–—_─―]/u.test(row.text) && row.x1 - row.x0 > 3 * metrics.bodySize);
  return run && dashes >= 0.6 * chars.length;
}

/**
 * Where the footnotes of a page start (an index into `rows`, or `rows.length` when there are none): below a short
 * rule at the left in the lower part of the page (read as dashes); else below the last large gap at the foot of
 * the page, rows set smaller than the body; or, when they are set at body size, a block in the lower part of the
 * page that starts with a note number the text above refers to.
 */
export function findNotesStart(rows: Row[], metrics: Metrics, pageHeight: number): number {
  const n = rows.length;
  const page = measureMargins(rows, metrics);
  for (let j = n - 2; j >= 1 && page; j--) {
    const rule = rows[j];
    const short = rule.x1 - rule.x0 < 0.6 * (page.right - page.left);
    if (isNoteRule(rule, metrics) && short && rule.x0 - page.left < 3 * metrics.bodySize && rule.top > 0.4 * pageHeight) return j;
  }
  const bigGap = (j: number): boolean => extraSpace(rows[j - 1], rows[j], metrics) > BREAK_SPACE * metrics.pitch;
  const noTall = (from: number): boolean => rows.slice(from).every((r) => !isTall(r, metrics));
  let small = n;
  while (small > 0 && rows[small - 1].size < SMALL * metrics.bodySize) small--;
  if (small >= 1 && small < n) {
    for (let j = small; j < n; j++) {
      if (bigGap(j) && noTall(j)) return j;
    }
  }
  for (let j = n - 1; j >= 1; j--) {
    if (!bigGap(j)) continue;
    const marker = noteMarker(rows[j].words[0].text);
    const above = rows.slice(0, j).map((r) => r.text).join(' ');
    if (marker && rows[j].top > 0.6 * pageHeight && n - j <= Math.max(3, 0.3 * n) && noTall(j) && refersToNote(above, marker)) return j;
    break;
  }
  return n;
}

/** Each note starts at a line beginning with a marker, after a finished line or set further right; the rest continue it. */
function splitNotes(rows: Row[], metrics: Metrics): NoteItem[] {
  const notes: NoteItem[] = [];
  for (const row of rows.filter((r) => !isNoteRule(r, metrics))) {
    const marker = noteMarker(row.words[0].text);
    const last = notes[notes.length - 1];
    const prev = last?.rows[last.rows.length - 1];
    const startsNote = marker !== null && (!prev || isTerminated(prev.text) || row.x0 - prev.x0 > 0.5 * metrics.bodySize || prev.x1 < row.x1 - 2 * metrics.bodySize);
    if (!last || startsNote) notes.push({ marker: startsNote ? marker : null, rows: [row] });
    else last.rows.push(row);
  }
  return notes;
}

/**
 * Headings, body lines and footnotes of one page (running rows already removed).
 * - Heading: a row set at least 1.2× the body size with space above it (or the page top), unless it is a long line
 *   filling the measure; a run of short rows in capitals or centred, set apart by space above and below (or the
 *   page's edge); or one short row set apart that starts with a capital or a number and does not end like a
 *   sentence. Rows of one size in a run make one heading.
 * - New paragraph: space above larger than the usual leading by 0.4 pitch (≈ 1.4× the leading), a first line
 *   indented by more than half an em past the line above it, or a line above that ends short of the right edge
 *   (by 2 ems) and ends a sentence (`. ! ? : …` or a closing quote).
 */
export function layoutPage(rows: Row[], metrics: Metrics, pageHeight: number, textWidth?: number): PageLayout {
  const notesStart = findNotesStart(rows, metrics, pageHeight);
  const content = rows.slice(0, notesStart);
  const margins = marginsOf(content, metrics, textWidth);
  const em = metrics.bodySize;
  const width = (r: Row): number => margins(r.column).right - margins(r.column).left;
  const indent = (r: Row): number => r.x0 - margins(r.column).left;
  const centred = (r: Row): boolean => {
    const left = indent(r);
    const right = margins(r.column).right - r.x1;
    return left > 1.5 * em && right > 1.5 * em && Math.abs(left - right) < Math.max(1.5 * em, 0.1 * width(r));
  };
  // A long line filling the measure is text, however tall the engine's boxes (a warped line on a camera page).
  const tallTitle = (r: Row): boolean => isTall(r, metrics) && !(r.words.length > 6 && indent(r) < em && margins(r.column).right - r.x1 < em);
  const headingLike = (r: Row): boolean =>
    tallTitle(r) ||
    (hasLetter(r.text) &&
      !/[-,;]$/u.test(r.text) &&
      r.words.length <= 12 &&
      ((isAllCaps(r.text) && r.x1 - r.x0 < 0.8 * width(r)) || centred(r)));
  const apartAbove = (i: number): boolean => i === 0 || isolatedBelow(content[i - 1], content[i], metrics);

  const isHeading = new Array<boolean>(content.length).fill(false);
  for (let i = 0; i < content.length; ) {
    if (!headingLike(content[i])) {
      i++;
      continue;
    }
    let end = i;
    while (end + 1 < content.length && headingLike(content[end + 1]) && content[end + 1].column === content[i].column) end++;
    const above = apartAbove(i);
    const below = isolatedBelow(content[end], content[end + 1], metrics);
    // A title set large needs space above it (or the page top): rows crowding it are a warped patch of text.
    for (let k = i; k <= end; k++) isHeading[k] = (above && below) || (above && tallTitle(content[k]));
    i = end + 1;
  }
  // A short line alone between spaces, starting like a title and not ending like a sentence (`3) Sources`).
  // One line only: a stanza of verse is several.
  content.forEach((r, i) => {
    const plain = r.words.length <= 12 && r.x1 - r.x0 < 0.7 * width(r) && /^[\p{Lu}\p{N}]/u.test(r.text) && !/[.!?…:;,-]$/u.test(r.text);
    const next = content[i + 1];
    // Less space is asked below than above: a title sits closer to the text it heads.
    const below = !next || next.column !== r.column || extraSpace(r, next, metrics) > 0.25 * metrics.pitch;
    if (plain && apartAbove(i) && below) isHeading[i] = true;
  });

  const items: (HeadingItem | LineItem)[] = [];
  for (let i = 0; i < content.length; i++) {
    const row = content[i];
    const last = items[items.length - 1];
    if (isHeading[i]) {
      const sameHeading =
        last?.kind === 'heading' && isHeading[i - 1] && Math.abs(row.size / last.size - 1) < 0.12 && !apartAbove(i);
      if (sameHeading) last.rows.push(row);
      else items.push({ kind: 'heading', rows: [row], size: row.size });
      continue;
    }
    const indented = indent(row) > 0.5 * em;
    let startsParagraph = last?.kind === 'heading';
    if (last?.kind === 'line') {
      const prev = last.row;
      const shortEnd = margins(prev.column).right - prev.x1 > 2 * em && isTerminated(prev.text);
      const sameColumn = prev.column === row.column;
      startsParagraph = (sameColumn && apartAbove(i)) || (indented && row.x0 - prev.x0 > 0.5 * em) || (!sameColumn && indented) || shortEnd;
    }
    items.push({ kind: 'line', row, startsParagraph, indented });
  }
  for (const item of items) if (item.kind === 'heading') item.size = Math.max(...item.rows.map((r) => r.size));
  return { items, notes: splitNotes(rows.slice(notesStart), metrics) };
}

/**
 * Heading levels from font size, clustered over the whole document so the same kind of title gets the same level
 * everywhere: sizes within 12% of each other chain into one cluster; the largest cluster is `#`, the next `##`,
 * everything smaller `###`.
 */
export function headingLevels(sizes: number[]): (size: number) => number {
  const sorted = [...new Set(sizes)].sort((a, b) => b - a);
  const levelOf = new Map<number, number>();
  let level = 1;
  sorted.forEach((size, i) => {
    if (i > 0 && size < 0.88 * sorted[i - 1]) level++;
    levelOf.set(size, Math.min(3, level));
  });
  return (size) => levelOf.get(size) ?? 3;
}
