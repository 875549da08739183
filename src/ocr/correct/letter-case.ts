/**
 * Capitals read for small letters, put right by the ink. Some small letters are their capital drawn smaller (c, o, s,
 * u, v, w, x, z; and k but for its stem): on a camera page only their height tells them apart, and the engine often
 * reads a small one as a capital ("ou vingt ans" read "Ou Vingt ans", "« vous opposer" read "« Vous", "a king" read
 * "a King"). No dictionary sees it — both are words — but the page does: a small letter reaches the x-height of the
 * letters after it, a capital stands well above it (measured: capitals 1.3–1.55 x-heights on real captures, 1.2 or
 * more where blur merges letters; small letters read as capitals 1.0–1.13). So a word in the middle of a sentence
 * that starts with such a capital, and is a word in small letters too, is looked at on the page; where its first
 * letter is no taller than the others, it is set small, recorded on the word as a `letter-case` correction.
 * Anything unclear (the first letter run into the next, too few letters) is left as read.
 */
import type { GrayImage } from '../../imaging/index.js';
import type { OcrPage, OcrWord } from '../../project/index.js';
import { median } from '../../util/index.js';
import { wordInk } from './stops.js';
import { changeWord, paragraphWords, splitWord } from './words.js';

/**
 * Capitals whose small letter is the same shape, only smaller, followed by small letters; and K, whose small letter
 * has the capital's stem but arms only as high as the x-height.
 */
const SAME_SHAPE = /^[COSUVWXZK]\p{Ll}+$/u;
/** Of a K, the arms: this share of its width on the right. */
const ARMS = 0.4;
/** A word after one of these ends a sentence: its next word may well start with a capital. */
const SENTENCE_END = /[.!?…]["»”’)\]]*$/u;
/** …and after one of these, a numbered item or heading starts: "1) Le déroulement", "(b) Vous". */
const ITEM_MARK = /^\(?(\d{1,3}|[IVXivx]{1,4}|\p{L})\)$/u;

/** Whether the word at `i` of a paragraph's words starts a sentence (or an item), where a capital is expected. */
function startsSentence(words: readonly OcrWord[], i: number): boolean {
  return i === 0 || SENTENCE_END.test(words[i - 1].text) || ITEM_MARK.test(words[i - 1].text);
}

/** The first letter is small when no taller than this many x-heights (small letters read as capitals measured up to 1.13). */
const SMALL_AT_MOST = 1.16;
/** A letter is a mark at least this share of the word box high; dots and accents are not letters. */
const LETTER_HEIGHT = 0.3;
/** Rows of the other letters' ink at least this share of the fullest row are inside the x-height band. */
const BAND_SHARE = 0.35;
/** The word's box is searched this far above and below (share of its height). */
const MARGIN = 0.3;

/** Short words starting with L: the only letter whose width, not height, tells the capital (0.6 em) from the small (0.3 em). */
const L_WORD = /^[Ll]\p{Ll}{1,2}$/u;
/** Read with a capital, a word no wider for its height than this many times its small twins on the page is small. */
const LIKE_SMALL_TWINS = 1.15;
/** …or, with no small twin, no wider than this share of its twins that start a sentence (capitals for sure). */
const UNLIKE_CAPITAL_TWINS = 0.8;
/** Small twins measured, at least (one may have its box widened by a neighbour's ink); one capital twin will do. */
const MIN_SMALL_TWINS = 2;

/**
 * "la" read "La" in the middle of a sentence: height cannot tell a small l from a capital L, width can — the capital's
 * foot makes "La" half as wide again as "la" (measured on the quality benchmark: true capitals 1.42–1.57 times the
 * page's "la" for the same height, small ones read large 0.94–1.1). So a word of two or three letters read with a
 * capital L mid-sentence and before a word in small letters (before a capital it starts a name or a title, "La
 * Fontaine", "Les Misérables", perhaps in an italic whose L is narrow), in a paragraph of several lines (a line alone
 * is often a heading, in another face), and standing alone (no punctuation in its box), is compared with its twins on
 * the page: the same word read in small letters, or one as wide (a and e are: "le" measures "la"; two twins at
 * least), or else the same word read with a capital where a sentence starts. Where its box is as narrow as theirs —
 * or clearly narrower than the capitals' — it is set small. Returns how many words changed.
 */
export function correctCaseByWidth(page: OcrPage, known: (word: string) => boolean): number {
  const aspect = (w: OcrWord): number => (w.box.x1 - w.box.x0) / Math.max(1, w.box.y1 - w.box.y0);
  const small = new Map<string, number[]>();
  const capitals = new Map<string, number[]>();
  const candidates: OcrWord[] = [];
  for (const paragraph of page.blocks.flatMap((b) => b.paragraphs)) {
    const words = paragraph.lines.flatMap((l) => l.words);
    // A line alone is often a heading, in another face than its twins.
    const body = paragraph.lines.length > 1;
    words.forEach((word, i) => {
      // Punctuation in the box would widen it: only bare words.
      if (!L_WORD.test(word.text)) return;
      const key = widthClass(word.text);
      if (word.text === word.text.toLowerCase()) {
        small.set(key, [...(small.get(key) ?? []), aspect(word)]);
        return;
      }
      if (startsSentence(words, i)) capitals.set(key, [...(capitals.get(key) ?? []), aspect(word)]);
      // Before a capital it is a name or a title ("La Fontaine", "Les Misérables", perhaps in a narrow italic): left.
      else if (body && !word.edit && /^\p{Ll}/u.test(words[i + 1]?.text ?? '') && known(word.text.toLowerCase())) candidates.push(word);
    });
  }
  let changed = 0;
  for (const word of candidates) {
    const key = widthClass(word.text);
    const [smallTwins, capitalTwins] = [small.get(key) ?? [], capitals.get(key) ?? []];
    const isSmall =
      smallTwins.length >= MIN_SMALL_TWINS
        ? aspect(word) <= LIKE_SMALL_TWINS * median(smallTwins)
        : capitalTwins.length > 0 && aspect(word) <= UNLIKE_CAPITAL_TWINS * median(capitalTwins);
    if (!isSmall) continue;
    changeWord(word, word.text.toLowerCase(), { reason: 'letter-case', change: 'L→l' });
    changed++;
  }
  return changed;
}

/** Words as wide as each other in book faces: a and e are (so "le" measures "la" on a page that read every "la" large). */
function widthClass(word: string): string {
  return word.toLowerCase().replace(/a/g, 'e');
}

/**
 * The words whose first capital may be a small letter read large: in the middle of a sentence, a capital drawn like
 * its small letter followed by small letters, whose small spelling `known` accepts; not a word a person checked.
 */
export function caseCandidates(page: OcrPage, known: (word: string) => boolean): OcrWord[] {
  const found: OcrWord[] = [];
  for (const words of paragraphWords(page)) {
    words.forEach((word, i) => {
      if (word.edit || startsSentence(words, i)) return;
      const { core } = splitWord(word.text);
      if (!SAME_SHAPE.test(core)) return;
      if (known(core[0].toLowerCase() + core.slice(1))) found.push(word);
    });
  }
  return found;
}

/**
 * Where the ink shows a small letter, set the first letter of the candidates small. `image` is the page image the
 * result belongs to (a bitonal page is best). Returns how many words changed.
 */
export function correctCase(page: OcrPage, image: GrayImage, known: (word: string) => boolean): number {
  const scaleX = image.width / page.width;
  const scaleY = image.height / page.height;
  let changed = 0;
  for (const word of caseCandidates(page, known)) {
    const { prefix, core, suffix } = splitWord(word.text);
    if (!startsSmall(word, image, scaleX, scaleY, core[0] === 'K')) continue;
    changeWord(word, `${prefix}${core[0].toLowerCase()}${core.slice(1)}${suffix}`, { reason: 'letter-case', change: `${core[0]}→${core[0].toLowerCase()}` });
    changed++;
  }
  return changed;
}

/**
 * Whether the word's first letter on the page (of a K, its arms: `arms`) is no taller than the x-height of the
 * letters after it.
 */
function startsSmall(word: OcrWord, image: GrayImage, scaleX: number, scaleY: number, arms: boolean): boolean {
  const cut = wordInk(word, image, scaleX, scaleY, MARGIN, MARGIN);
  if (!cut || !(cut.height >= 6)) return false;
  const { crop, marks, height } = cut;
  const letters = marks.filter((c) => c.height >= LETTER_HEIGHT * height);
  if (letters.length < 2) return false;
  const baseline = median(letters.map((c) => c.y + c.height));
  // The first letter: the leftmost mark, on the baseline (not run into a letter that descends, not an opening
  // bracket), with the pieces the threshold broke off it (marks over the same columns, however small: a v's thin
  // arm, the top of an S).
  const leftmost = letters.reduce((a, c) => (c.x < a.x ? c : a));
  if (Math.abs(leftmost.y + leftmost.height - baseline) > 0.12 * height) return false;
  const first = { x: leftmost.x, y: leftmost.y, width: leftmost.width };
  for (let grown = true; grown;) {
    grown = false;
    for (const c of marks) {
      const [x0, x1] = [Math.min(first.x, c.x), Math.max(first.x + first.width, c.x + c.width)];
      if (c.x >= first.x + first.width || c.x + c.width <= first.x || (x0 === first.x && x1 === first.x + first.width && c.y >= first.y)) continue;
      [first.x, first.width, first.y] = [x0, x1 - x0, Math.min(first.y, c.y)];
      grown = true;
    }
  }
  const after = first.x + first.width;
  // The x-height of the letters after it, from their ink's rows: the band where most of it lies (an i's dot, a t's
  // top or an l's ascender stand above it on few pixels).
  const rows = new Array<number>(crop.height).fill(0);
  for (let y = 0; y < crop.height; y++) {
    for (let x = after; x < crop.width; x++) if (crop.data[y * crop.width + x] < 128) rows[y]++;
  }
  const fullest = Math.max(...rows);
  if (fullest === 0) return false;
  let top = 0;
  while (top < baseline && rows[top] < BAND_SHARE * fullest) top++;
  const xHeight = baseline - top;
  // A first letter run into the next one has no height of its own ("ou" read as one mark).
  if (!(xHeight >= 3) || first.width > 1.5 * xHeight) return false;
  let firstTop = first.y;
  if (arms) {
    // The top of the ink in the letter's right part: a small k's arms end at the x-height, a capital's reach its top.
    const from = Math.floor(first.x + (1 - ARMS) * first.width);
    firstTop = baseline;
    for (let y = first.y; y < baseline && firstTop === baseline; y++) {
      for (let x = from; x < after; x++) if (crop.data[y * crop.width + x] < 128) firstTop = y;
    }
  }
  return baseline - firstTop <= SMALL_AT_MOST * xHeight;
}
