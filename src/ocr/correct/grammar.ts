/**
 * Misreadings a dictionary cannot see, the words on either side deciding. French "à" (the preposition) read where the
 * page prints "a" (avoir: "Acace a succédé", "il a été"): the engine reads the grave accent into the blur above an "a"
 * far more often than it loses a real one, and the preposition is never followed straight by a past participle, so
 * "à" becomes "a" only there — and only for participles that cannot be a noun after "à" ("à côté", "à durée
 * déterminée", "à portée" stay as read). The "l." of a citation read as a digit ("p. 241, 1. 16"). And a few
 * dictionary words the engine makes of common ones ("mème" for "même", "fous deux" for "tous deux").
 */
import type { Lexicon } from './lexicon.js';

/**
 * Past participles not formed like "aimé", "fini", "vendu" from their infinitive, with their written forms. Left out
 * on purpose: those that follow "à" as words of their own ("à mort", "à vue", "à cru", "à couvert"); "tout à fait"
 * is the one exception kept in (see `avoirBefore`).
 */
const IRREGULAR = new Set([
  'été',
  'eu',
  'pu',
  'su',
  'dû',
  'vu',
  'lu',
  'bu',
  'plu',
  'fallu',
  'valu',
  'voulu',
  'venu',
  'tenu',
  'obtenu',
  'retenu',
  'devenu',
  'revenu',
  'parvenu',
  'reçu',
  'aperçu',
  'conçu',
  'déçu',
  'connu',
  'reconnu',
  'vécu',
  'paru',
  'apparu',
  'disparu',
  'couru',
  'résolu',
  'suivi',
  'poursuivi',
  'né',
  ...[
    'fait',
    'dit',
    'écrit',
    'décrit',
    'inscrit',
    'prescrit',
    'souscrit',
    'transcrit',
    'conduit',
    'produit',
    'traduit',
    'construit',
    'détruit',
    'réduit',
    'introduit',
    'pris',
    'appris',
    'compris',
    'repris',
    'surpris',
    'entrepris',
    'mis',
    'admis',
    'commis',
    'permis',
    'promis',
    'remis',
    'soumis',
    'transmis',
    'omis',
    'acquis',
    'conquis',
    'requis',
    'ouvert',
    'offert',
    'souffert',
    'craint',
    'joint',
    'rejoint',
    'peint',
    'atteint',
    'éteint',
    'contraint',
  ].flatMap((m) => [m, `${m}e`, `${m}es`, m.endsWith('s') ? m : `${m}s`]),
]);

/** Verb endings a regular masculine participle comes from: "succédé" ← "succéder", "fini" ← "finir", "vendu" ← "vendre". */
const REGULAR: ReadonlyArray<{ ending: RegExp; infinitive: string }> = [
  { ending: /és?$/u, infinitive: 'er' },
  { ending: /is?$/u, infinitive: 'ir' },
  { ending: /us?$/u, infinitive: 're' },
];

/** Whether `word` (lower case, a dictionary word) is a past participle that never follows the preposition "à". */
export function isPastParticiple(word: string, french: Lexicon): boolean {
  if (IRREGULAR.has(word)) return true;
  if (!/^\p{Ll}+$/u.test(word) || !french.has(word)) return false;
  for (const { ending, infinitive } of REGULAR) {
    const stem = word.replace(ending, '');
    if (stem !== word && stem.length >= 2 && french.has(stem + infinitive)) return true;
  }
  return false;
}

/**
 * Whether "à" is the verb "a" misread, from the word after it (its letters; it must follow with no punctuation between)
 * and the one before.
 */
export function avoirBefore(next: { prefix: string; core: string }, previousCore: string | undefined, french: Lexicon): boolean {
  if (next.prefix !== '' || next.core === '') return false;
  // "tout à fait", the one locution where "à" precedes a participle.
  if (previousCore?.toLowerCase() === 'tout') return false;
  return isPastParticiple(next.core, french);
}

/**
 * Dictionary words a book almost never prints but the engine makes of a common one: "mème" (the internet meme, a
 * word of this century) for "même", as in a capture's "dans la mème ville". Replaced wherever read.
 */
const FRENCH_TRAPS: ReadonlyMap<string, string> = new Map([
  ['mème', 'même'],
  ['mèmes', 'mêmes'],
  ['Mème', 'Même'],
  ['Mèmes', 'Mêmes'],
]);

/** What a French word read whole should be when it is one of the engine's real-word traps, else undefined. */
export function frenchTrap(word: string): string | undefined {
  return FRENCH_TRAPS.get(word);
}

/**
 * "tous" read as "fous" (a "t" with a faint crossbar): the adjective "fous" never stands before "deux", "trois" or
 * "ceux", which "tous" does all the time ("tous deux"). Returns "tous"/"Tous", or undefined.
 */
export function tousBefore(word: string, next: string): string | undefined {
  if (!/^(?:deux|trois|quatre|ceux|celles)\b/u.test(next)) return undefined;
  return word === 'fous' ? 'tous' : word === 'Fous' ? 'Tous' : undefined;
}

/** What the engine makes of a small "l." between two numbers: the digit one, a capital I, a bar or a Greek iota, then "." or ",". */
const READ_AS_LINE = /^[1Il|ἰι][.,]/u;
const PAGE_NUMBER = /^\d+(?:[-–]\d+)?,$/u;
const PAGE_MARK = /^pp?\.$/u;

/**
 * The abbreviation "l." (line, ligne) of a citation misread, from the words around it: "p." and a page number (or
 * range) with its comma before, a line number after ("p. 241, 1. 16", "p. 231, 1. 11-12"), or glued to it
 * ("p. 240, 1.5;"). The engine may also glue the page number to "p." ("p.261, 1.12") or the line to the page number
 * ("p. 241,1. 28"). Returns the word as it should read, or undefined when it is not such a misreading.
 */
export function lineAbbreviation(pageMark: string, pageNumber: string, word: string, next: string | undefined): string | undefined {
  const pageBefore = (PAGE_MARK.test(pageMark) && PAGE_NUMBER.test(pageNumber)) || /^pp?\.\d+(?:[-–]\d+)?,$/u.test(pageNumber);
  if (pageBefore && READ_AS_LINE.test(word)) return line('', word.slice(2), next, word);
  // The line glued to the page number: "241,1." becomes "241, l.".
  const glued = /^(\d+(?:[-–]\d+)?,)([1Il|ἰι][.,])(.*)$/u.exec(word);
  if (glued && PAGE_MARK.test(pageNumber)) return line(`${glued[1]} `, glued[3], next, word);
  return undefined;
}

function line(before: string, rest: string, next: string | undefined, word: string): string | undefined {
  const cited = rest === '' ? next !== undefined && /^\d/u.test(next) : /^\d/u.test(rest);
  const fixed = `${before}l.${rest}`;
  return cited && fixed !== word ? fixed : undefined;
}

const MONTHS = /^(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)\b/u;
/** What the engine makes of "1er" with its "er" raised: the bare digit, a degree sign, "ler", "1e". */
const FIRST_READ = /^(?:1|1°|1e|ler|1cr)$/u;

/**
 * The first of a month, "1er" in French with its letters raised, which the engine reads as "1", "1°" or "ler": after
 * "le" and before a month ("le 1 octobre"), or before "et" or "au" and another day of a month ("le 1° et le 10
 * octobre"). "1°" elsewhere is "primo" and stays. Returns "1er", or undefined.
 */
export function firstOfMonth(before: string | undefined, word: string, after: readonly string[]): string | undefined {
  if (!FIRST_READ.test(word) || (before !== 'le' && before !== 'Le' && before !== 'du')) return undefined;
  if (after[0] !== undefined && MONTHS.test(after[0])) return '1er';
  const [link, article, day, month] = after;
  const linked =
    (link === 'et' || link === 'au') &&
    (article === 'le' ? /^\d{1,2}$/u.test(day ?? '') && MONTHS.test(month ?? '') : /^\d{1,2}$/u.test(article ?? '') && MONTHS.test(day ?? ''));
  return linked ? '1er' : undefined;
}

/**
 * A capital A read with the grave accent French puts on the preposition: as an initial ("À. VON STOCKHAUSEN": no name
 * is shortened to À) or as the English article of a title cited in a French text ("À History of Neo-Arianism": the
 * two words after it English, not French). Returns "A"/"A.", or undefined.
 */
export function capitalA(word: string, next: string | undefined, afterNext: string | undefined, englishOnly: (word: string) => boolean): string | undefined {
  if (word === 'À.') return 'A.';
  if (word === 'À' && next !== undefined && afterNext !== undefined && englishOnly(next) && englishOnly(afterNext)) return 'A';
  return undefined;
}
