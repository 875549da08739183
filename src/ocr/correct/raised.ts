/**
 * Note calls the engine dropped. A call is a small raised figure glued to a word ("vérité³", "simulation⁹."); in a
 * camera capture it is a few pixels high, and the engine often leaves it out of its reading ("simulation."), reads it
 * as a letter ("contradiction⁸" → "contradictions") or as a mark ("revirement⁷" → "revirement”"). The note then
 * cannot be linked where it is called. So the correction step looks at the ink at each word's end for a mark that
 * stands clear above the baseline with nothing beneath it — a figure set as a superscript, not an accent, a dot or a
 * letter's ascender — or, touching the last letter, stands out of its right side, and has the engine read that mark
 * alone. Digits read there are kept on the word as `raised`: the structure step links a note that has no call to
 * them. The text changes only where the engine read the call as a star or a quote (`callInText`).
 */
import { connectedComponents, cropGray, histogram, otsuThreshold, type GrayImage } from '../../imaging/index.js';
import type { OcrBox, OcrPage, OcrWord } from '../../project/index.js';
import { superscriptDigits } from '../../util/index.js';
import { baselineAt, pageXHeight } from './line-geometry.js';
import { changeWord } from './words.js';

/** A raised mark at a word's end: the word (`pageWords` order) and the mark's ink alone, on white, to be read. */
export interface RaisedMark {
  index: number;
  image: GrayImage;
}

/** A raised mark's bottom stands at least this share of the x-height above the baseline (a superscript's is about half). */
const RAISED = 0.3;
/** Its height, in x-heights: a figure, not a dot, nor a letter of the line. */
const MIN_HEIGHT = 0.4;
const MAX_HEIGHT = 1.2;
/** The part of the word searched, and beyond it before the next word, in x-heights. */
const REACH_IN = 2.0;
const REACH_OUT = 0.8;

/**
 * The raised marks at the ends of a page's words, each cut out on its own, magnified for reading. `image` is the
 * image the engine read (its size may differ from the page's: boxes are scaled). Words that already end in digits
 * read as such are left out, and with `quotes` (a document whose quotations close with ” or ’, not guillemets) the
 * words that end in a quote.
 */
export function raisedMarks(page: OcrPage, image: GrayImage, options: { quotes: boolean }): RaisedMark[] {
  if (!pageHasNotes(page)) return [];
  const xHeight = pageXHeight(page);
  if (xHeight === undefined) return [];
  const sx = image.width / page.width;
  const sy = image.height / page.height;
  const found: RaisedMark[] = [];
  let index = 0;
  for (const block of page.blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        line.words.forEach((word, k) => {
          const at = index++;
          if (!/\p{L}/u.test(word.text) || /[\d⁰¹²³⁴⁵⁶⁷⁸⁹][.,;:!?»”"’)\]]*$/u.test(word.text)) return;
          // Where quotations close with ” or ’, the raised mark after such a word is its quote.
          if (options.quotes && /[”"’'][.,;:!?)\]]*$/u.test(word.text)) return;
          const next = line.words[k + 1];
          const x0 = Math.max(word.box.x0, word.box.x1 - REACH_IN * xHeight);
          const x1 = Math.max(word.box.x1, Math.min(next ? next.box.x0 : Infinity, word.box.x1 + REACH_OUT * xHeight));
          const baseline = baselineAt(line, word.box.x1);
          const box = { x0, y0: baseline - 2 * xHeight, x1, y1: baseline };
          const mark = raisedIn(image, { x0: box.x0 * sx, y0: box.y0 * sy, x1: box.x1 * sx, y1: box.y1 * sy }, xHeight * sy);
          if (mark) found.push({ index: at, image: mark });
        });
      }
    }
  }
  return found;
}

/**
 * Whether the page has footnotes to call: a line in its lower half that starts with a number (`2 Syn 13, 5`, `9.`,
 * `¹`). A page without has no call to look for (the search costs about 25 ms a page).
 */
export function pageHasNotes(page: OcrPage): boolean {
  for (const block of page.blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const first = line.words[0];
        if (first && line.box.y0 > page.height / 2 && /^(?:\d{1,3}[.)]?|[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})(?:$|\.\p{L})/u.test(first.text)) return true;
      }
    }
  }
  return false;
}

/**
 * In a window whose bottom is the baseline: the raised marks (ink standing clear of the baseline, of a figure's
 * height, with no ink beneath it — an accent or a dot has its letter there), or else the part of the last letter's
 * ink that stands out of its right side clear of the baseline, when they are the last ink of the word but for small
 * punctuation; cut out alone on white, at its own size (magnified three times, "7" and "3" read "1"). Undefined
 * when there is none.
 */
function raisedIn(image: GrayImage, box: OcrBox, xHeight: number): GrayImage | undefined {
  const window = cropGray(image, { x: box.x0, y: box.y0, width: box.x1 - box.x0, height: box.y1 - box.y0 });
  const { width, height, data } = window;
  if (width < 2 || height < 2 || xHeight < 4) return undefined;
  const threshold = otsuThreshold(histogram(data));
  const ink = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) ink[i] = data[i] <= threshold ? 1 : 0;
  const { labels, components } = connectedComponents({ width, height, data: ink });
  const clear = height - RAISED * xHeight;
  const raised = components.map((c) => {
    const bottom = c.y + c.height;
    if (bottom > clear || c.height < MIN_HEIGHT * xHeight || c.height > MAX_HEIGHT * xHeight || c.width > 1.5 * xHeight) return false;
    if (c.y === 0 || c.x === 0) return false;
    // Nothing beneath it near the baseline, where an accent's or a dot's letter is.
    for (let y = Math.round(clear); y < height - 0.1 * xHeight; y++) for (let x = c.x; x < c.x + c.width; x++) if (ink[y * width + x]) return false;
    return true;
  });
  // A letter: ink reaching the baseline, not a full stop, a bracket or a quote.
  const letter = (c: (typeof components)[number]): boolean => c.height > 0.6 * xHeight && c.width > 0.45 * xHeight;
  let keep: (x: number, y: number, label: number) => boolean;
  let left: number;
  let right: number;
  if (raised.some(Boolean)) {
    // A figure broken in two by the threshold: its smaller piece, raised too and under or over it, is part of it.
    const figures = components.filter((_, k) => raised[k]);
    components.forEach((c, k) => {
      if (raised[k] || c.y === 0 || c.y + c.height > clear) return;
      if (figures.some((f) => c.x < f.x + f.width && f.x < c.x + c.width)) raised[k] = true;
    });
    const marks = components.filter((_, k) => raised[k]);
    left = Math.min(...marks.map((c) => c.x));
    right = Math.max(...marks.map((c) => c.x + c.width));
    keep = (_x, _y, label) => raised[label - 1];
  } else {
    // A figure touching the word's last letter ("ς²" in italic Greek): the columns at that letter's right whose ink
    // all stands clear of the baseline, when they are as wide and as tall as a figure.
    const last = components.filter((c) => letter(c) && c.width >= 0.5 * xHeight && c.y + c.height > clear).sort((a, b) => b.x + b.width - (a.x + a.width))[0];
    if (!last) return undefined;
    const label = components.indexOf(last) + 1;
    right = last.x + last.width;
    left = right;
    let top = height;
    let bottom = 0;
    for (let x = right - 1; x > last.x; x--) {
      let lowest = -1;
      let highest = height;
      for (let y = 0; y < height; y++) {
        if (labels[y * width + x] !== label) continue;
        lowest = y;
        if (highest === height) highest = y;
      }
      if (lowest < 0 || lowest >= clear) break;
      left = x;
      top = Math.min(top, highest);
      bottom = Math.max(bottom, lowest + 1);
    }
    if (right - left < 0.35 * xHeight || bottom - top < MIN_HEIGHT * xHeight || left === last.x + 1) return undefined;
    keep = (x, _y, l) => l === label && x >= left;
  }
  // Last of the word: no letter on the baseline after the mark begins (a full stop, a bracket, a quote may follow).
  if (components.some((c, k) => !raised[k] && c.x > left && letter(c))) return undefined;
  let top = height;
  let bottom = 0;
  for (let y = 0; y < height; y++) {
    for (let x = left; x < right; x++) {
      const label = labels[y * width + x];
      if (label !== 0 && keep(x, y, label)) {
        top = Math.min(top, y);
        bottom = Math.max(bottom, y + 1);
      }
    }
  }
  const pad = Math.round(0.4 * xHeight);
  const w = right - left + 2 * pad;
  const h = bottom - top + 2 * pad;
  const out = new Uint8Array(w * h).fill(255);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const sx = left - pad + x;
      const sy = top - pad + y;
      if (sx < 0 || sy < 0 || sx >= width || sy >= height) continue;
      const label = labels[sy * width + sx];
      if (label !== 0 && keep(sx, sy, label)) out[y * w + x] = data[sy * width + sx];
    }
  }
  return { width: w, height: h, data: out };
}

/** The call a raised mark's reading gives: one to three digits alone (a letter, a quote, an apostrophe are none). */
export function readCall(again: readonly string[]): string | undefined {
  if (again.length !== 1) return undefined;
  // Compatibility form: superscript figures ("¹²") as plain digits.
  const digits = again[0].normalize('NFKC');
  return /^\d{1,3}$/u.test(digits) ? digits : undefined;
}

/**
 * A word that ends, after its letters, in a star or a closing quote (then its punctuation): where a call was found
 * in the ink, that mark is the call as the engine read it ("vérité*", "revirement”."). Only such words are searched
 * where quotations close with ” or ’ (see `raisedMarks`), so the quote is not the book's own.
 */
const MARK_FOR_CALL = /^(.*\p{L})([*"”’'])([.,;:)\]]*)$/u;

/**
 * Put a call read in the ink into the word's text when the engine read it as a mark ("vérité*" → "vérité³"), so the
 * PDF's text and plain exports show the call; recorded as a `note-call` correction. A word without such a mark (the
 * call dropped, or read as a letter) keeps its text, the call only in `raised`. True when the text changed.
 */
export function callInText(word: OcrWord, call: string): boolean {
  const parts = MARK_FOR_CALL.exec(word.text);
  if (!parts || word.edit) return false;
  const figures = superscriptDigits(call);
  changeWord(word, `${parts[1]}${figures}${parts[3]}`, { reason: 'note-call', change: `${parts[2]}→${figures}` });
  return true;
}
