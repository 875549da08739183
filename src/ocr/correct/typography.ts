/**
 * One apostrophe for the whole document. Books print one kind, the typographic ’ (French, most English books) or the
 * straight ' (typescripts), but tesseract reads either, word by word: "l’évêque" and "l'opposition" in one
 * paragraph. Once the document's own choice is clear from the words read with one, the others are set the same,
 * each change recorded on its word as a `punctuation` correction. French guillemets the same way: a book that sets
 * them apart from the words they quote ("« arien »") does so throughout, and a guillemet read glued to its word
 * ("«arien") is set apart too, and so are the semicolons, colons, question and exclamation marks of a book that sets
 * them apart ("d'Aix;" → "d'Aix ;").
 */
import { pageWords, type OcrPage } from '../../project/index.js';
import { changeWord, paragraphWords, splitWord } from './words.js';
import { wordScript } from '../scripts.js';

/** An apostrophe between two letters: an elision ("l’évêque") or a contraction ("don’t"), not a quotation mark. */
const ELISION = /(?<=\p{L})['’](?=\p{L})/gu;
/** The document's choice is clear once this many apostrophes were read, this share of them of one kind. */
const MIN_APOSTROPHES = 10;
const CLEAR_SHARE = 0.75;

export type Apostrophe = '’' | "'";

/** Counts the apostrophes of a document's pages as the engine read them. */
export interface DocumentApostrophes {
  add(page: OcrPage): void;
  /** The kind the document prints, or undefined while it is not clear. */
  readonly kind: Apostrophe | undefined;
}

export function documentApostrophes(): DocumentApostrophes {
  let curly = 0;
  let straight = 0;
  return {
    add(page) {
      for (const word of pageWords(page)) {
        for (const [mark] of (word.correction?.from ?? word.text).matchAll(ELISION)) {
          if (mark === '’') curly++;
          else straight++;
        }
      }
    },
    get kind() {
      const all = curly + straight;
      if (all < MIN_APOSTROPHES) return undefined;
      if (curly >= CLEAR_SHARE * all) return '’';
      if (straight >= CLEAR_SHARE * all) return "'";
      return undefined;
    },
  };
}

/** Set the apostrophes inside the page's words to `kind`; words a person checked stay as they are. Returns how many words changed. */
export function correctApostrophes(page: OcrPage, kind: Apostrophe): number {
  const other = kind === '’' ? "'" : '’';
  let changed = 0;
  for (const word of pageWords(page)) {
    if (word.edit) continue;
    const text = word.text.replace(ELISION, kind);
    if (text === word.text) continue;
    changeWord(word, text, { reason: 'punctuation', change: `${other}→${kind}` });
    changed++;
  }
  return changed;
}

/** A guillemet as a token of its own, perhaps with the punctuation after it ("»,"). */
const LONE_GUILLEMET = /^[«»][.,;:!?…)]*$/u;
/** An opening guillemet glued to the word after it, a closing one to the word before it. */
const GLUED_OPEN = /^«(?=[\p{L}\p{N}<(])/u;
const GLUED_CLOSE = /(?<=[\p{L}\p{N}.!?…>)])»/u;

/** Counts how a document's marks of one kind were read: apart from their words, or glued to them. */
export interface DocumentSpacing {
  add(page: OcrPage): void;
  /** Whether the document clearly sets these marks apart from their words. */
  readonly spaced: boolean;
}

export function documentGuillemets(): DocumentSpacing {
  return spacingCounter(
    (read) => LONE_GUILLEMET.test(read),
    (read) => Number(GLUED_OPEN.test(read)) + Number(GLUED_CLOSE.test(read)),
  );
}

/** The document's choice is clear once this many marks of a kind were read. */
const MIN_MARKS = 6;

/** Counts the marks of a document's words as the engine read them: words that are one `apart`, marks `glued` in others. */
function spacingCounter(apart: (read: string) => boolean, glued: (read: string) => number): DocumentSpacing {
  let alone = 0;
  let attached = 0;
  return {
    add(page) {
      for (const word of pageWords(page)) {
        const read = word.correction?.from ?? word.text;
        if (apart(read)) alone++;
        else attached += glued(read);
      }
    },
    get spaced() {
      const all = alone + attached;
      return all >= MIN_MARKS && alone >= CLEAR_SHARE * all;
    },
  };
}

/**
 * Set apart the guillemets read glued to a word, in a document that sets them apart: "«arien" → "« arien". Only a
 * guillemet that opens or closes a quotation, following the paragraph's quotes in reading order (a "»" glued to a
 * word with no quotation open is more likely a misread letter, and stays). Words a person checked stay as they
 * are. Returns how many words changed.
 */
export function correctGuillemets(page: OcrPage): number {
  let changed = 0;
  for (const words of paragraphWords(page)) {
    let open = false;
    for (const word of words) {
      let text = word.text;
      if (LONE_GUILLEMET.test(text)) {
        open = text.startsWith('«');
        continue;
      }
      if (!open && GLUED_OPEN.test(text)) {
        text = text.replace(GLUED_OPEN, '« ');
        open = true;
      }
      if (open && GLUED_CLOSE.test(text)) {
        text = text.replace(GLUED_CLOSE, ' »');
        open = false;
      }
      if (text === word.text || word.edit) continue;
      changeWord(word, text, { reason: 'punctuation', change: 'guillemet set apart' });
      changed++;
    }
  }
  return changed;
}

/** French high punctuation (; : ! ?) as a token of its own, or glued after a word ("d'Aix;", "1806;", "vérité »;"). */
const LONE_HIGH = /^[;:!?]+$/u;
const GLUED_HIGH = /(?<=[\p{L}\p{N}»)])([;:!?]+)$/u;
/** A mark glued to a word not in Greek (whose question mark is ";", glued in Greek print too). */
function gluedHigh(text: string): boolean {
  return GLUED_HIGH.test(text) && wordScript(splitWord(text).core) !== 'Greek';
}

/**
 * Counts how a document's semicolons, colons, question and exclamation marks were read: set apart from the word
 * before them, as French prints them ("Myriel ?"), or glued to it.
 */
export function documentHighPunctuation(): DocumentSpacing {
  return spacingCounter(
    (read) => LONE_HIGH.test(read),
    (read) => Number(gluedHigh(read)),
  );
}

/**
 * Set apart the semicolons, colons, question and exclamation marks read glued to the word before them, in a document
 * that sets them apart (French: "d'Aix;" → "d'Aix ;"; the engine glues the thin space of small type). Words a person
 * checked stay as they are. Returns how many words changed.
 */
export function correctHighPunctuation(page: OcrPage): number {
  let changed = 0;
  for (const word of pageWords(page)) {
    if (word.edit || !gluedHigh(word.text)) continue;
    const mark = GLUED_HIGH.exec(word.text)![1];
    changeWord(word, word.text.replace(GLUED_HIGH, ' $1'), { reason: 'punctuation', change: `${mark} set apart` });
    changed++;
  }
  return changed;
}

/** Abbreviations that number a place in a book: page(s), line(s), note, tome, volume, column, folio, chapter, figure, article. */
const REFERENCE = '(?:p|pp|l|ll|n|t|v|vol|col|fol|f|ff|ch|chap|fig|art)';
/** One as a word of its own ("p.", "(p."), and one glued to its number ("p.265,", "l.5"). */
const LONE_REFERENCE = new RegExp(`^[(\\[]?${REFERENCE}\\.$`, 'u');
const GLUED_REFERENCE = new RegExp(`^([(\\[]?${REFERENCE}\\.)(?=\\d)`, 'u');

/** Counts how a document's references were read: "p." apart from its number, as books print it, or "p.265" glued. */
export function documentReferences(): DocumentSpacing {
  return spacingCounter(
    (read) => LONE_REFERENCE.test(read),
    (read) => Number(GLUED_REFERENCE.test(read)),
  );
}

/**
 * Set a reference's number apart from its abbreviation, in a document that sets them apart: "p.261," → "p. 261,",
 * "l.5" → "l. 5" (the engine glues the thin space of small type, as before high punctuation). Words a person checked
 * stay as they are. Returns how many words changed.
 */
export function correctReferences(page: OcrPage): number {
  let changed = 0;
  for (const word of pageWords(page)) {
    const glued = word.edit ? null : GLUED_REFERENCE.exec(word.text);
    if (!glued) continue;
    changeWord(word, word.text.replace(GLUED_REFERENCE, '$1 '), { reason: 'punctuation', change: `number set apart from ${glued[1].replace(/^[([]/u, '')}` });
    changed++;
  }
  return changed;
}
