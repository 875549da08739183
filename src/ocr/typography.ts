/**
 * One apostrophe for the whole document. Books print one kind, the typographic ’ (French, most English books) or the
 * straight ' (typescripts), but tesseract reads either, word by word: "l’évêque" and "l'opposition" in one
 * paragraph. Once the document's own choice is clear from the words read with one, the others are set the same,
 * each change recorded on its word as a `punctuation` correction.
 */
import { pageWords, type OcrPage } from '../project/index.js';
import { changeWord } from './correct.js';

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
