/**
 * Words no dictionary knows, read again on their own. In its page, a word is read as part of its line: the line's
 * baseline and height, fitted over the whole line, and the language model's context decide what the engine makes of
 * it. Cut out and read alone, the same pixels often give the word the page prints ("conmais" → "connais", "memier" →
 * "premier", "&tobre" → "octobre" on real and synthetic camera pages). So the correction step cuts every word it left
 * `unknown` out of the page OCR read, has the engine read each cut as an image of its own (`OcrEngine.readWords`),
 * and takes a new reading only when it is conservative by the same measure as the rest of the step: one word, in the
 * same script, that a dictionary (or the document's own vocabulary) knows, and close to what was read first (a letter
 * or two apart, by the word's length). Measured on the quality benchmark's pages before writing this: every word
 * taken at x-heights 8 to 14 px was right.
 */
import { connectedComponents, cropGray, histogram, otsuThreshold, type GrayImage } from '../../imaging/index.js';
import { pageWords, type OcrBox, type OcrPage, type OcrWord } from '../../project/index.js';
import { editDistance } from '../../util/index.js';
import { changeWord, splitWord, type WordParts } from './words.js';
import { letterCount as letters, wordScript } from '../scripts.js';

/** The cut reaches this share of the line's height beyond the word on every side: the whole of its ink, and some paper. */
const PAD = 0.25;

/** A word to read again: where it is among the page's words (`pageWords` order), the part of the page to cut and the word's own box. */
export interface RereadWord {
  index: number;
  box: OcrBox;
  word: OcrBox;
}

/** The page's words worth reading again: left `unknown`, of two letters or more, not checked by a person. */
export function wordsToReread(page: OcrPage): RereadWord[] {
  return wordsWhere(page, (word) => word.unknown === true);
}

/**
 * The page's words worth a second reading on the bitonal page (`chooseInk`): ones a dictionary knows, left as read,
 * that the engine read below `confidence` — where the grey page's blur may have taken an accent or a ligature.
 */
export function wordsToCheck(page: OcrPage, confidence: number): RereadWord[] {
  return wordsWhere(page, (word) => !word.unknown && !word.correction && word.confidence < confidence && wordScript(splitWord(word.text).core) === 'Latin');
}

/**
 * The page's Greek words worth a reading of their marks on the bitonal page (`chooseMarks`): ones left as a dictionary
 * knows them but read below `confidence`, and ones spelled in Greek from Latin look-alikes (whose accents the engine
 * did not see and the mapping did not guess: "Ti" → "Τι").
 */
export function greekToCheck(page: OcrPage, confidence: number): RereadWord[] {
  return wordsWhere(
    page,
    (word) => !word.unknown && wordScript(splitWord(word.text).core) === 'Greek' && (word.correction?.reason === 'script' || word.confidence < confidence),
  );
}

function wordsWhere(page: OcrPage, worth: (word: OcrWord) => boolean): RereadWord[] {
  const found: RereadWord[] = [];
  let index = 0;
  for (const block of page.blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const pad = Math.round(PAD * (line.box.y1 - line.box.y0));
        for (const word of line.words) {
          if (worth(word) && !word.edit && letters(splitWord(word.text).core) >= 2) {
            found.push({
              index,
              box: {
                x0: Math.max(0, word.box.x0 - pad),
                y0: Math.max(0, Math.min(line.box.y0, word.box.y0) - pad),
                x1: Math.min(page.width, word.box.x1 + pad),
                y1: Math.min(page.height, Math.max(line.box.y1, word.box.y1) + pad),
              },
              word: word.box,
            });
          }
          index++;
        }
      }
    }
  }
  return found;
}

/**
 * Cut a word's box out of the image OCR read, whose size may differ from the OCR page's (boxes are scaled), with its
 * paper made white (the engine reads it on its own: a grey paper's edges would read as marks) and without the ink
 * that only reaches in from beyond the word: the ascenders of the line below, the descenders of the line above, a
 * neighbour's last letter — marks touching the cut's edge whose middle lies outside the word's box. Those fragments
 * read as letters of their own ("és μεταποιεῖν, fihidN »" for one word). The word stays grey: cut words made black
 * and white by their own threshold read worse on the benchmark's 8 px pages ("la" → "le", "belief" → "belict").
 */
export function cutWord(image: GrayImage, page: Pick<OcrPage, 'width' | 'height'>, box: OcrBox, word: OcrBox = box): GrayImage {
  const sx = image.width / page.width;
  const sy = image.height / page.height;
  const cut = cropGray(image, { x: box.x0 * sx, y: box.y0 * sy, width: (box.x1 - box.x0) * sx, height: (box.y1 - box.y0) * sy });
  const { width, height, data } = cut;
  // The paper: the level most of the cut is at least as light as (ink is a small share of a word's box).
  const paper = quantile(data, PAPER_SHARE);
  if (paper > 0 && paper < 255) for (let i = 0; i < data.length; i++) data[i] = Math.min(255, Math.round((data[i] * 255) / paper));
  // Ink, to find the fragments: Otsu's threshold of the cut.
  const threshold = otsuThreshold(histogram(data));
  const ink = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) ink[i] = data[i] <= threshold ? 1 : 0;
  const { labels, components } = connectedComponents({ width, height, data: ink });
  // The word's box in the cut's pixels.
  const left = (word.x0 - box.x0) * sx;
  const right = (word.x1 - box.x0) * sx;
  const top = (word.y0 - box.y0) * sy;
  const bottom = (word.y1 - box.y0) * sy;
  const stray = components.map((c) => {
    const edge = c.x === 0 || c.y === 0 || c.x + c.width === width || c.y + c.height === height;
    const middleX = c.x + c.width / 2;
    const middleY = c.y + c.height / 2;
    return edge && (middleX < left || middleX > right || middleY < top || middleY > bottom);
  });
  for (let i = 0; i < data.length; i++) if (labels[i] !== 0 && stray[labels[i] - 1]) data[i] = 255;
  return cut;
}

/** Of a word's box, at least this share is paper. */
const PAPER_SHARE = 0.9;

function quantile(values: Uint8Array, q: number): number {
  const counts = new Uint32Array(256);
  for (const v of values) counts[v]++;
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += counts[v];
    if (seen >= q * values.length) return v;
  }
  return 255;
}

/** Letters that may differ between the two readings, by the length of the word first read. */
function allowedChanges(length: number): number {
  return length <= 4 ? 1 : length <= 7 ? 2 : 3;
}

/** Punctuation that opens a word ("(", "«", a quote): kept from the first reading; anything else before the letters was misread. */
const OPENING = /^[\p{Ps}\p{Pi}«"'‘“]*$/u;

/**
 * What to make of a word read again: its new text and the change to record, or undefined to leave it as it is.
 * `known` says which dictionary (or `document`) knows a word. The first reading's punctuation is kept around the new
 * letters (the stop and guillemet rules already looked at it); a Greek word is never changed for its accents alone
 * (the Greek dictionary is modern and knows no breathings).
 */
export function chooseReread(
  read: string,
  again: readonly string[],
  known: (word: string) => string | undefined,
  unsure = false,
): { text: string; change: string; language?: string } | undefined {
  const pair = oneWordAgain(read, again);
  if (!pair || pair.second.core === pair.first.core) return undefined;
  const { first, second } = pair;
  const script = wordScript(first.core);
  if (wordScript(second.core) !== script || known(first.core) !== undefined) return undefined;
  if (editDistance(first.core.toLowerCase(), second.core.toLowerCase()) > allowedChanges(letters(first.core))) return undefined;
  if (script === 'Greek' && bare(first.core) === bare(second.core)) return undefined;
  // Nor for letters the cut lost: the modern dictionary knows ancient words shortened ("ὁμοούσιον" → "ὁμοούσιο").
  if (script === 'Greek' && dropsLettersOnly(first.core, second.core)) return undefined;
  const language = known(second.core);
  if (language !== undefined) return taken(first, second, language);
  // No dictionary of ancient Greek is packaged: a Greek word read unsurely in its line, read alone as the same letters
  // with a few more in their places, is taken — the line's reading lost letters the cut shows ("ἐαλλάττει" → "ἐναλλάττειν").
  if (script !== 'Greek' || !unsure || !dropsLettersOnly(second.core, first.core)) return undefined;
  // A letter found at the end where the line read a mark after the word ("»" for "ν"): that mark was the letter.
  const lastFound = Array.from(second.core).at(-1) !== Array.from(first.core).at(-1) && first.suffix.endsWith(second.suffix);
  return taken(first, second, undefined, { suffix: lastFound ? second.suffix : first.suffix });
}

/**
 * A Greek word no dictionary knows, read again alone (`read` in its line, `again` cut out): no dictionary of ancient
 * Greek is packaged, so the document's own Greek stands in for one. When one of the two readings is one change (a
 * letter added, dropped or replaced) from exactly one Greek word the document prints confidently elsewhere (`near`),
 * and neither is from another, nor from the word first read, that word is taken — a quotation's words recur in its notes ("ἑατῶν" read alone where
 * the line read "ἁμτῶν", "ἑαυτῶν" printed in the next line). Recorded with no language (the document knew it).
 */
export function chooseDocumentGreek(read: string, again: readonly string[], near: (word: string) => string[]): { text: string; change: string } | undefined {
  const pair = oneWordAgain(read, again);
  if (!pair) return undefined;
  const { first, second } = pair;
  if (wordScript(first.core) !== 'Greek' || wordScript(second.core) !== 'Greek') return undefined;
  const found = new Set([...near(first.core), ...near(second.core)].filter((w) => wordScript(w) === 'Greek'));
  // A reading one change from the word first read, which the document prints confidently too: nothing to mend.
  if (found.size !== 1 || found.has(first.core)) return undefined;
  const [word] = found;
  return taken(first, { ...second, core: word }, undefined);
}

/**
 * The unknown words in Latin letters beside a Greek word (in its line or across the line's end): a Greek word the
 * engine read in Latin look-alikes ("bayrioy" for "ἐναντίον" after "à"), to be read again in Greek alone (`chooseGreek`).
 */
export function wordsBesideGreek(page: OcrPage, unknown: readonly RereadWord[]): RereadWord[] {
  const all = pageWords(page);
  const greek = (i: number): boolean => all[i] !== undefined && wordScript(splitWord(all[i].text).core) === 'Greek';
  return unknown.filter((w) => wordScript(splitWord(all[w.index].text).core) === 'Latin' && (greek(w.index - 1) || greek(w.index + 1)));
}

/**
 * The Greek reading of a word in Latin letters beside Greek (`wordsBesideGreek`): taken when it is one Greek word the
 * Greek dictionary knows (not only the document) with about as many letters (two more or fewer) as the first reading.
 * The letters cannot be compared across the scripts; the dictionary, the neighbours and the length decide.
 */
export function chooseGreek(
  read: string,
  again: readonly string[],
  known: (word: string) => string | undefined,
): { text: string; change: string; language: string } | undefined {
  const pair = oneWordAgain(read, again);
  if (!pair) return undefined;
  const { first, second } = pair;
  if (wordScript(first.core) !== 'Latin' || wordScript(second.core) !== 'Greek' || Math.abs(letters(second.core) - letters(first.core)) > 2) return undefined;
  return takenIfKnown(first, second, known);
}

/**
 * The checks every second reading opens with: the engine read the cut as exactly one word, of two letters or more
 * (several words, or a stray letter, say the cut held something else). Both readings split into punctuation and letters.
 */
function oneWordAgain(read: string, again: readonly string[]): { first: WordParts; second: WordParts } | undefined {
  if (again.length !== 1) return undefined;
  const second = splitWord(again[0]);
  return letters(second.core) < 2 ? undefined : { first: splitWord(read), second };
}

/**
 * The second reading's letters taken, inside the first reading's punctuation: an opening mark read second replaces a
 * misread one, unless the second reading had only the letters to change (`keepPrefix`: its marks, its accents).
 */
function taken<L extends string | undefined>(
  first: WordParts,
  second: WordParts,
  language: L,
  { suffix = first.suffix, keepPrefix = false }: { suffix?: string; keepPrefix?: boolean } = {},
): { text: string; change: string; language: L } {
  const prefix = keepPrefix || OPENING.test(first.prefix) ? first.prefix : second.prefix;
  return { text: `${prefix}${second.core}${suffix}`, change: `${first.core}→${second.core}`, language };
}

/** `taken` when a dictionary knows the second reading (not only the document's own words), else undefined. */
function takenIfKnown(
  first: WordParts,
  second: WordParts,
  known: (word: string) => string | undefined,
  keepPrefix = false,
): { text: string; change: string; language: string } | undefined {
  const language = known(second.core);
  return language === undefined || language === 'document' ? undefined : taken(first, second, language, { keepPrefix });
}

/**
 * A Greek word's marks read again from the bitonal page, in Greek alone (`greekToCheck`): taken when the new reading
 * is the same letters with accents or breathings added, none taken away or changed, and a Greek dictionary knows it
 * (by its modern spelling: "Τι" → "Τί"). The ink shows a mark or not; a mark it does not show is kept as first read.
 */
export function chooseMarks(
  read: string,
  again: readonly string[],
  known: (word: string) => string | undefined,
): { text: string; change: string; language: string } | undefined {
  const pair = oneWordAgain(read, again);
  if (!pair) return undefined;
  const { first, second } = pair;
  if (wordScript(first.core) !== 'Greek' || !marksAdded(first.core, second.core)) return undefined;
  return takenIfKnown(first, second, known, true);
}

/** Whether `second` is `first` letter for letter, each letter with the marks it had and at least one letter with more. */
function marksAdded(first: string, second: string): boolean {
  const a = Array.from(first.normalize('NFC'));
  const b = Array.from(second.normalize('NFC'));
  if (a.length !== b.length || a.join('') === b.join('')) return false;
  return a.every((ch, i) => {
    const [letter, ...marks] = Array.from(ch.normalize('NFD'));
    const [again, ...seen] = Array.from(b[i].normalize('NFD'));
    return letter === again && marks.every((m) => seen.includes(m));
  });
}

/** Whether `second` is `first` with some of its letters left out, and nothing else changed. */
function dropsLettersOnly(first: string, second: string): boolean {
  const a = Array.from(first);
  const b = Array.from(second);
  if (b.length >= a.length) return false;
  let i = 0;
  for (const ch of a) if (i < b.length && ch === b[i]) i++;
  return i === b.length;
}

/**
 * The two readings of a word a dictionary knows, read with doubt on the grey page (`read`) and cut from the bitonal
 * page the PDF shows (`ink`): the bitonal one is taken when it is one word a dictionary knows (not only the document)
 * that differs from the first by accents or a ligature alone — an accent is on the bitonal page or not, where the grey
 * page's blur may have taken it ("cour" → "cœur", "d’ail" → "d’œil", "àme" → "âme", "méme" → "même"). Any other
 * difference leaves the word as it is: the dictionary knew it, and the readings disagree on more than the marks.
 */
export function chooseInk(
  read: string,
  ink: readonly string[],
  known: (word: string) => string | undefined,
): { text: string; change: string; language: string } | undefined {
  const pair = oneWordAgain(read, ink);
  if (!pair) return undefined;
  const { first, second } = pair;
  if (second.core === first.core || wordScript(first.core) !== 'Latin' || letters(first.core) < INK_LETTERS || !marksApart(first.core, second.core))
    return undefined;
  return takenIfKnown(first, second, known, true);
}

/** Shorter words are left to the grammar rules: a speck of dust would decide "a" or "à", "la" or "là". */
const INK_LETTERS = 3;

/** Letters a ligature's ink is read as when it blurs: "œ" as o, a, e or c; "æ" as a or e. */
const LIGATURE_BLURS: Readonly<Record<string, string>> = { œ: 'oaec', æ: 'ae', Œ: 'OAEC', Æ: 'AE' };

/**
 * Whether two spellings differ only in their marks (accents, cedilla) or in a ligature the first reading split or
 * blurred ("oe", "o" or "a" for "œ"), letter for letter, apostrophes alike.
 */
function marksApart(first: string, second: string): boolean {
  const b = Array.from(second.replace(/’/g, "'"));
  const apart = (read: string): boolean => {
    const a = Array.from(read.replace(/’/g, "'"));
    if (a.length !== b.length) return false;
    return a.every(
      (ch, i) => ch === b[i] || (ch.toLowerCase() !== b[i].toLowerCase() && (bare(ch) === bare(b[i]) || (LIGATURE_BLURS[b[i]] ?? '').includes(ch))),
    );
  };
  if (first.replace(/’/g, "'") === second.replace(/’/g, "'")) return false;
  return apart(first) || (/[œŒ]/u.test(second) && apart(first.replace(/oe/g, 'œ').replace(/OE/g, 'Œ')));
}

/** A word without its accents and breathings, in small letters. */
function bare(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Give a word the reading `chooseReread` took, recorded as a `reread` correction. */
export function applyReread(word: OcrWord, choice: { text: string; change: string; language?: string }): void {
  const language = choice.language === undefined || choice.language === 'document' ? {} : { language: choice.language };
  changeWord(word, choice.text, { reason: 'reread', change: choice.change, ...language });
  delete word.unknown;
}
