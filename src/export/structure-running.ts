/**
 * The document's structure, step 2: running heads, running feet and page numbers, found by their look (a short line
 * at the top, a page number standing off, small capitals) and confirmed by recurrence across pages (OCR reads them a
 * little differently on every page), dropped from the text and kept as what they say about each page: its printed
 * number (folio) and its running head. Titles are never dropped, however often they repeat.
 */
import { median } from '../util/index.js';
import { isolatedBelow, isTall, type Metrics, type Row } from './structure-rows.js';
import { hasLetter, isAllCaps, isPageNumberText, isRomanNumeral, runningKey } from './structure-text.js';
import { editDistance } from '../util/index.js';

/** A page number stands this far (in ems) from the title in a running head. */
const RUNNING_NUMBER_GAP = 2;
/** Running heads repeat on nearby pages: look this many pages either side. */
const RUNNING_WINDOW = 4;
/** Page numbers in sequence are looked for this many pages either side. */
const FOLIO_WINDOW = 6;
/** A line set this much larger than the body is a title, never a running head. */
const TITLE_SIZE = 1.08;
/** A chapter opens this far down its page (in pitches) below where the other pages' text starts. */
const SINK_PITCHES = 2.5;
/** …or, whatever the other pages do, this far down the page (a fraction of its height). */
const SINK_PAGE = 0.15;
/** A running head is set smaller than this (in body sizes) when it is told by its size alone… */
const HEAD_SMALL = 0.9;
/** …on a capture of this many pages or fewer: on longer ones its recurrence says it (a small-capitals subhead stays). */
const SHORT_CAPTURE = 4;

/** What a page's running head and page number say about it. */
export interface PageFurniture {
  /**
   * The page number printed on the page (`305`, `xiv`), as read when it fits the sequence of the other pages, or
   * inferred between the two nearest pages whose printed numbers agree with their distance (a chapter's first page
   * often has none printed).
   */
  folio?: string;
  /** The running head's words, its page number left out (`L'UNITÉ DE LA TRINITÉ`). */
  runningHead?: string;
}

/** Rows to drop, and what they said about each page. */
export interface RunningRows {
  running: Set<Row>;
  furniture: PageFurniture[];
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

/** Letters OCR reads for digits in a page number (`l44`, `S78`, `1O2`). */
const DIGIT_LOOKALIKES: Record<string, string> = { l: '1', I: '1', i: '1', '!': '1', O: '0', o: '0', S: '5', s: '5', B: '8', Z: '2', z: '2' };

/**
 * A page number as a number: its digits, decorations around them left out (`[305]`, `- 17 -`, `305.`), and letters OCR
 * reads for digits taken as those digits when at least one real digit is there (`l44` is 144, `S78` is 578). Null for
 * anything else (`1-2` is a range, not a page number).
 */
function numberIn(text: string): number | null {
  const core = text.replace(/^[-–—.·•()[\]|]+|[-–—.·•()[\]|]+$/gu, '');
  if (!/^[\dlIi!OoSsBZz]{1,4}$/u.test(core) || !/\d/u.test(core)) return null;
  return Number([...core].map((ch) => DIGIT_LOOKALIKES[ch] ?? ch).join(''));
}

/** The number at either end of a row (`304 L'UNITÉ …`, `… SYNODES 305`), with the word it is. */
function endNumbers(row: Row): { value: number; word: number }[] {
  const found: { value: number; word: number }[] = [];
  const first = numberIn(row.words[0].text);
  if (first !== null) found.push({ value: first, word: 0 });
  const lastIndex = row.words.length - 1;
  const last = lastIndex > 0 ? numberIn(row.words[lastIndex].text) : null;
  if (last !== null) found.push({ value: last, word: lastIndex });
  return found;
}

/** The word at one end of a row stands off from the rest by more than an em, as a page number does. */
function standsOff(row: Row, word: number): boolean {
  const { words } = row;
  if (words.length < 2) return false;
  const [a, b] = word === 0 ? [words[0], words[1]] : [words[word - 1], words[word]];
  return b.x0 - a.x1 > row.size;
}

/**
 * The word at one end of a row stands off from the rest, by more than an em and twice the row's usual space: a page
 * number beside its running head, not the last word of a loosely justified line.
 */
function setOff(row: Row, word: number): boolean {
  const { words } = row;
  if (!standsOff(row, word) || words.length < 2) return false;
  const gaps = words.slice(1).map((w, k) => w.x0 - words[k].x1);
  const end = word === 0 ? gaps.shift() : gaps.pop();
  return gaps.length === 0 || (end as number) > 2 * median(gaps);
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
 * Running heads, running feet and page numbers, to be dropped, and each page's printed number and running head.
 * Looks at the first two and last two rows of each page (the second only when the first is running). A title (set
 * larger than the body, or opening a chapter below white space) is never running. Otherwise a row is running when it
 * is
 * - a lone page number (arabic or roman, decorations allowed) not set larger than a heading;
 * - a short row with a number standing off at one end that follows the sequence of the numbers at the same place
 *   on nearby pages (page 3 says 304, page 5 says 306);
 * - or, not set large, text whose letters (digits ignored) are the book title (`title`), or a heading set large
 *   elsewhere in the document (the chapter title repeated at the top of its pages); when set apart (or crowded, as
 *   below), also text nearly the same;
 * - or short text set apart (or a page's first row narrower than the text block or with a word standing off at one
 *   end), repeated at that edge of another
 *   page up to four pages away (digits ignored; equal, one inside the other, or a fifth of the letters different,
 *   as OCR reads the same head a little differently);
 *   the first of them is kept when it is set larger than the others, or when its page has no page number at that
 *   edge while the others do (the chapter's own title on its first page);
 * - or, at the top and set apart from the text below (or crowded), a short line with a page number far from its
 *   other words;
 * - or, by its look alone (a head too few or too garbled to recur), the page's first row, short, set apart or
 *   crowded, with a page number set off at one end, or set small in capitals on a capture of four pages or fewer;
 * - or, when most pages carry a running head, a page's short first row set apart with a number standing off at
 *   one end (a head the OCR garbled beyond recognition).
 */
export function findRunningRows(pages: Row[][], metrics: Metrics, title?: string, pageHeights: number[] = []): RunningRows {
  const titleKey = title ? runningKey(title) : '';
  // Where the text starts on most pages: a chapter's first page starts lower, below white space.
  const firstTops = pages.flatMap((rows) => (rows.length ? [rows[0].top] : []));
  /**
   * A title, never a running head however often it repeats: text set larger than the body, or a page's first row
   * opening a chapter with white space above it (well below where the other pages start, or low on its page).
   */
  const isTitle = (row: Row): boolean => {
    if (!hasLetter(row.text) || isPageNumberText(row.text)) return false;
    if (row.size >= TITLE_SIZE * metrics.bodySize) return true;
    if (row !== pages[row.page][0]) return false;
    const others = firstTops.filter((_, p) => p !== row.page);
    const height = pageHeights[row.page];
    return (others.length > 0 && row.top - median(others) > SINK_PITCHES * metrics.pitch) || (height !== undefined && row.top > SINK_PAGE * height);
  };
  const tallKeys = new Set(
    pages
      .flat()
      .filter((r) => isTall(r, metrics) && !isPageNumberText(r.text))
      .map((r) => runningKey(r.text)),
  );
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

  // Numbers at the ends of each page's edge rows: the candidates for its printed number.
  const numbersAt = pages.map((rows) => {
    const { top, bottom } = edges(rows);
    return [...top.map((row) => ({ row, edge: 'top' as const })), ...bottom.map((row) => ({ row, edge: 'bottom' as const }))].flatMap(({ row, edge }) =>
      row.words.length <= 12 ? endNumbers(row).map((n) => ({ ...n, row, edge })) : [],
    );
  });
  /** Another page nearby has a number at the same edge that differs from this one by the distance between the pages. */
  const inSequence = (row: Row, value: number, edge: 'top' | 'bottom'): boolean => {
    for (let p = Math.max(0, row.page - FOLIO_WINDOW); p <= Math.min(pages.length - 1, row.page + FOLIO_WINDOW); p++) {
      if (p !== row.page && numbersAt[p].some((n) => n.edge === edge && n.value - value === p - row.page)) return true;
    }
    return false;
  };

  // A page number at either end of one of the page's top or bottom rows.
  const numberedEdge = (row: Row, edge: 'top' | 'bottom'): boolean => edges(pages[row.page])[edge].some((r) => /^\d{1,4}\b|\b\d{1,4}$/u.test(r.text));
  // Chapter titles kept on their first page: no later rule takes them for a head.
  const titles = new Set<Row>();
  const keptFirst = (row: Row, group: Row[], edge: 'top' | 'bottom'): boolean => {
    if (group[0] !== row) return false;
    const others = group.slice(1);
    const usualSize = others.map((r) => r.size).sort((a, b) => a - b)[others.length >> 1];
    const numbered = others.filter((r) => numberedEdge(r, edge)).length;
    const kept = row.size >= 1.15 * usualSize || (!numberedEdge(row, edge) && numbered * 2 >= others.length);
    if (kept) titles.add(row);
    return kept;
  };

  /**
   * A running head by its look alone, for heads too few or too garbled to recur: a short line at the top of the page
   * (above all its other rows) with a page number set off at one end, or, on a short capture, set small in capitals.
   */
  const looksLikeHead = (row: Row, edge: 'top' | 'bottom'): boolean => {
    if (edge !== 'top' || row.words.length > 12 || row !== pages[row.page].find((r) => r.column === row.column || r.column === 'full')) return false;
    if (endNumbers(row).some((n) => setOff(row, n.word))) return true;
    return pages.length <= SHORT_CAPTURE && row.size < HEAD_SMALL * metrics.bodySize && isAllCaps(row.text);
  };

  const narrow = (row: Row): boolean => {
    const widths = pages[row.page].map((r) => r.x1 - r.x0);
    return row.x1 - row.x0 < 0.7 * median(widths);
  };
  const apartFrom = (row: Row, edge: 'top' | 'bottom', neighbour: Row | undefined): boolean =>
    !neighbour || (edge === 'top' ? isolatedBelow(row, neighbour, metrics) : isolatedBelow(neighbour, row, metrics));

  const isRunning = (row: Row, edge: 'top' | 'bottom', neighbour: Row | undefined): boolean => {
    const apart = apartFrom(row, edge, neighbour);
    if (isPageNumberText(row.text)) {
      // A roman numeral may be a chapter number: only when set apart and not larger than the text.
      return isRomanNumeral(row.text) ? apart && row.size < 1.15 * metrics.bodySize : row.size < 1.3 * metrics.bodySize;
    }
    if (isTall(row, metrics) || isTitle(row)) return false;
    if (row.words.length <= 12 && endNumbers(row).some((n) => standsOff(row, n.word) && inSequence(row, n.value, edge))) return true;
    const key = runningKey(row.text);
    // A head the text below crowds: the page's first row, narrower than the text or with a word standing off at one
    // end (its page number).
    const crowded = edge === 'top' && row === pages[row.page][0] && (narrow(row) || standsOff(row, 0) || standsOff(row, row.words.length - 1));
    if (key.length >= 2 && (apart || crowded) && looksLikeHead(row, edge)) return true;
    if (key.length >= 2) {
      if (key === titleKey || tallKeys.has(key)) return true;
      // Read a little differently by the OCR: only when set like a running head.
      if ((apart || crowded) && [titleKey, ...tallKeys].some((k) => similarKeys(key, k))) return true;
      // Repeated body lines are not running heads: those are short, and set apart or crowded as above.
      const group = (apart || crowded) && row.words.length <= 12 ? repeats(row, edge) : [];
      if (group.length >= 2 && !keptFirst(row, group, edge)) return true;
    }
    return edge === 'top' && (apart || crowded) && hasPageNumberAtEnd(row);
  };

  const running = new Set<Row>();
  for (const rows of pages) {
    for (let i = 0; i < Math.min(2, rows.length) && isRunning(rows[i], 'top', rows[i + 1]); i++) running.add(rows[i]);
    for (let i = rows.length - 1; i >= Math.max(0, rows.length - 2) && !running.has(rows[i]) && isRunning(rows[i], 'bottom', rows[i - 1]); i--) {
      running.add(rows[i]);
    }
  }

  // Most pages carry a head: a short first row set apart with a number standing off at one end is one too, however
  // garbled its words (a chapter's `CHAPTER 3` sets its number a word space away).
  const headed = pages.filter((rows) => rows.length > 0 && running.has(rows[0])).length;
  if (pages.length >= 3 && headed >= 0.6 * pages.length) {
    for (const rows of pages) {
      const [first, next] = rows;
      if (!first || running.has(first) || titles.has(first) || !next || isTall(first, metrics) || isTitle(first) || first.words.length > 10) continue;
      const numbered = endNumbers(first).some((n) => standsOff(first, n.word));
      if (numbered && apartFrom(first, 'top', next) && narrow(first)) running.add(first);
    }
  }
  return { running, furniture: pageFurniture(pages, running, numbersAt, title !== undefined ? pageRangeIn(title) : null) };
}

/** The pages a capture says it holds, first and last as printed. */
export interface PageRange {
  first: number;
  last: number;
}

/**
 * The page range a capture's name gives (the bundle's project name or its file name): `Confessions, pp. 576-579`,
 * `confessions-pp576-579`, `p. 576`, `pages 576–79` (the last number shortened as in a citation). Null when it names
 * none.
 */
export function pageRangeIn(name: string): PageRange | null {
  const m = /(?:^|[^\p{L}])(?:pp?|pages?)\.?\s*(\d{1,4})(?:\s*[-–—_]\s*(\d{1,4}))?(?!\d)/iu.exec(name);
  if (!m) return null;
  const first = Number(m[1]);
  const tail = m[2] ?? m[1];
  const last = Number(m[1].slice(0, Math.max(0, m[1].length - tail.length)) + tail);
  return first > 0 && last >= first ? { first, last } : null;
}

/**
 * Page numbers checked against the capture's own page range: one read outside it and one digit away from a single
 * number inside it is that number (`516` in pp. 576-579 is 576); and when the range holds as many pages as the
 * capture and a page's number read agrees with it, a page where none was read takes the number the range gives.
 */
function mendFromRange(numbers: (number | null)[], range: PageRange | null): (number | null)[] {
  if (!range) return numbers;
  const { first, last } = range;
  const mended = numbers.map((n) => {
    // A one-digit number shares no digit with another: nothing says it was misread.
    if (n === null || n < 10 || (n >= first && n <= last)) return n;
    const near: number[] = [];
    for (let k = first; k <= last && near.length < 2; k++) if (oneDigitApart(n, k)) near.push(k);
    return near.length === 1 ? near[0] : n;
  });
  const fits = last - first + 1 === numbers.length && mended.some((n, p) => n === first + p);
  return fits ? mended.map((n, p) => n ?? first + p) : mended;
}

/** Each page's printed number (read, checked against the sequence and the capture's page range, inferred between agreeing pages) and running head. */
function pageFurniture(pages: Row[][], running: Set<Row>, numbersAt: { value: number; word: number; row: Row }[][], range: PageRange | null): PageFurniture[] {
  const read = pages.map((rows, p) => {
    const heads = rows.filter((r) => running.has(r));
    const lone = heads.find((r) => isPageNumberText(r.text));
    const numbered = numbersAt[p].find((n) => running.has(n.row) && !isPageNumberText(n.row.text));
    const folio = lone ? lone.text.replace(/[\s\-–—.·•()[\]|]/gu, '') : numbered ? String(numbered.value) : undefined;
    const words = heads
      .filter((r) => !isPageNumberText(r.text))
      .map((r) =>
        r.words
          .filter((_, k) => !(numbered && numbered.row === r && numbered.word === k))
          .map((w) => w.text)
          .join(' '),
      )
      .filter((t) => t !== '');
    return { folio, runningHead: words.length ? words.join(' ') : undefined };
  });
  const arabic = mendFromNeighbours(
    mendFromRange(
      read.map((r) => (r.folio !== undefined ? numberIn(r.folio) : null)),
      range,
    ),
  );
  // A number is misread when it breaks the order of its neighbours' numbers, or when those two agree with the
  // pages between them and it does not. Pages may be missing from a capture: numbers further apart are fine.
  const misread = (p: number): boolean => {
    const n = arabic[p] as number;
    const a = arabic.slice(0, p).findLastIndex((m) => m !== null);
    const bOffset = arabic.slice(p + 1).findIndex((m) => m !== null);
    const b = bOffset < 0 ? -1 : p + 1 + bOffset;
    const [fa, fb] = [arabic[a] as number, arabic[b] as number];
    if ((a >= 0 && n <= fa) || (b >= 0 && n >= fb)) return true;
    return a >= 0 && b >= 0 && fb - fa === b - a && n !== fa + (p - a);
  };
  const valid = arabic.map((n, p) => (n !== null && !misread(p) ? n : null));
  const known = valid.flatMap((n, p) => (n !== null ? [p] : []));
  return read.map((r, p) => {
    let folio = valid[p] !== null ? String(valid[p]) : arabic[p] === null ? r.folio : undefined;
    if (folio === undefined) {
      // Between two pages whose numbers agree with the pages between them (a chapter's first page often prints
      // none). Not beyond the first or last number read: the capture may skip pages or join two books.
      const before = known.filter((q) => q < p).pop();
      const after = known.find((q) => q > p);
      if (before !== undefined && after !== undefined && (valid[after] as number) - (valid[before] as number) === after - before) {
        folio = String((valid[before] as number) + (p - before));
      }
    }
    // A folio OCR read with letters for digits (`l44`) is left out of the running head once the sequence gives it.
    const misread = (word: string | undefined): boolean =>
      folio !== undefined && word !== undefined && word.replace(/[lIi|]/gu, '1').replace(/[oO]/gu, '0') === folio;
    const words = r.runningHead?.split(' ') ?? [];
    const head = words.filter((w, k) => !((k === 0 || k === words.length - 1) && words.length > 1 && misread(w))).join(' ');
    return { ...(folio !== undefined ? { folio } : {}), ...(head !== '' ? { runningHead: head } : {}) };
  });
}

/**
 * Page numbers one misread digit away from what their neighbours say (`516` before 577 and 578, which agree with
 * their distance): consecutive pages have consecutive numbers, so the number is the one the sequence gives. Looks
 * at the two nearest read numbers on either side, so the first and last pages of a capture are mended too.
 */
function mendFromNeighbours(numbers: (number | null)[]): (number | null)[] {
  const read = numbers.flatMap((n, p) => (n !== null ? [p] : []));
  return numbers.map((n, p) => {
    if (n === null) return n;
    const after = read.filter((q) => q > p).slice(0, 2);
    const before = read.filter((q) => q < p).slice(-2);
    for (const [b, c] of [after, before.reverse()]) {
      if (b === undefined || c === undefined) continue;
      const [nb, nc] = [numbers[b] as number, numbers[c] as number];
      const expected = nb - (b - p);
      if (nc - nb === c - b && expected > 0 && oneDigitApart(n, expected)) return expected;
    }
    return n;
  });
}

/** Two numbers of the same length that differ in one digit (`516`, `576`). */
function oneDigitApart(a: number, b: number): boolean {
  const [x, y] = [String(a), String(b)];
  return x.length === y.length && [...x].filter((ch, k) => ch !== y[k]).length === 1;
}
