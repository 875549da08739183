/**
 * A word's pieces and the one way the correction steps change a word: its punctuation around the part a dictionary
 * checks, the change recorded on it, the words of a paragraph in reading order.
 */
import type { OcrCorrection, OcrPage, OcrWord } from '../../project/index.js';

/** A word as punctuation before, the part a dictionary checks, and punctuation (or a note call) after. */
export interface WordParts {
  prefix: string;
  core: string;
  suffix: string;
}

/**
 * `«l’avangais»,` → `«` + `l’avangais` + `»,`. The core starts at the first letter or digit (`8ur`, `1'homme`) and
 * ends at the last letter: digits after it are a note call (`simulation9`).
 */
export function splitWord(text: string): WordParts {
  const chars = Array.from(text);
  const start = chars.findIndex((c) => /[\p{L}\p{N}]/u.test(c));
  let end = chars.length;
  while (end > 0 && !/\p{L}/u.test(chars[end - 1])) end--;
  if (start < 0 || end <= start) return { prefix: text, core: '', suffix: '' };
  return { prefix: chars.slice(0, start).join(''), core: chars.slice(start, end).join(''), suffix: chars.slice(end).join('') };
}

/**
 * Give a word new text, recording the change on it. A word an earlier step already changed keeps what the engine
 * read and why it was first changed; the new change is added to the record (`"Ἡ→H; H→Il"`).
 */
export function changeWord(word: OcrWord, text: string, what: Omit<OcrCorrection, 'from'>): void {
  word.correction = word.correction
    ? { ...word.correction, change: [word.correction.change, what.change].filter(Boolean).join('; ') }
    : { from: word.text, ...what };
  word.text = text;
}

/** The words of each paragraph of a page in reading order: the word after may start the next line. */
export function paragraphWords(page: OcrPage): OcrWord[][] {
  return page.blocks.flatMap((b) => b.paragraphs.map((p) => p.lines.flatMap((l) => l.words)));
}
