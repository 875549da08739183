/**
 * The document's structure, step 3: what each row of a page is (running rows already dropped) — heading, body line,
 * footnote or critical apparatus — and heading levels over the whole document.
 */
import {
  BREAK_SPACE,
  extraSpace,
  isBodySize,
  isolatedBelow,
  isTall,
  measureMargins,
  type Column,
  type Margins,
  type Metrics,
  type Row,
} from './structure-rows.js';
import { inStepsOfFive, isMarginNumber } from './structure-margins.js';
import { median } from '../util/index.js';
import { hasLetter, isAllCaps, isTerminated, noteMarker, refersToNote, type NoteMarker } from './structure-text.js';

/** Footnotes are set this much smaller than the body. */
const SMALL = 0.9;

/** A heading: one or more rows of the same size read as one title. */
export interface HeadingItem {
  kind: 'heading';
  rows: Row[];
  size: number;
  /** What sets it apart besides its size: 2 for capitals, 1 for centred (3 for both), 0 for neither. */
  style: number;
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

/** A footnote at the foot of a page: its number or sign as read (null on a line continuing a note), and its rows. */
export interface NoteItem {
  kind: 'note';
  marker: NoteMarker | null;
  rows: Row[];
}

/** Lines of a critical apparatus (short entries with sigla: `3 ἀγαθὸς] ἀγαθὸν B`), kept together line by line. */
export interface ApparatusItem {
  kind: 'apparatus';
  rows: Row[];
}

/** One page: headings and body lines in reading order, and what stands at its foot (apparatus, footnotes). */
export interface PageLayout {
  items: (HeadingItem | LineItem)[];
  foot: (NoteItem | ApparatusItem)[];
}

/**
 * The text block's edges for each column of a page. A one-column page narrower than the document's usual text
 * width (a page of short lines of dialogue, where no line reaches the right edge) takes the usual width.
 */
function marginsOf(rows: Row[], metrics: Metrics, textWidth?: number): (column: Column) => Margins {
  const page = measureMargins(rows, metrics) ?? { left: 0, right: 0 };
  const byColumn = new Map<Column, Margins>();
  for (const column of ['full', 'left', 'right'] as const) {
    const m = measureMargins(
      rows.filter((r) => r.column === column),
      metrics,
    );
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
 * A line of a critical apparatus: a lemma closed by a bracket that nothing opened (`3 ἀγαθὸς] ἀγαθὸν B`), or entries
 * cut by bars with the editors' abbreviations (`om. P | add. A`).
 */
export function isApparatusLine(text: string): boolean {
  const opened = (text.match(/\[/gu) ?? []).length;
  const closed = (text.match(/\]/gu) ?? []).length;
  if (closed > opened) return true;
  return (/[|‖]/u.test(text) && EDITORIAL.test(text)) || isSiglaEntry(text);
}

/** The editors' abbreviations in an apparatus: omitted, added, manuscripts, deleted, corrected … */
const EDITORIAL = /(?:^|\s)(?:om|add|codd?|del|corr|transp|scr|leg|coni|praem|inv|mg|ras|edd?)\./u;
/** A manuscript's siglum (`P`, `CM`, `B2`); roman numerals of two letters or more are chapter numbers, not sigla. */
const SIGLUM = /^[A-Z]{1,4}\d?[.,;:]?$/u;
const ROMAN_NUMBER = /^[IVXLC]{2,}[.,;:]?$/u;

/**
 * Apparatus entries whose lemma bracket the OCR lost (`5 quale) quales CM quare P`): the line starts with a line
 * number and names two manuscripts or more, with an editor's abbreviation, a lemma closed by a parenthesis nothing
 * opened, or a third siglum.
 */
function isSiglaEntry(text: string): boolean {
  const words = text.split(/\s+/u);
  if (!/^\d{1,4}$/u.test(words[0])) return false;
  const sigla = words.filter((w) => SIGLUM.test(w) && !ROMAN_NUMBER.test(w)).length;
  const lemma = (text.match(/\p{Ll}\)/gu) ?? []).length > (text.match(/\(/gu) ?? []).length;
  return sigla >= 2 && (EDITORIAL.test(text) || lemma || sigla >= 3);
}

/**
 * Where the foot of a page starts (an index into `rows`, or `rows.length` when it has none): below a short rule at
 * the left in the lower part of the page (read as dashes); else below the last large gap at the foot of the page,
 * rows set smaller than the body; or, when they are set at body size, a block in the lower part of the page that
 * starts with a note number the text above refers to, or whose lines are mostly apparatus entries. Apparatus lines
 * just above a rule belong to the foot too.
 */
export function findNotesStart(rows: Row[], metrics: Metrics, pageHeight: number): number {
  const n = rows.length;
  const start = footStart(rows, metrics, pageHeight);
  let from = start;
  while (from > 1 && from < n && isApparatusLine(rows[from - 1].text) && rows[from - 1].top > 0.4 * pageHeight) from--;
  return from;
}

function footStart(rows: Row[], metrics: Metrics, pageHeight: number): number {
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
    const above = rows
      .slice(0, j)
      .map((r) => r.text)
      .join(' ');
    const lower = rows[j].top > 0.6 * pageHeight && n - j <= Math.max(3, 0.3 * n) && noTall(j);
    if (lower && marker && refersToNote(above, marker)) return j;
    const apparatus = rows.slice(j).filter((r) => isApparatusLine(r.text)).length;
    if (rows[j].top > 0.5 * pageHeight && noTall(j) && apparatus * 2 >= n - j) return j;
    break;
  }
  return n;
}

/** A note's number as OCR reads it at the foot, the letters it takes digits for allowed (`l6` is 16, `1O` is 10). */
function footMarker(word: string): NoteMarker | null {
  const marker = noteMarker(word);
  if (marker) return marker;
  const m = /^([\dlIi|oO]{1,3})([.,)]?)$/u.exec(word);
  if (!m || !/\d/u.test(m[1])) return null;
  return noteMarker(m[1].replace(/[lIi|]/gu, '1').replace(/[oO]/gu, '0') + m[2]);
}

/** A note number OCR made a letter of, with its stop: "Ἰ." or "|." for "7.". */
const LETTER_MARKER = /^[\p{L}|][.,]$/u;

/**
 * The number of a note OCR read as a letter ("Ἰ. Μεταβάλλεσθαι" for "7. …"), from the notes around it: the row
 * starts with one letter and a stop, the note before is numbered N and ended its sentence, and the next numbered
 * note is N + 2. Else null.
 */
function missingMarker(lines: Row[], i: number, last: NoteItem | ApparatusItem | undefined): NoteMarker | null {
  if (!LETTER_MARKER.test(lines[i].words[0].text) || last?.kind !== 'note' || !last.marker?.numeric) return null;
  if (!isTerminated(last.rows[last.rows.length - 1].text)) return null;
  const before = Number(last.marker.marker);
  const after = lines
    .slice(i + 1)
    .map((r) => footMarker(r.words[0].text))
    .find((m) => m?.numeric);
  return after && Number(after.marker) === before + 2 ? { marker: String(before + 1), numeric: true, rest: '' } : null;
}

/**
 * The foot in pieces: runs of apparatus lines (a line between two of them belongs to the run), and footnotes. Each
 * note starts at a line beginning with a marker, after a finished line or set further right; the rest continue it.
 */
function splitFoot(rows: Row[], metrics: Metrics): (NoteItem | ApparatusItem)[] {
  const lines = rows.filter((r) => !isNoteRule(r, metrics));
  const apparatus = lines.map((r) => isApparatusLine(r.text));
  for (let i = 1; i + 1 < lines.length; i++) if (apparatus[i - 1] && apparatus[i + 1]) apparatus[i] = true;
  const foot: (NoteItem | ApparatusItem)[] = [];
  lines.forEach((row, i) => {
    const last = foot[foot.length - 1];
    if (apparatus[i]) {
      if (last?.kind === 'apparatus') last.rows.push(row);
      else foot.push({ kind: 'apparatus', rows: [row] });
      return;
    }
    const marker = footMarker(row.words[0].text) ?? missingMarker(lines, i, last);
    const prev = last?.kind === 'note' ? last.rows[last.rows.length - 1] : undefined;
    const startsNote =
      marker !== null && (!prev || isTerminated(prev.text) || row.x0 - prev.x0 > 0.5 * metrics.bodySize || prev.x1 < row.x1 - 2 * metrics.bodySize);
    if (last?.kind !== 'note' || startsNote) foot.push({ kind: 'note', marker: startsNote ? marker : null, rows: [row] });
    else last.rows.push(row);
  });
  return foot;
}

/** `c) Concret et universel`, `2. Sources`, `IV. La personne`, `§ 3`: the numbering of a subhead. */
const ENUMERATED = /^(?:(?:\p{L}|\d{1,3}|[IVXLC]{1,6})[).]\s+\p{L}|§\s*\d)/u;

/**
 * Headings, body lines and the foot (footnotes, apparatus) of one page (running rows already removed).
 * - Heading: a row set at least 1.2× the body size with space above it (or the page top), unless it is a long line
 *   filling the measure; a run of short rows in capitals or centred, set apart by space above and below (or the
 *   page's edge); one short row set apart that starts with a capital or a number and does not end like a
 *   sentence; a numbered subhead (`c) Concret et universel`) standing alone on its line between the end of a
 *   paragraph and the start of the next; or a short line starting with a capital and not ending like a sentence,
 *   flush left between a paragraph that ended short and one that starts indented (a subhead set in italics or bold,
 *   which OCR does not report). Rows of one size in a run make one heading.
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
    (hasLetter(r.text) && !/[-,;]$/u.test(r.text) && r.words.length <= 12 && ((isAllCaps(r.text) && r.x1 - r.x0 < 0.8 * width(r)) || centred(r)));
  const apartAbove = (i: number): boolean => i === 0 || isolatedBelow(content[i - 1], content[i], metrics);
  const endsParagraph = (r: Row): boolean => isTerminated(r.text) && margins(r.column).right - r.x1 > 2 * em;

  const isHeading = new Array<boolean>(content.length).fill(false);
  for (let i = 0; i < content.length;) {
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
  content.forEach((r, i) => {
    const next = content[i + 1];
    const prev = content[i - 1];
    // Less space is asked below than above: a title sits closer to the text it heads.
    const spaceBelow = !next || next.column !== r.column || extraSpace(r, next, metrics) > 0.25 * metrics.pitch;
    // A short line alone between spaces, starting like a title and not ending like a sentence (`3) Sources`).
    // One line only: a stanza of verse is several.
    const plain = r.words.length <= 12 && r.x1 - r.x0 < 0.7 * width(r) && /^[\p{Lu}\p{N}]/u.test(r.text) && !/[.!?…:;,-]$/u.test(r.text);
    if (plain && apartAbove(i) && spaceBelow) isHeading[i] = true;
    // A numbered subhead, often set in italics, on a line of its own between two paragraphs.
    const numbered = ENUMERATED.test(r.text) && r.words.length <= 12 && r.x1 - r.x0 < 0.9 * width(r) && !/[.!?…:;,-]$/u.test(r.text);
    const afterParagraph = apartAbove(i) || (prev !== undefined && endsParagraph(prev)) || isHeading[i - 1];
    const beforeParagraph = spaceBelow || (next !== undefined && indent(next) > 0.5 * em);
    if (numbered && afterParagraph && beforeParagraph) isHeading[i] = true;
    // A short line set in italics or bold alone between two paragraphs, without space: the paragraph before it
    // ended short, the one after it starts indented, and it ends like no sentence.
    const between =
      prev !== undefined && endsParagraph(prev) && next !== undefined && next.column === r.column && indent(next) > 0.5 * em && indent(r) < 0.5 * em;
    if (plain && r.words.length <= 8 && between) isHeading[i] = true;
  });

  const items: (HeadingItem | LineItem)[] = [];
  for (let i = 0; i < content.length; i++) {
    const row = content[i];
    const last = items[items.length - 1];
    if (isHeading[i]) {
      const sameHeading = last?.kind === 'heading' && isHeading[i - 1] && Math.abs(row.size / last.size - 1) < 0.12 && !apartAbove(i);
      if (sameHeading) last.rows.push(row);
      else items.push({ kind: 'heading', rows: [row], size: row.size, style: 0 });
      continue;
    }
    const indented = indent(row) > 0.5 * em;
    let startsParagraph = last?.kind === 'heading';
    if (last?.kind === 'line') {
      const prev = last.row;
      const shortEnd = endsParagraph(prev);
      const sameColumn = prev.column === row.column;
      startsParagraph = (sameColumn && apartAbove(i)) || (indented && row.x0 - prev.x0 > 0.5 * em) || (!sameColumn && indented) || shortEnd;
    }
    items.push({ kind: 'line', row, startsParagraph, indented });
  }
  for (const item of items) {
    if (item.kind !== 'heading') continue;
    item.size = Math.max(...item.rows.map((r) => r.size));
    const text = item.rows.map((r) => r.text).join(' ');
    item.style = (isAllCaps(text) ? 2 : 0) + (item.rows.every(centred) ? 1 : 0);
  }
  return { items, foot: splitFoot(rows.slice(notesStart), metrics) };
}

/**
 * Heading levels over the whole document, so headings of one rank share one level: sizes within 12% of each other
 * chain into one cluster, larger clusters first. Headings set at about the body's size have only their style to
 * tell their rank: among them, capitals and centring rank above capitals, above centring, above neither. The
 * first rank is `#`, the next `##`, everything below `###`.
 */
export function headingLevels(headings: { size: number; style: number }[], bodySize: number): (heading: { size: number; style: number }) => number {
  const sizes = [...new Set(headings.map((h) => h.size))].sort((a, b) => b - a);
  const cluster = new Map<number, number>();
  let rank = 0;
  sizes.forEach((size, i) => {
    if (i > 0 && size < 0.88 * sizes[i - 1]) rank++;
    cluster.set(size, rank);
  });
  const large = (size: number): boolean => size >= 1.15 * bodySize;
  const keyOf = (h: { size: number; style: number }): number => (cluster.get(h.size) ?? rank) * 4 + (large(h.size) ? 0 : 3 - h.style);
  const keys = [...new Set(headings.map(keyOf))].sort((a, b) => a - b);
  return (heading) => Math.min(3, keys.indexOf(keyOf(heading)) + 1 || 3);
}

/** A reference number as set in a margin: `124`, `(124)`, `[17a]`; the number itself. */
function referenceIn(text: string): string | null {
  const core = text.replace(/[\s.,;:()[\]|]/gu, '');
  return /^\d{1,4}[a-e]?$/u.test(core) ? core : null;
}

/**
 * The reference numbers among a page's margin lines, each with its row: the numbers of one margin that are not
 * counted in steps of five (those are line numbers, dropped with the other margin numbers).
 */
export function marginReferences(margin: Row[]): { row: Row; ref: string }[] {
  return (['left', 'right'] as const).flatMap((side) => {
    const numbers = margin.flatMap((row) => {
      const ref = row.column === side ? referenceIn(row.text) : null;
      return ref !== null ? [{ row, ref }] : [];
    });
    return numbers.length && !inStepsOfFive(numbers.map((n) => n.ref)) ? numbers : [];
  });
}

/**
 * The side notes among a page's margin lines: lines of text close together on one side make one note; margin
 * numbers (line numbers, verse numbers, bold reference numbers) are left out.
 */
export function sideNotes(margin: Row[]): Row[][] {
  const notes: Row[][] = [];
  for (const side of ['left', 'right'] as const) {
    let current: Row[] = [];
    for (const row of margin.filter((r) => r.column === side)) {
      if (isMarginNumber(row.text)) continue;
      const prev = current[current.length - 1];
      if (prev && row.baseline - prev.baseline > 1.8 * Math.max(prev.size, row.size)) {
        notes.push(current);
        current = [];
      }
      current.push(row);
    }
    if (current.length) notes.push(current);
  }
  return notes.sort((a, b) => a[0].top - b[0].top);
}
