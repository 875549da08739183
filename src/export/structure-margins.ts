/**
 * The document's structure, its margins: side notes, line numbers and reference numbers standing beside the text block,
 * set apart from it before reading order is decided, so that they never enter a sentence.
 */
import { ASCENT_TALL, DESCENT, median } from '../util/index.js';
import { type Line, lineOf, quantile, type Word } from './structure-lines.js';

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
export function separateMargins(lines: Line[]): { body: Line[]; margin: { left: Line[]; right: Line[] } } {
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
