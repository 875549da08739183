/**
 * The document's structure, the text side: what a line's words say about its role (terminated, a page number, a
 * note marker), line-end hyphenation decided by evidence, and Markdown escaping. Pure string functions.
 */
import { plainDigits, superscriptDigits } from '../util/index.js';

/** A line ending a sentence: `. ! ? : …` or a closing quote or bracket after one. */
const TERMINATED = /[.!?:…»”"’')\]]$/u;
/** Hyphens that split a word at a line end: hyphen-minus, Unicode hyphen, soft hyphen, the not sign some OCR reads. */
const LINE_END_HYPHEN = /^(.*[\p{L}\p{N}])([-\u2010\u00AD¬])$/u;
const ROMAN = /^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$/i;

export function isTerminated(text: string): boolean {
  return TERMINATED.test(text.trim());
}

export function startsLowercase(text: string): boolean {
  const first = /\p{L}/u.exec(text);
  return first !== null && first[0] === first[0].toLowerCase() && first[0] !== first[0].toUpperCase();
}

/** Cased letters, all capitals (`CHAPTER IV`, `MR. BENNET`). */
export function isAllCaps(text: string): boolean {
  const cased = [...text].filter((ch) => ch.toLowerCase() !== ch.toUpperCase());
  return cased.length > 0 && cased.every((ch) => ch === ch.toUpperCase());
}

export function hasLetter(text: string): boolean {
  return /\p{L}/u.test(text);
}

/** A page number as printed: `17`, `- 17 -`, `[17]`, `xiv`; decorations around it allowed. */
export function isPageNumberText(text: string): boolean {
  const core = text.replace(/[\s\-–—.·•()[\]|]/gu, '');
  return /^\d{1,4}$/.test(core) || (core.length <= 7 && ROMAN.test(core));
}

export function isRomanNumeral(text: string): boolean {
  return ROMAN.test(text.replace(/[\s.\-–—]/gu, '')) && text.trim() !== '';
}

/** What identifies a running head across pages: its letters, lower case, digits and punctuation left out. */
export function runningKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A footnote's number or sign at the start of its first line, and the rest of that first word. */
export interface NoteMarker {
  /** Digits (`12`, also from `¹²`, `(12)`, `[12]`, `12.`) or the sign (`*`, `†`). */
  marker: string;
  numeric: boolean;
  /** What followed the marker in the same word (`See` in `¹See`), '' when the marker was a word of its own. */
  rest: string;
}

export function noteMarker(firstWord: string): NoteMarker | null {
  // OCR reads the period after a note's number as a comma now and then (`6, Syn 10, 9`).
  let m = /^[([]?(\d{1,3})[.,)\]]?$/u.exec(firstWord);
  if (m) return { marker: m[1], numeric: true, rest: '' };
  m = /^([⁰¹²³⁴⁵⁶⁷⁸⁹]+)(.*)$/u.exec(firstWord);
  if (m) return { marker: plainDigits(m[1]), numeric: true, rest: m[2] };
  // A number glued to a capitalised word is a marker (`1The`, `6.Syn` with its stop); to a lower-case one it is an
  // ordinal (`1st`).
  m = /^(\d{1,3})[.,]?(\p{Lu}.*)$/u.exec(firstWord);
  if (m) return { marker: m[1], numeric: true, rest: m[2] };
  m = /^([*†‡§¶]+)(.*)$/u.exec(firstWord);
  if (m) return { marker: m[1], numeric: false, rest: m[2] };
  return null;
}

/** Whether body text refers to note `marker`: a superscript number, a number glued after a word, or the sign. */
export function refersToNote(text: string, marker: NoteMarker): boolean {
  if (!marker.numeric) return text.includes(marker.marker);
  const superscript = superscriptDigits(marker.marker);
  if (text.includes(superscript)) return true;
  return new RegExp(`\\p{L}[.,;:!?»”"’)]*${marker.marker}(?!\\d)`, 'u').test(text);
}

/** Word counts of the document, lower case, outer punctuation stripped (inner hyphens kept): the page's dictionary. */
export function buildDictionary(texts: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const raw of text.split(/\s+/u)) {
      const word = dictionaryForm(raw);
      if (word) counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return counts;
}

function dictionaryForm(word: string): string {
  return word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').toLowerCase();
}

/** What a line-end hyphen is decided on: how often the document writes each form, then the language's lexicon. */
export interface HyphenEvidence {
  /** Word counts of the document ({@link buildDictionary}). */
  counts: ReadonlyMap<string, number>;
  /** The languages' lexicon: true when a language spells the word this way. */
  isWord?: (word: string) => boolean;
}

const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);

/**
 * Join a word split at a line end (`mo-` + `ment,` → `moment,`), or keep its hyphen (`peut-` + `être` →
 * `peut-être`). A soft hyphen is always dropped; after a digit (`1914-1918`) or before punctuation the hyphen stays.
 * Otherwise, in this order:
 * 1. the document is a dictionary: the form it writes more often elsewhere (`twenty-four` mid-line) wins;
 * 2. a hyphen after a single letter is the word's own (`c’est-à-` + `dire`): no typesetter breaks a word there;
 * 3. a capitalised second part keeps the hyphen (`Jésus-Christ`, `Anglo-Saxon`), unless the lexicon knows the word
 *    joined with that capital lowered and not the hyphenated one (OCR read `consub-` + `Stantialité`), or the
 *    whole word is in capitals (`TRINI-` + `TÉ`, decided as below);
 * 4. the lexicon: the hyphen stays when the hyphenated form is a word and the joined one is not (`arrière-plan`);
 * 5. else the word is joined: most line-end hyphens split a word.
 * Returns null when `first` does not end in a hyphen after a letter or digit.
 */
export function joinHyphenated(first: string, second: string, evidence: HyphenEvidence): string | null {
  const m = LINE_END_HYPHEN.exec(first);
  if (!m) return null;
  const [, stem, hyphen] = m;
  if (hyphen === '\u00AD' || hyphen === '¬') return stem + second;
  const keep = `${stem}-${second}`;
  if (!/^[\p{L}\p{N}]/u.test(second) || /\p{N}$/u.test(stem)) return keep;
  const tail = /^[\p{L}\p{N}'’-]*[\p{L}\p{N}]/u.exec(second)?.[0] ?? second;
  const { counts, isWord } = evidence;
  const hyphenatedSeen = counts.get(dictionaryForm(`${stem}-${tail}`)) ?? 0;
  const joinedSeen = counts.get(dictionaryForm(stem + tail)) ?? 0;
  if (hyphenatedSeen !== joinedSeen) return hyphenatedSeen > joinedSeen ? keep : stem + second;
  // No typesetter breaks a word after a single letter: a hyphen after one is the compound's own (`vis-à-` + `vis`).
  const lastPart = stem.split(/[-\u2010]/u).pop() ?? '';
  if ((lastPart.match(/\p{L}/gu) ?? []).length <= 1) return keep;
  const known = (word: string): boolean => isWord !== undefined && isWord(word);
  const capitals = isAllCaps(stem) && isAllCaps(tail) && /\p{L}{2}/u.test(stem);
  if (/^\p{Lu}/u.test(second) && !capitals) {
    const lowered = stem + lowerFirst(tail);
    return !/\p{Lu}/u.test(stem.slice(1)) && known(lowered) && !known(`${stem}-${tail}`) ? stem + lowerFirst(second) : keep;
  }
  return known(`${stem}-${tail}`) && !known(stem + tail) ? keep : stem + second;
}

/** Characters that would turn into emphasis, code or raw HTML anywhere in a line. */
export function escapeInline(text: string): string {
  return text
    .replace(/[\\`*_]/g, '\\$&')
    .replace(/<(?=[\p{L}/!?])/gu, '\\<')
    .replace(/\[(?=\^)/gu, '\\[');
}

/** Characters that would start a heading, list, quote, fence or HTML block at the start of a Markdown line. */
export function escapeLineStart(text: string): string {
  return text.replace(/^([#>+\-=~|])/u, '\\$1').replace(/^(\d{1,9})([.)])/u, '$1\\$2');
}
