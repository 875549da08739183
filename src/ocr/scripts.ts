/**
 * Which script a word is written in, and the Greek letters that look like Latin ones. Read with a Latin and a Greek
 * model together (`fra+ell`), tesseract sometimes takes a Latin word for Greek ("Α. Μλατιν" for "A. MARTIN", "πο"
 * for "ne" in a French sentence); these tables let the correction step map such words back.
 */

export type WordScript = 'Latin' | 'Greek' | 'mixed' | 'none';

const GREEK = /[\u0370-\u03ff\u1f00-\u1fff]/u;
const LATIN = /[a-zA-Z\u00c0-\u024f\u1e00-\u1eff]/u;

export function isGreekLetter(ch: string): boolean {
  return GREEK.test(ch) && /\p{L}/u.test(ch);
}

/** The script of a word's letters: one, both (`mixed`), or `none` (no letters). */
export function wordScript(word: string): WordScript {
  let latin = false;
  let greek = false;
  for (const ch of word) {
    if (isGreekLetter(ch)) greek = true;
    else if (LATIN.test(ch)) latin = true;
  }
  return latin && greek ? 'mixed' : latin ? 'Latin' : greek ? 'Greek' : 'none';
}

/**
 * Greek letters and the Latin letters they are mistaken for, most alike first. Capitals that are the same shape in
 * both alphabets map one to one (and Π to the "Il" it is read for); small letters map to what a serif face makes them
 * look like (η and π for n, ν for v, ρ for p, ε and ο for e and o). Accents and breathings fall with the letter (ἰ is an i).
 */
const LOOK_ALIKES: Readonly<Record<string, readonly string[]>> = {
  Α: ['A'],
  Β: ['B'],
  Ε: ['E'],
  Ζ: ['Z'],
  Η: ['H'],
  Ι: ['I', 'l'],
  Κ: ['K'],
  Μ: ['M'],
  Ν: ['N'],
  Ο: ['O'],
  Ρ: ['P'],
  Τ: ['T'],
  Υ: ['Y'],
  Χ: ['X'],
  Ϲ: ['C'],
  // "Il" set tight in a serif face: two stems under the serifs' bar.
  Π: ['Il'],
  α: ['a'],
  β: ['B'],
  γ: ['y'],
  ε: ['e', 'c'],
  η: ['n'],
  ι: ['i', 'l'],
  κ: ['k'],
  μ: ['u'],
  ν: ['v', 'u'],
  ο: ['o', 'e'],
  π: ['n'],
  ρ: ['p'],
  σ: ['o'],
  ς: ['s'],
  τ: ['t'],
  υ: ['u', 'v'],
  χ: ['x'],
  ω: ['w'],
  ϲ: ['c'],
  µ: ['u'],
};

/** The Latin letters a Greek letter may stand for, most alike first (accents and breathings ignored); none if it has none. */
export function latinLookAlikes(ch: string): readonly string[] {
  const direct = LOOK_ALIKES[ch];
  if (direct) return direct;
  // ἱ, ό, ὁ…: the base letter once the diacritics are taken off.
  const base = ch.normalize('NFD').replace(/[\u0300-\u036f\u0342-\u0345]/g, '');
  return base !== ch ? (LOOK_ALIKES[base] ?? []) : [];
}
