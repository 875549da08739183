/**
 * Full stops read as commas, put right by the ink. On camera pages tesseract often reads a sentence's full stop as a
 * comma ("aux dispositions de Nicée, Le paragraphe…"): blur gives the dot a soft lower edge, and the LSTM's own
 * language model leans towards a comma inside a line. No dictionary can tell the two apart, but the page can: a
 * comma's tail hangs below the baseline, a full stop sits on it. So a word that ends in a comma is looked at on the
 * page image: when its last mark is a small dot whose bottom is on the baseline of the letters before it, the comma
 * becomes a full stop, recorded on the word as a `punctuation` correction. Where the threshold may have dropped a
 * small comma's faint tail, the grey page OCR read must agree: nothing of the mark reaches below the baseline. Anything unclear (the mark touches a
 * letter, the word has too few letters to find the baseline, a bracket or quote comes between) is left as read.
 */
import { cropGray, inkComponents, type GrayImage, type InkComponent } from '../../imaging/index.js';
import { pageWords, type OcrLine, type OcrPage, type OcrWord } from '../../project/index.js';
import { median } from '../../util/index.js';
import { baselineAt, pageXHeight } from './line-geometry.js';
import { changeWord } from './words.js';

/** The word's box is searched this far below its bottom (share of its height), where a comma's tail reaches. */
const BELOW_BOX = 0.35;
/** A full stop's bottom is within this share of the x-height of the letters' baseline (measured on real captures: full stops −0.07…0.08, commas 0.14 or more below). */
const ON_BASELINE = 0.1;
/**
 * …or up to this share above it: blur and the threshold round a small dot off at the bottom (measured on the
 * quality benchmark's blurred pages: misread full stops up to 0.15 above, and a comma's bottom never above the
 * baseline, 0.06 below at the least; a hyphen's is 0.35 above).
 */
const ABOVE_BASELINE = 0.2;
/** …and it is at most this tall, in x-heights (full stops measured 0.23–0.44; commas 0.41–0.76, but 0.14 or more below). */
const DOT_HEIGHT = 0.5;
/**
 * On the grey page the mark's faint edge (a quarter of its darkness) may end at most this far below the baseline
 * (x-heights). Measured: misread full stops −0.11…0.00 on real captures; commas whose tail the threshold dropped
 * 0.03…0.09 at an x-height of 10 camera pixels, and 0.11 or more where the tail is kept.
 */
const GREY_BELOW = 0.02;
/**
 * …and at least this wide and tall: the cut reaches past the word's box, where a speck may be the last ink. Lower
 * than a full stop's 0.23: the letters' height is a capital's when they have no small letter ("1. Il").
 */
const MIN_STOP = 0.1;
/** Past the word's box, a mark narrower or shorter than this share of the word's height is a speck. */
const SPECK = 0.1;
/** Right of the last word of a line, the search reaches this share of its height. */
const REACH_AT_LINE_END = 0.5;
/** Page pixels kept clear of the next word's box (the cut itself reaches 2 pixels past its own). */
const NEXT_WORD_MARGIN = 4;
/** A letter is a mark at least this share of the word box high; specks and accents are not letters. */
const LETTER_HEIGHT = 0.3;
/** Fewer letters than this and the baseline is a guess. */
const MIN_LETTERS = 2;

/** Only a comma straight after a letter or digit is looked at: "359," and "Nicée," but not "(12)," or "…,". */
const ENDS_IN_COMMA = /[\p{L}\p{N}],$/u;
/** …or after a closing guillemet or quote set apart ("vérité », Autrement"): its letters' line is the word's before it. */
const QUOTE_COMMA = /^[»”],$/u;
/**
 * A full stop ends a paragraph or comes before a capital (after any opening quote or bracket): "Nicée, Le" is
 * looked at, "taille, élégant" never is, whatever its ink (small type can lose a comma's tail in the threshold).
 */
const STARTS_SENTENCE = /^[\p{Ps}\p{Pi}«"'‘“]*\p{Lu}/u;
/** …or ends its line when the next starts a numbered item: the next footnote ("l. 16," then "3. Syn 14"). */
const STARTS_ITEM = /^\d{1,3}[.)]$/u;
/** A number and its comma alone: at a line's start, a numbered note or item ("1, Sa mère" for "1. Sa mère"). */
const NUMBER_COMMA = /^\d{1,3},$/u;
/** The word before a lone closing quote ends in a letter or digit (a note call glued to it, "vérité*", is ink too). */
const ENDS_IN_LETTER = /[\p{L}\p{N}][*¹²³⁴⁵⁶⁷⁸⁹⁰]?$/u;

/**
 * The words whose final comma may be a full stop, by their place alone: a comma straight after a letter or digit,
 * before a capital, at a paragraph's end, or at a line's end before a numbered item; not a word a person checked.
 * Only a page with some needs its images looked at.
 */
export function stopCandidates(page: OcrPage): OcrWord[] {
  return stopsToCheck(page).map((c) => c.word);
}

/**
 * The candidates of `stopCandidates`, each with the word whose letters give the line (itself, the word before a lone
 * quote, or after a note's number) and how far right of its box its last mark may lie (page pixels): up to the next
 * word of its line, or half its height at the line's end. The engine's box may end before the mark it read ("1," for
 * a note's "1.": the box holds the figure alone).
 */
function stopsToCheck(page: OcrPage): Array<{ word: OcrWord; letters: OcrWord; reach: number }> {
  const found: Array<{ word: OcrWord; letters: OcrWord; reach: number }> = [];
  for (const block of page.blocks) {
    for (const paragraph of block.paragraphs) {
      // The words of a paragraph in reading order: the word after may start the next line.
      const words = paragraph.lines.flatMap((l) => l.words);
      const lineEnds = new Set(paragraph.lines.map((l) => l.words[l.words.length - 1]));
      const lineStarts = new Set(paragraph.lines.map((l) => l.words[0]));
      words.forEach((word, i) => {
        const quote = QUOTE_COMMA.test(word.text) && i > 0 && ENDS_IN_LETTER.test(words[i - 1].text);
        if (word.edit || !(ENDS_IN_COMMA.test(word.text) || quote)) return;
        const next = words[i + 1];
        if (next && !STARTS_SENTENCE.test(next.text) && !(lineEnds.has(word) && STARTS_ITEM.test(next.text))) return;
        // A note's number starting its line ("1, Sa mère" for "1. Sa mère") has too few marks for a baseline: the
        // line is the next word's.
        const item = NUMBER_COMMA.test(word.text) && lineStarts.has(word) && next !== undefined && !lineStarts.has(next);
        // Short of the next word's box by a few pixels: its first letter must not be taken for the last mark.
        const reach =
          next && !lineStarts.has(next) ? Math.max(0, next.box.x0 - word.box.x1 - NEXT_WORD_MARGIN) : REACH_AT_LINE_END * (word.box.y1 - word.box.y0);
        found.push({ word, letters: quote ? words[i - 1] : item ? next : word, reach });
      });
    }
  }
  return found;
}

/**
 * Where the ink says so, turn the final comma of the page's words into a full stop. `image` is the page image the
 * result belongs to (0 ink … 255 paper; a bitonal page is best). Returns how many words were changed.
 */
export function correctStops(page: OcrPage, image: GrayImage, reading?: GrayImage): number {
  const scaleX = image.width / page.width;
  const scaleY = image.height / page.height;
  let changed = 0;
  for (const { word, letters, reach } of stopsToCheck(page)) {
    if (!endsInDot(word, letters, reach, image, scaleX, scaleY, reading)) continue;
    changeWord(word, `${word.text.slice(0, -1)}.`, { reason: 'punctuation', change: ',→.' });
    changed++;
  }
  return changed;
}

/**
 * Whether the word's last mark on the page is a dot sitting on the baseline of the letters of `lettersOf` (the word
 * itself, the word before a lone closing quote, or the word after a note's number).
 */
function endsInDot(word: OcrWord, lettersOf: OcrWord, reach: number, image: GrayImage, scaleX: number, scaleY: number, reading?: GrayImage): boolean {
  const cut = wordInk(word, image, scaleX, scaleY, 0, BELOW_BOX, reach);
  if (!cut) return false;
  const { box } = cut;
  // Not the word's: ink that starts below its box (the tops of the next line's letters) and, past the box, specks
  // and slivers (the next word's edge).
  const own = Math.ceil((word.box.x1 - word.box.x0) * scaleX) + 2;
  const marks = cut.marks.filter((c) => c.y < cut.height && (c.x < own || (c.width >= SPECK * cut.height && c.height >= SPECK * cut.height)));
  if (marks.length < 2) return false;
  const last = marks.reduce((a, c) => (right(c) > right(a) ? c : a));
  // The last mark must stand apart, right of every other mark's middle: not a piece of the last letter.
  if (marks.some((c) => c !== last && c.x + c.width / 2 >= last.x)) return false;
  // The letters' baseline and x-height, in this word's crop.
  let letters: InkComponent[];
  if (lettersOf === word) {
    if (marks.length <= MIN_LETTERS) return false;
    letters = marks.filter((c) => c !== last && c.height >= LETTER_HEIGHT * cut.height);
  } else {
    const before = wordInk(lettersOf, image, scaleX, scaleY);
    if (!before) return false;
    letters = before.marks.filter((c) => c.height >= LETTER_HEIGHT * before.height).map((c) => ({ ...c, y: c.y + before.box.y - box.y }));
  }
  if (letters.length < MIN_LETTERS) return false;
  const baseline = median(letters.map((c) => c.y + c.height));
  const xHeight = baseline - median(letters.map((c) => c.y));
  if (!(xHeight > 0)) return false;
  const below = (last.y + last.height - baseline) / xHeight;
  const dotSized = (n: number): boolean => n >= MIN_STOP * xHeight && n <= DOT_HEIGHT * xHeight;
  if (!(below >= -ABOVE_BASELINE && below <= ON_BASELINE && dotSized(last.height) && dotSized(last.width))) return false;
  if (!reading || reading.width !== image.width || reading.height !== image.height) return true;
  // The grey page keeps what the threshold may drop: a faint tail makes the mark's grey reach below the baseline
  // (the first row under the letters).
  const greyBottom = faintBottom(reading, box.x + last.x, box.x + last.x + last.width, box.y + last.y, box.y + last.y + last.height, box.y + box.height);
  return greyBottom - (box.y + baseline) <= GREY_BELOW * xHeight;
}

/**
 * The ink of a word's box on the page (reaching `below` times its height below it, where a comma's tail hangs,
 * `above` times it above, and `reach` page pixels right of it), with the cut it was found in, or undefined when off
 * the page.
 */
export function wordInk(
  word: OcrWord,
  image: GrayImage,
  scaleX: number,
  scaleY: number,
  above = 0,
  below = BELOW_BOX,
  reach = 0,
): { box: { x: number; y: number; width: number; height: number }; height: number; crop: GrayImage; marks: InkComponent[] } | undefined {
  const height = (word.box.y1 - word.box.y0) * scaleY;
  if (!(height >= 4)) return undefined;
  const up = Math.ceil(above * height);
  const box = {
    x: Math.floor(word.box.x0 * scaleX),
    y: Math.max(0, Math.floor(word.box.y0 * scaleY) - up),
    width: Math.ceil((word.box.x1 - word.box.x0 + reach) * scaleX) + 2,
    height: Math.ceil(height * (1 + below)) + up,
  };
  if (box.x >= image.width || box.y >= image.height) return undefined;
  const crop = cropGray(image, box);
  return { box, height, crop, marks: inkComponents(crop).filter((c) => c.area > 1) };
}

/**
 * The last row, from the mark down, where the darkest pixel of its columns (one more each side) is still a
 * quarter as dark as the mark itself is at its darkest: where even a faint tail ends.
 */
function faintBottom(grey: GrayImage, x0: number, x1: number, y0: number, y1: number, limit: number): number {
  const left = Math.max(0, x0 - 1);
  const right = Math.min(grey.width, x1 + 1);
  const darkest = (y: number): number => {
    let m = 255;
    for (let x = left; x < right; x++) m = Math.min(m, grey.data[y * grey.width + x]);
    return m;
  };
  let peak = 255;
  for (let y = y0; y < Math.min(y1, grey.height); y++) peak = Math.min(peak, darkest(y));
  const faint = 255 - (255 - peak) / 4;
  let y = Math.min(y1, grey.height) - 1;
  while (y + 1 < Math.min(limit, grey.height) && darkest(y + 1) < faint) y++;
  return y;
}

function right(c: InkComponent): number {
  return c.x + c.width;
}

/**
 * Full stops the engine left out at a line's end. A camera page's full stop is a few pixels wide, and at the end of a
 * line tesseract sometimes leaves it out of the line altogether ("the way" for "the way.": 8 of the 56 words and marks
 * misread on the quality benchmark's pages at an x-height of 8 px, 32 on all its pages). So a line's last word that ends in a
 * letter or digit, at a paragraph's end or before a capital, is looked at on the page image: when the last ink right
 * of its letters is a dot on the line's baseline, of a full stop's size and standing apart, the word gets its full
 * stop, recorded on it as a `punctuation` correction. On the quality benchmark's pages: 11 full
 * stops put back, none where the text has none. The grey page is not asked, unlike for commas: blur spreads a full
 * stop's faint edge 0.07–0.28 x-height below the engine's baseline, as far as a comma's.
 */

/** The window searched, in x-heights: back into the word's last letters, on past its box, above and below the baseline. */
const BACK = 0.6;
const ON = 1.0;
const UP = 1.2;
const DOWN = 0.6;
/** A full stop's size, in x-heights (at 8 px, measured 0.22–0.25; specks are smaller, letters larger). */
const MIN_DOT = 0.15;
const MAX_DOT = 0.5;
/** How far its bottom may be from the baseline, and from the ink before it, in x-heights. */
const DOT_ON_BASELINE = 0.15;
const MAX_GAP = 0.8;

/** A line's last word that may have lost its full stop: ending in a letter or digit, at a paragraph's end or before a capital. */
export function lineEndCandidates(page: OcrPage): Array<{ word: OcrWord; line: OcrLine }> {
  const found: Array<{ word: OcrWord; line: OcrLine }> = [];
  for (const block of page.blocks) {
    for (const paragraph of block.paragraphs) {
      paragraph.lines.forEach((line, i) => {
        const word = line.words[line.words.length - 1];
        if (!word || word.edit || !/[\p{L}\p{N}]$/u.test(word.text)) return;
        const next = paragraph.lines[i + 1]?.words[0];
        if (next && !STARTS_SENTENCE.test(next.text)) return;
        found.push({ word, line });
      });
    }
  }
  return found;
}

/**
 * Give a line's last word the full stop the ink shows after it (see above). `image` is the page image the result
 * belongs to (a bitonal page is best). Returns how many words were changed.
 */
export function restoreStops(page: OcrPage, image: GrayImage): number {
  const candidates = lineEndCandidates(page);
  const xHeight = candidates.length > 0 ? pageXHeight(page) : undefined;
  if (xHeight === undefined) return 0;
  const sx = image.width / page.width;
  const sy = image.height / page.height;
  let changed = 0;
  for (const { word, line } of candidates) {
    const baseline = baselineAt(line, word.box.x1);
    const box = {
      x: Math.max(0, Math.floor((word.box.x1 - BACK * xHeight) * sx)),
      y: Math.max(0, Math.floor((baseline - UP * xHeight) * sy)),
      width: Math.ceil((BACK + ON) * xHeight * sx),
      height: Math.ceil((UP + DOWN) * xHeight * sy),
    };
    if (box.x >= image.width || box.y >= image.height) continue;
    const marks = inkComponents(cropGray(image, box)).filter((c) => c.area > 1);
    if (!lastDot(marks, baseline * sy - box.y, xHeight * sy)) continue;
    changeWord(word, `${word.text}.`, { reason: 'punctuation', change: '→.' });
    changed++;
  }
  return changed;
}

/** The last mark of the window when it is a full stop after the word's letters: on the baseline, dot-sized, apart. */
function lastDot(marks: InkComponent[], baseline: number, xHeight: number): InkComponent | undefined {
  if (marks.length < 2) return undefined;
  const last = marks.reduce((a, c) => (right(c) > right(a) ? c : a));
  const before = marks.filter((c) => c !== last);
  // Apart from the letters: every other mark ends before it starts, not much before.
  const gap = last.x - Math.max(...before.map(right));
  if (gap < 0 || gap > MAX_GAP * xHeight) return undefined;
  if (Math.abs(last.y + last.height - baseline) > DOT_ON_BASELINE * xHeight) return undefined;
  const size = (n: number): boolean => n >= MIN_DOT * xHeight && n <= MAX_DOT * xHeight;
  return size(last.width) && size(last.height) ? last : undefined;
}

/** A colon after a word or alone (French sets it apart): the semicolons the engine reads as colons are among them. */
const ENDS_IN_COLON = /(?:^|[\p{L}\p{N}»)])[:]$/u;
/**
 * A semicolon's lower mark is a comma, taller than the dot above it; a colon's two dots are alike. Measured on the
 * quality benchmark's pages: semicolons 1.3–2.6 times the dot's height (the lowest at an x-height of 10 camera px),
 * colons 0.8–1.0.
 */
const COMMA_UNDER_DOT = 1.3;
/** The colon's box is searched this far above its top (share of its height). */
const ABOVE_BOX = 0.15;

/** The words that end in a colon which may be a semicolon misread; not a word a person checked. */
export function colonCandidates(page: OcrPage): OcrWord[] {
  return pageWords(page).filter((word) => !word.edit && ENDS_IN_COLON.test(word.text));
}

/**
 * Where the ink shows a comma under the dot, turn the colon ending a word (or standing alone) into the semicolon the
 * page prints. `image` is the page image the result belongs to (a bitonal page is best). Returns how many changed.
 */
export function correctColons(page: OcrPage, image: GrayImage): number {
  const scaleX = image.width / page.width;
  const scaleY = image.height / page.height;
  let changed = 0;
  for (const word of colonCandidates(page)) {
    if (!endsInSemicolon(word, image, scaleX, scaleY)) continue;
    changeWord(word, `${word.text.slice(0, -1)};`, { reason: 'punctuation', change: ':→;' });
    changed++;
  }
  return changed;
}

/** Whether the word's last marks are a dot over a taller mark: a semicolon. */
function endsInSemicolon(word: OcrWord, image: GrayImage, scaleX: number, scaleY: number): boolean {
  // Some paper above the box too: a dot cut at its top would look smaller than the mark under it.
  const cut = wordInk(word, image, scaleX, scaleY, ABOVE_BOX);
  if (!cut || cut.marks.length < 2) return false;
  const { height, marks } = cut;
  const last = marks.reduce((a, c) => (right(c) > right(a) ? c : a));
  // The column of the last mark: the marks it overlaps across; exactly two, one above the other.
  const column = marks.filter((c) => c.x < right(last) && right(c) > last.x).sort((a, b) => a.y - b.y);
  if (column.length !== 2) return false;
  const [dot, under] = column;
  if (dot.y + dot.height > under.y) return false;
  // Both narrow: punctuation, not a letter beside a dot.
  if (Math.max(dot.width, under.width) > 0.6 * height || dot.width > 2 * dot.height) return false;
  return under.height >= COMMA_UNDER_DOT * dot.height;
}
