/**
 * The rules that read a word from its neighbours or its page, where a dictionary alone cannot tell: French grammar
 * ("à" for the verb "a", "H" for "Il", "le 1 octobre"), citations ("p. 241, 1. 16"), a heading's numeral read as a
 * bar, the unaccented "a" of Latin pages; and, before the words are looked up, the bars and brackets OCR glues to
 * words. Each change is recorded on its word (see `changeWord`).
 */
import { pageWords, type OcrPage, type OcrWord } from '../../project/index.js';
import { avoirBefore, capitalA, firstOfMonth, frenchTrap, lineAbbreviation, tousBefore } from './grammar.js';
import type { Lexicon } from './lexicon.js';
import { changeWord, paragraphWords, splitWord } from './words.js';

/**
 * The rules that read a word from its neighbours or its page: French grammar on French pages, citations and
 * headings' numerals on every page, the unaccented words of Latin pages.
 */
export function correctInContext(page: OcrPage, lexicons: ReadonlyMap<string, Lexicon>, quotations: readonly Lexicon[]): number {
  const french = page.languages.length === 0 || page.languages.includes('fra') ? lexicons.get('fra') : undefined;
  const english = lexicons.get('eng') ?? quotations.find((l) => l.language === 'eng');
  const latin = lexicons.get('lat');
  return (
    (french ? correctFrenchInContext(page, french, english) : 0) +
    correctLineCitations(page) +
    correctNumeralBars(page) +
    (latin ? correctLatinAcutes(page, latin) : 0) +
    correctLatinGrave(page)
  );
}

/**
 * French "à" read where the page prints "a" (the verb), seen from the word after it, which may start the next line:
 * the words of a paragraph are read in order; "Il" read as "H" at a sentence's start; the first of a month ("le 1
 * octobre" for "le 1er octobre"); a capital A read "À" as an initial or before an English title. Returns how many
 * were changed.
 */
function correctFrenchInContext(page: OcrPage, french: Lexicon, english: Lexicon | undefined): number {
  const englishOnly = (text: string): boolean => {
    const { core } = splitWord(text);
    return english !== undefined && core !== '' && english.has(core) && !french.has(core) && !french.has(core.toLowerCase());
  };
  let changed = 0;
  for (const words of paragraphWords(page)) {
    words.forEach((word, i) => {
      if (word.edit) return;
      const { prefix, core, suffix } = splitWord(word.text);
      const trap = frenchTrap(core);
      if (trap !== undefined) {
        changeWord(word, prefix + trap + suffix, { reason: 'grammar', change: `${core}→${trap}`, language: 'fra' });
        changed++;
        return;
      }
      const a = capitalA(word.text, words[i + 1]?.text, words[i + 2]?.text, englishOnly);
      if (a !== undefined) {
        changeWord(word, a, { reason: 'grammar', change: 'À→A' });
        changed++;
        return;
      }
      const first = firstOfMonth(
        words[i - 1]?.text,
        word.text,
        words.slice(i + 1, i + 5).map((w) => w.text),
      );
      if (first !== undefined) {
        changeWord(word, first, { reason: 'grammar', change: `${word.text}→${first}`, language: 'fra' });
        changed++;
        return;
      }
      const next = words[i + 1];
      if (!next) return;
      const tous = suffix === '' ? tousBefore(word.text, next.text) : undefined;
      if (tous !== undefined) {
        changeWord(word, tous, { reason: 'grammar', change: `${word.text[0]}→${tous[0]}`, language: 'fra' });
        changed++;
      } else if (word.text === 'à' && avoirBefore(splitWord(next.text), words[i - 1] && splitWord(words[i - 1].text).core, french)) {
        changeWord(word, 'a', { reason: 'grammar', change: 'à→a', language: 'fra' });
        changed++;
      } else if (
        word.text === 'H' &&
        (i === 0 || AFTER_PUNCTUATION.test(words[i - 1].text)) &&
        /^\p{Ll}/u.test(next.text) &&
        french.has(splitWord(next.text).core)
      ) {
        // "Il" set tight reads as "H" (or a Greek Eta, mapped to H by then): at a sentence's start, before a word in
        // small letters, it is the pronoun. The full stop before it may still be read as a comma at this point.
        changeWord(word, 'Il', { reason: 'grammar', change: 'H→Il', language: 'fra' });
        changed++;
      }
    });
  }
  return changed;
}

/** A word that ends a sentence or a clause. */
const AFTER_PUNCTUATION = /[.,;:!?…»”]$/u;

/** A Latin page is judged on this many words at least. */
const LATIN_PAGE_WORDS = 30;

/** Whether the page was read in Latin and nothing else. */
function readInLatinAlone(page: OcrPage): boolean {
  return page.languages.length > 0 && page.languages.every((code) => code === 'lat');
}

/** Acute accents on a, i, o, u: no edition of a Latin text prints them (its accents are grave and circumflex). */
const LATIN_ACUTES = /[áíóúÁÍÓÚ]/u;

/**
 * A Latin word read with an acute accent ("ánimos", "dívídit", "ínter": a stray mark or a letter's serif taken for
 * one), on a page read in Latin alone: the accent goes where the word without it is Latin. (é is left: a French note
 * on a Latin page writes it.) Returns how many were changed.
 */
function correctLatinAcutes(page: OcrPage, latin: Lexicon): number {
  if (!readInLatinAlone(page)) return 0;
  let changed = 0;
  for (const word of pageWords(page)) {
    const { prefix, core, suffix } = splitWord(word.text);
    if (word.edit || !LATIN_ACUTES.test(core)) continue;
    const bare = core
      .normalize('NFD')
      .replace(/(?<=[aiouAIOU])\u0301/gu, '')
      .normalize('NFC');
    if (bare === core || !latin.has(bare)) continue;
    const marked = [...new Set(Array.from(core).filter((c) => LATIN_ACUTES.test(c)))];
    changeWord(word, prefix + bare + suffix, {
      reason: 'known-confusion',
      change: marked.map((c) => `${c}→${c.normalize('NFD')[0]}`).join(', '),
      language: 'lat',
    });
    changed++;
  }
  return changed;
}

/**
 * Latin "a" (the preposition) read "à": on a page read in Latin alone whose words carry no other accent, the edition
 * prints none, and "à" is the engine's (an edition that accents its Latin — "quàm", "Deò" — keeps every "à").
 * Returns how many were changed.
 */
function correctLatinGrave(page: OcrPage): number {
  if (!readInLatinAlone(page)) return 0;
  const words = pageWords(page);
  const grave = (w: OcrWord): boolean => /^[(«"]?à$/u.test(w.text);
  const accented = (w: OcrWord): boolean => /[àâäéèêëíìîïóòôöúùûüýÿ]/iu.test(w.text.normalize('NFC'));
  if (words.length < LATIN_PAGE_WORDS || words.some((w) => !grave(w) && accented(w))) return 0;
  let changed = 0;
  for (const word of words) {
    if (word.edit || !grave(word)) continue;
    changeWord(word, word.text.replace('à', 'a'), { reason: 'grammar', change: 'à→a', language: 'lat' });
    changed++;
  }
  return changed;
}

/**
 * An opening quote glued to a word in small letters ("\"a", "«a"), with its punctuation after; or the "<" small type
 * makes of a « ("<a" for "sa" at an x-height of 8 px), which an edition's angle brackets ("<positions>") close.
 */
const QUOTE_FOR_S = /^(["“«<])(\p{Ll}+)([.,;:]?)$/u;
/** The quote that closes each. */
const CLOSING_QUOTE: Readonly<Record<string, string>> = { '"': '"', '“': '”', '«': '»', '<': '>' };

/**
 * A small s read as an opening quote on a blurred page ("«a" or "\"a" for "sa", "«i" for "si": the s's two curves are
 * what is left of it): a quote glued to a word in small letters, which no quote later in its paragraph closes, is an
 * s where that makes a word the dictionaries know. Returns how many were changed.
 */
export function correctQuotesForS(page: OcrPage, known: (word: string) => boolean): number {
  let changed = 0;
  for (const words of paragraphWords(page)) {
    words.forEach((word, i) => {
      const quote = !word.edit ? QUOTE_FOR_S.exec(word.text) : null;
      if (!quote || !known(`s${quote[2]}`)) return;
      // A quotation it opens is closed by a quote after a later word (or alone), before the next quote that opens one.
      const [open, close] = [quote[1], CLOSING_QUOTE[quote[1]]];
      const next = words.slice(i + 1).findIndex((w) => w.text.startsWith(open) && !(open === close && w.text === close));
      const rest = words.slice(i + 1, next < 0 ? undefined : i + 1 + next);
      if (rest.some((w) => w.text.includes(close))) return;
      changeWord(word, `s${quote[2]}${quote[3]}`, { reason: 'known-confusion', change: `${open}→s` });
      changed++;
    });
  }
  return changed;
}

/** A bar glued to a word's start or end ("|proximique"): a stroke of the gutter or a rule, not a letter. */
const GLUED_BAR = /^\|(?=\p{L})|(?<=\p{L})\|$/u;

/**
 * A bar glued to the start or end of a word the dictionaries know is dropped ("|proximique"), unless the bar read as
 * an l or an I makes a word too. Returns how many were changed.
 */
export function correctGluedBars(page: OcrPage, known: (word: string) => boolean): number {
  let changed = 0;
  for (const word of pageWords(page)) {
    if (word.edit || !GLUED_BAR.test(word.text)) continue;
    const bare = word.text.replace(GLUED_BAR, '');
    const { core } = splitWord(bare);
    const asLetter = word.text.startsWith('|') ? ['l', 'I'].map((c) => c + core) : ['l', 'I'].map((c) => core + c);
    if (!known(core) || asLetter.some(known)) continue;
    changeWord(word, bare, { reason: 'known-confusion', change: '| dropped' });
    changed++;
  }
  return changed;
}

/** A bar read for a capital I, with its stop: "|." */
const BAR_NUMERAL = /^\|([.,:]?)$/u;

/**
 * The Roman numeral I of a heading read as a bar ("|. MONSIEUR MYRIEL"): a bar opening a line before a word in
 * capitals. A bar is never a word of its own; elsewhere it may as well be a 1 or an l, and stays. Returns how many
 * were changed.
 */
function correctNumeralBars(page: OcrPage): number {
  let changed = 0;
  for (const line of page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines))) {
    const [word, next] = line.words;
    const bar = word && !word.edit ? BAR_NUMERAL.exec(word.text) : null;
    if (!bar || !next || !/^\p{Lu}{2,}\p{P}*$/u.test(next.text)) continue;
    changeWord(word, `I${bar[1]}`, { reason: 'known-confusion', change: '|→I' });
    changed++;
  }
  return changed;
}

/**
 * "l." (line) read as the digit one in a citation, "p. 241, 1. 16" for "p. 241, l. 16": the page number before it and
 * the line number after it make the engine's language model choose a digit (see `lineAbbreviation`). Returns how many
 * were changed.
 */
function correctLineCitations(page: OcrPage): number {
  let changed = 0;
  for (const words of paragraphWords(page)) {
    words.forEach((word, i) => {
      if (word.edit || i < 1) return;
      const fixed = lineAbbreviation(words[i - 2]?.text ?? '', words[i - 1].text, word.text, words[i + 1]?.text);
      if (fixed === undefined) return;
      changeWord(word, fixed, { reason: 'grammar', change: `${word.text}→${fixed}` });
      changed++;
    });
  }
  return changed;
}

/** A word in capitals ending in a closing bracket ("SIMONETT],"): the bracket may be the word's last I. */
const CAPITALS_BRACKET = /^(\p{Lu}{2,})\]([.,;:]?)$/u;

/**
 * A closing square bracket glued to a word in capitals, with no bracket open before it in the paragraph, is the
 * word's last capital I, its serifs read as the bracket's ("M. SIMONETT]," for "SIMONETTI,"). Returns how many were
 * changed.
 */
export function correctStrayBrackets(page: OcrPage): number {
  let changed = 0;
  for (const words of paragraphWords(page)) {
    let open = false;
    for (const word of words) {
      const stray = !open && !word.edit ? CAPITALS_BRACKET.exec(word.text) : null;
      if (stray) {
        changeWord(word, `${stray[1]}I${stray[2]}`, { reason: 'known-confusion', change: ']→I' });
        changed++;
        continue;
      }
      if (word.text.includes('[')) open = true;
      if (word.text.includes(']')) open = false;
    }
  }
  return changed;
}
