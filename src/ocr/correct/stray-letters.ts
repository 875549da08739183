/**
 * Letters standing alone that no language of the page writes as a word: most often a speck, the end of a rule or a
 * piece of a neighbouring letter read as a letter (a lone "Ἰ" in a French page's Greek note), which no dictionary can
 * judge. They are left as read and marked for a person's look (`doubt: 'letter'`).
 */
import { pageWords, type OcrPage } from '../../project/index.js';
import { languageScript } from '../languages.js';
import { wordScript } from '../scripts.js';
import { splitWord } from './words.js';

/**
 * The words of one letter of each language (small letters, NFC) whose lone letters can be judged; a language not
 * listed leaves its script's lone letters alone. Greek: the articles, the relatives, "ἤ" and the interjections, in
 * polytonic and monotonic spelling.
 */
const ONE_LETTER_WORDS: Readonly<Record<string, string>> = {
  fra: 'aàyôo',
  eng: 'aio',
  lat: 'aeoāēō',
  deu: '',
  ita: 'aeèio',
  spa: 'aeouy',
  por: 'aàeéo',
  nld: 'u',
  ell: 'ὁἡὅἥἅὃἣἃἤἢἦἧὦὧᾗᾧᾖοηωόήώ',
  grc: 'ὁἡὅἥἅὃἣἃἤἢἦἧὦὧᾗᾧᾖ',
};

/** Capital letters that are Roman numerals on their own ("chapitre V", "Constance I"). */
const ROMAN_NUMERALS = 'IVX';

/**
 * Mark the page's lone letters that are no one-letter word of the page's languages of their script. A lone letter is
 * left alone where it is a numeral (Roman, or Greek with its numeral sign: "βʹ"), an elision ("l’"), an item of a list
 * ("a)", "(b)"), or an abbreviation in the page's first language ("p.", "M."): a Greek letter with a full stop in a
 * French page is no French abbreviation. Words already corrected, doubted or checked by a person are left as they are.
 * Returns how many words were marked.
 */
export function markStrayLetters(page: OcrPage, languages: readonly string[]): number {
  let marked = 0;
  for (const word of pageWords(page)) {
    if (word.edit || word.correction || word.doubt) continue;
    const { prefix, core, suffix } = splitWord(word.text);
    if (Array.from(core).length !== 1 || !/\p{L}/u.test(core)) continue;
    const script = wordScript(core);
    const own = languages.filter((code) => languageScript(code) === script);
    if (own.length === 0 || own.some((code) => ONE_LETTER_WORDS[code] === undefined)) continue;
    const letter = core.normalize('NFC').toLowerCase();
    if (own.some((code) => ONE_LETTER_WORDS[code].includes(letter))) continue;
    if ((script === 'Latin' && ROMAN_NUMERALS.includes(core)) || /^[ʹ'’΄]/u.test(suffix) || /[()[\]]/u.test(prefix + suffix)) continue;
    if (suffix.startsWith('.') && languageScript(languages[0] ?? '') === script) continue;
    word.doubt = 'letter';
    marked++;
  }
  return marked;
}
