/**
 * Proofreading: a person's corrections of recognised words. An edit is written into the page's OCR result
 * itself — the word's `text` becomes what the person typed and `edit.from` keeps what was there before — so every
 * export (the PDF's text layer, Markdown, the textpack, the slim project, any later format) reads the corrected
 * text through the one loader, `loadOcrPages`, without knowing about proofreading.
 */
import { ERROR_CODES, QuireError } from '../errors.js';
import type { OcrPage, OcrWord } from './ocr-model.js';

/** Below this engine confidence (0–100) a word the dictionary knows, or one left unchecked, is worth a person's look. */
export const DOUBTFUL_CONFIDENCE = 70;

/**
 * A word no dictionary knows (`unknown`) read at this confidence or more is most often a name, a term or a quotation
 * the book prints ("Athanase", "homéousiens", "ἑαυτοῖς"); below it, a misreading ("Afhanasius", "OTSIA").
 */
export const DOUBTFUL_UNKNOWN_CONFIDENCE = 82;

/**
 * Corrections that restore a word from the page's ink or from its grammar (a full stop seen on the baseline, a
 * small letter seen small, the note call read alone, "à" before a past participle) or set its typography (the
 * document's apostrophe, a guillemet set apart): the letters are as the engine read them or their one reading there.
 * Any other correction guessed letters (an engine's second choice, a known confusion, a second reading, a script).
 */
const SETTLED_REASONS: ReadonlySet<string> = new Set(['punctuation', 'letter-case', 'note-call', 'grammar']);

/**
 * Whether a word is worth a person's look — likely wrong, rather than merely read with some doubt:
 * - a correction that guessed its letters, or one that added letters or figures the engine did not read ("1" → "1er");
 * - a word no dictionary knows read below `DOUBTFUL_UNKNOWN_CONFIDENCE`;
 * - a word the correction step doubts for its context (`doubt`: a Greek word alone in a Latin line, a lone letter that
 *   is no one-letter word of the page's languages);
 * - a word that reads like figures misread (`figuresLike`: "(la)" for "(1a)"), or a stroke set apart as punctuation
 *   beside a stroke ("I !" for "II");
 * - a word whose note call the ink shows but its text does not (`callReadAsLetters`: "contradictions." for
 *   "contradiction⁸.");
 * - a Greek word read below `DOUBTFUL_GREEK_CONFIDENCE`, any other word below `DOUBTFUL_CONFIDENCE`, unless a settled
 *   correction (above) mended what the engine stumbled on (a comma for a full stop, a glued guillemet).
 * A word a person has already checked (edited or confirmed) is not doubtful any more. On the real capture of
 * `npm run bench:real`: 71 words flagged for all 26 wrong ones (recall 1.000, precision 0.366), where the rule
 * before these three kinds of evidence flagged 63 for 23 (0.885, 0.365); on later readings, 71 for 24 of 26 (0.923,
 * 0.338), and 73 for all 26 (1.000, 0.356) with the note call and the lone letter.
 */
export function isDoubtful(word: OcrWord): boolean {
  if (word.edit) return false;
  if (word.doubt !== undefined || figuresLike(word.text) || callReadAsLetters(word)) return true;
  const correction = word.correction;
  if (correction) return !SETTLED_REASONS.has(correction.reason) || inkCount(word.text) > inkCount(correction.from) || strokeSetApart(correction.from);
  if (word.unknown) return word.confidence < DOUBTFUL_UNKNOWN_CONFIDENCE;
  return word.confidence < (GREEK.test(word.text) ? DOUBTFUL_GREEK_CONFIDENCE : DOUBTFUL_CONFIDENCE);
}

/**
 * Below this confidence a Greek word a dictionary knows is worth a look too: the Greek models read polytonic print
 * less surely than the Latin-script ones read their languages, and the short Greek words are many and alike ("ὡς"
 * read for "ἐκ" at 82, where the words beside it read at 93). On the real capture, 1 Greek word in 6 below it was
 * wrong, none above it that a dictionary knew.
 */
export const DOUBTFUL_GREEK_CONFIDENCE = 85;

const GREEK = /\p{Script=Greek}/u;

/** Letters a figure is read as in print: l and I for 1, O and o for 0, S for 5, Z for 2, B for 8, g for 9. */
const FIGURE_LOOK_ALIKES = 'lIOoSZBg';

/**
 * Whether a word reads like figures misread as letters, or letters as figures:
 * - a short word (three characters at most) mixing figures and letters that look like figures ("1l", "I5");
 * - a short word alone in brackets with such a letter ("(la)" for "(1a)", "(lO)"): in a book a bracketed short word
 *   is most often a reference (a section, a verse, a note), seldom an article or a pronoun alone.
 */
function figuresLike(text: string): boolean {
  const core = text.replace(/^[^\p{L}\p{Nd}]+|[^\p{L}\p{Nd}]+$/gu, '');
  const chars = Array.from(core);
  if (chars.length === 0 || chars.length > 3 || !chars.some((c) => FIGURE_LOOK_ALIKES.includes(c))) return false;
  if (chars.some((c) => /\p{Nd}/u.test(c))) return chars.every((c) => /[\p{Nd}\p{L}]/u.test(c));
  return /^[([][^()[\]]+[)\]]/u.test(text);
}

/**
 * Whether the engine read a stroke-like mark ("!", "|") glued to a letter or figure that is one stroke itself ("I!",
 * "l|"): setting the mark apart as punctuation keeps the ink, but the mark may be the word's second stroke ("II").
 */
function strokeSetApart(from: string): boolean {
  return /[Il1][!|]/u.test(from);
}

/**
 * Whether a note call was read in the ink at the word's end (`raised`) where the engine's text shows none — neither
 * the call's figures nor a mark the correction step turned into them: the engine read the small raised figures as the
 * word's last letters ("contradictions." for "contradiction⁸.", an 8 read as s) or lost them, and the letters before
 * the call are then in doubt.
 */
function callReadAsLetters(word: OcrWord): boolean {
  return word.raised !== undefined && !/[⁰¹²³⁴⁵⁶⁷⁸⁹]/u.test(word.text);
}

/** Letters and digits in a text (a raised note call read from the ink, "³", is neither). */
function inkCount(text: string): number {
  return Array.from(text).filter((c) => /[\p{L}\p{Nd}]/u.test(c)).length;
}

/** Every word of a page in reading order (blocks, paragraphs, lines as the engine gave them); a word's place here is its number. */
export function pageWords(page: OcrPage): OcrWord[] {
  return page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words)));
}

/** Words a page holds, their doubtful ones and the ones a person checked. */
export function proofreadingCounts(page: OcrPage): { words: number; doubtful: number; checked: number } {
  const words = pageWords(page);
  return { words: words.length, doubtful: words.filter(isDoubtful).length, checked: words.filter((w) => w.edit).length };
}

/** The longest text one word may be given: a word, or a few run together, never a paragraph. */
export const MAX_WORD_EDIT = 200;

/**
 * Set word `n` of `page` to `text`, a person's reading: the same text confirms the word as it is, nothing removes
 * it from the exports. Returns the word.
 */
export function editWord(page: OcrPage, n: number, text: string): OcrWord {
  const word = wordAt(page, n);
  const next = text.normalize('NFC').replace(/\s+/g, ' ').trim();
  if (next.length > MAX_WORD_EDIT) throw new QuireError(ERROR_CODES.USAGE, `A word can be at most ${MAX_WORD_EDIT} characters long.`);
  // The first edit keeps what was there before it; later edits keep that same original.
  word.edit = { from: word.edit?.from ?? word.text };
  word.text = next;
  return word;
}

/** Undo a person's edit of word `n`: its text goes back to what it was before they touched it. */
export function restoreWord(page: OcrPage, n: number): OcrWord {
  const word = wordAt(page, n);
  if (word.edit) {
    word.text = word.edit.from;
    delete word.edit;
  }
  return word;
}

/** The page as exports read it: words a person emptied are left out. */
export function withoutRemovedWords(page: OcrPage): OcrPage {
  if (!pageWords(page).some((w) => w.text === '')) return page;
  const blocks = page.blocks
    .map((b) => ({
      ...b,
      paragraphs: b.paragraphs
        .map((p) => ({ ...p, lines: p.lines.map((l) => ({ ...l, words: l.words.filter((w) => w.text !== '') })).filter((l) => l.words.length > 0) }))
        .filter((p) => p.lines.length > 0),
    }))
    .filter((b) => b.paragraphs.length > 0);
  return { ...page, blocks };
}

function wordAt(page: OcrPage, n: number): OcrWord {
  const word = pageWords(page)[n];
  if (!Number.isInteger(n) || !word) throw new QuireError(ERROR_CODES.USAGE, `The page has no word number ${n}.`);
  return word;
}
