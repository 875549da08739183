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
 * - a word the correction step doubts for its context (`doubt`: a Greek word alone in a Latin line);
 * - any other word read below `DOUBTFUL_CONFIDENCE`, unless a settled correction (above) mended what the engine
 *   stumbled on (a comma for a full stop, a glued guillemet).
 * A word a person has already checked (edited or confirmed) is not doubtful any more. On the real capture of
 * `npm run bench:real`: 62 words flagged instead of 112, 23 of the 27 wrong ones instead of 21.
 */
export function isDoubtful(word: OcrWord): boolean {
  if (word.edit) return false;
  if (word.doubt !== undefined) return true;
  const correction = word.correction;
  if (correction) return !SETTLED_REASONS.has(correction.reason) || inkCount(word.text) > inkCount(correction.from);
  if (word.unknown) return word.confidence < DOUBTFUL_UNKNOWN_CONFIDENCE;
  return word.confidence < DOUBTFUL_CONFIDENCE;
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
