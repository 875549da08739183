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

/** How many letters a text holds (not digits, marks or punctuation). */
export function letterCount(text: string): number {
  let n = 0;
  for (const ch of text) if (/\p{L}/u.test(ch)) n += 1;
  return n;
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
  // A breathing on the iota is the hook of a t's top ("οἱ" for "et").
  ἰ: ['i', 't', 'l'],
  ἱ: ['i', 't', 'l'],
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

/** The other way: the Greek letters a Latin letter may stand for, from the same table (base letters, one for one). */
const GREEK_LOOK_ALIKES: ReadonlyMap<string, readonly string[]> = (() => {
  const found = new Map<string, string[]>();
  for (const [greek, latins] of Object.entries(LOOK_ALIKES)) {
    // ἰ, ἱ carry a breathing and µ is the micro sign: the plain letter is the look-alike.
    if (greek.normalize('NFD').length > 1 || greek === 'µ') continue;
    for (const latin of latins) if (latin.length === 1) found.set(latin, [...(found.get(latin) ?? []), greek]);
  }
  return found;
})();

/** The Greek letters a Latin letter may be a misreading of ("T" for "Τ", "i" for "ι"); none if it has none. */
export function greekLookAlikes(ch: string): readonly string[] {
  return GREEK_LOOK_ALIKES.get(ch) ?? [];
}

/**
 * Spellings no Greek word has, which the engine makes of Greek in a serif face: the micro sign (µ, from Latin
 * fonts) for μ; ζ at a word's end for the final ς it resembles (no Greek word ends in ζ); and δ for θ in the
 * middle infinitive ending "-σθαι" ("μεταβάλλεσδαι"). Returns the word mended and its changes ("ζ→ς"), or undefined
 * when none applies.
 */
export function greekSpelling(word: string): { text: string; change: string } | undefined {
  let fixed = word.replace(/µ/gu, 'μ');
  if (Array.from(fixed).length >= 3) fixed = fixed.replace(/(?<=[\u0370-\u03ff\u1f00-\u1fff])ζ$/u, 'ς');
  fixed = fixed.replace(/σδαι$/u, 'σθαι');
  if (fixed === word) return undefined;
  // Each rule swaps one letter for one: the changes are the letters that differ.
  const after = Array.from(fixed);
  const change = [...new Set(Array.from(word).flatMap((ch, i) => (ch !== after[i] ? [`${ch}→${after[i]}`] : [])))].join(', ');
  return { text: fixed, change };
}

/** Small letters drawn like their capitals, only smaller: in a name set in small capitals the engine reads them small. */
const SAME_SHAPE_SMALL = 'cosvwxz';

/**
 * A name set in capitals or small capitals with some letters read small ("KoPEcEK" for "KOPECEK"): at least three
 * capitals, more capitals than small letters, every small letter one drawn like its capital, and a capital after a
 * small one (so "Coco" stays), not a lone small second letter ("McCOY" stays). Returns the word in capitals, or
 * undefined.
 */
export function smallCapitals(word: string): string | undefined {
  if (!/^\p{L}+$/u.test(word)) return undefined;
  const capitals = word.match(/\p{Lu}/gu)?.length ?? 0;
  const small = word.match(/\p{Ll}/gu) ?? [];
  if (capitals < 3 || small.length === 0 || small.length >= capitals) return undefined;
  if (!small.every((ch) => SAME_SHAPE_SMALL.includes(ch)) || !/\p{Ll}\p{Lu}/u.test(word)) return undefined;
  if (small.length === 1 && /^\p{Lu}\p{Ll}/u.test(word)) return undefined;
  return word.toUpperCase();
}

/**
 * A word in small letters with a capital read inside it ("disPersèrent": P and p differ by place, C and c, S and s by
 * size only): the word with every letter after the first in small letters, or undefined when no capital follows a
 * small letter. Whether that is a word is the dictionary's call.
 */
export function capitalsInside(word: string): string | undefined {
  if (!/^\p{L}+$/u.test(word) || !/\p{Ll}\p{Lu}/u.test(word)) return undefined;
  const small = word.match(/\p{Ll}/gu)?.length ?? 0;
  const capitals = word.match(/\p{Lu}/gu)?.length ?? 0;
  if (capitals > 2 || small < 3) return undefined;
  const [first, ...rest] = Array.from(word);
  return first + rest.join('').toLowerCase();
}

/**
 * A polytonic Greek word (ancient Greek, as scholarly books quote it) in the spellings a modern Greek dictionary may
 * know it by: breathings and the iota subscript dropped, grave and circumflex written as the one modern accent
 * ("πῶς" → "πώς", "οὐσίας" → "ουσίας"), and with no accent at all, as modern Greek writes its monosyllables ("καὶ"
 * → "και", "δὲ" → "δε", "Τίς" → "Τις"). Empty for a word with no mark at all. No dictionary of ancient Greek is packaged; this
 * lets the modern one recognise the commonest words of a quotation instead of leaving every one as unknown.
 */
export function modernGreekForms(word: string): string[] {
  const decomposed = word.normalize('NFD');
  if (!/[\u0300-\u036f]/u.test(decomposed)) return [];
  const accented = decomposed
    .replace(/[\u0313\u0314\u0345]/gu, '')
    .replace(/[\u0300\u0342]/gu, '\u0301')
    .normalize('NFC');
  const bare = decomposed.replace(/[\u0300-\u036f]/gu, '').normalize('NFC');
  return [...new Set([accented, bare])];
}
