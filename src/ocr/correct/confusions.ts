/**
 * The candidates a misread word may stand for: the engine's own alternative characters, or the confusions OCR
 * is known to make on camera pages (a lost accent, e read as c, ç read as g, œ read as oe, l/1/I, 0/O). Pure
 * string work; which candidate is taken is the dictionary's call (see `correct.ts`).
 */

/** A piece of a word as read, and what it may have been instead (never itself). */
export interface Segment {
  read: string;
  options: readonly string[];
}

/**
 * Known confusions, lower case: what a character as read may stand for. Measured on real webcam captures of French
 * books: accents lost or swapped, the eye of a small e closed into c (and c for e), ç read as g, ô/û/î read bare,
 * "ti" read as ü; on blurred pages h and b for each other.
 * Upper case follows from lower case.
 */
const CONFUSIONS: Readonly<Record<string, readonly string[]>> = {
  e: ['é', 'è', 'ê', 'ë', 'c'],
  é: ['e', 'è', 'ê'],
  è: ['e', 'é', 'ê'],
  ê: ['e', 'é', 'è'],
  ë: ['e', 'é'],
  c: ['ç', 'e'],
  ç: ['c'],
  g: ['ç'],
  a: ['à', 'â'],
  à: ['a', 'â'],
  â: ['a', 'à'],
  o: ['ô'],
  ô: ['o'],
  u: ['ù', 'û'],
  ù: ['u', 'û'],
  û: ['u', 'ù'],
  i: ['î', 'ï'],
  î: ['i', 'ï'],
  ï: ['i', 'î'],
  // "ti" set tight: the t's top and the i's dot read as a diaeresis ("repenür" for "repentir").
  ü: ['u', 'ti'],
  // Blur: the bowl of h closed into b ("bommes", "baec"), and the reverse.
  b: ['h'],
  h: ['b'],
  l: ['I'],
  '1': ['l', 'I'],
  '0': ['O', 'o'],
};
/** Upper-case letters whose confusions are not those of their lower case. */
const UPPER_CONFUSIONS: Readonly<Record<string, readonly string[]>> = {
  I: ['l', 'Î', 'Ï'],
  L: [],
  // A capital H and B are not alike; and a name is too often one letter from another ("Harbour", "Barbour").
  H: [],
  B: [],
};

function confusionsOf(ch: string): readonly string[] {
  if (UPPER_CONFUSIONS[ch]) return UPPER_CONFUSIONS[ch];
  const direct = CONFUSIONS[ch];
  if (direct) return direct;
  const lower = ch.toLowerCase();
  // A capital E is never read as C, nor the reverse: the confusion is the small e's closed eye.
  if (lower !== ch && CONFUSIONS[lower]) return CONFUSIONS[lower].filter((c) => /\p{L}/u.test(c) && c !== 'c' && c !== 'e').map((c) => c.toUpperCase());
  return [];
}

/**
 * The word cut into characters with their known confusions. Two more: `oe` may be `œ` (and `OE` `Œ`), kept as
 * one piece that may also take its letters' own confusions (`poete` → `poète`); and an `8` starting a word may be
 * an `s` (`8ur` → `sur`).
 */
export function confusionSegments(word: string): Segment[] {
  const chars = Array.from(word);
  const segments: Segment[] = [];
  const capitals = chars.filter((c) => c !== c.toLowerCase()).length;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    const next = chars[i + 1];
    if (ch === 'l') {
      // l for I only where a capital I can stand: in a word in capitals, or as the I of "Il", "Ils".
      const allCaps = capitals > 0 && capitals === chars.filter((c) => /\p{L}/u.test(c)).length - 1;
      segments.push({ read: ch, options: allCaps || (i === 0 && next === 'l') ? ['I'] : [] });
      continue;
    }
    if ((ch === 'o' && next === 'e') || (ch === 'O' && next === 'E')) {
      const ligature = ch === 'o' ? 'œ' : 'Œ';
      const firsts = [ch, ...confusionsOf(ch)];
      const seconds = [next, ...confusionsOf(next)];
      const options = new Set<string>([ligature]);
      for (const a of firsts) for (const b of seconds) options.add(a + b);
      options.delete(ch + next);
      segments.push({ read: ch + next, options: [...options] });
      i++;
      continue;
    }
    if (i === 0 && ch === '8' && chars.length > 1) {
      segments.push({ read: ch, options: next && next === next.toUpperCase() && next !== next.toLowerCase() ? ['S'] : ['s'] });
      continue;
    }
    segments.push({ read: ch, options: confusionsOf(ch) });
  }
  return segments;
}

/**
 * Letters small type loses a stroke of, asked only when no known confusion gives a word: m for n (a stem too many,
 * "maissance"), o for n (the arch closed, "Matrooa"), v for œ (the ligature's eyes lost, "svur"). Measured on the
 * quality benchmark's unknown words, all rows: 9 of 10 such single changes gave the printed word, the tenth was a
 * two-letter word (none are taken); m, u, f, t, l, b, c, h for one another were wrong more often than right.
 */
const SHAPE_CONFUSIONS: Readonly<Record<string, readonly string[]>> = {
  m: ['n'],
  o: ['n'],
  v: ['œ'],
};

/** The word cut into characters with the letters small type loses a stroke of (`SHAPE_CONFUSIONS`), small letters only. */
export function shapeSegments(word: string): Segment[] {
  return Array.from(word).map((ch) => ({ read: ch, options: SHAPE_CONFUSIONS[ch] ?? [] }));
}

/**
 * The word cut into the engine's characters with its other choices for each, letters only and at most
 * `perCharacter` of them (the engine lists them best first), or undefined when the choices do not spell `word`.
 */
export function choiceSegments(alternatives: readonly (readonly string[])[], word: string, perCharacter = 4): Segment[] | undefined {
  const segments: Segment[] = [];
  for (const group of alternatives) {
    const [read, ...rest] = group;
    if (read === undefined) return undefined;
    const options = rest.filter((c) => c !== read && /^[\p{L}'’-]+$/u.test(c)).slice(0, perCharacter);
    segments.push({ read, options });
  }
  return segments.map((s) => s.read).join('') === word ? segments : undefined;
}

/** A candidate: the word's pieces with some replaced, and which pieces were. */
export interface Candidate {
  parts: string[];
  changed: number[];
}

/**
 * Every word made by replacing exactly `changes` pieces with one of their options, pieces in order. With 1 or 2
 * changes and a handful of options per piece this stays in the hundreds for a long word.
 */
export function* variants(segments: readonly Segment[], changes: number, limit = 5000): Generator<Candidate> {
  const parts = segments.map((s) => s.read);
  let made = 0;
  function* pick(from: number, left: number, changed: number[]): Generator<Candidate> {
    if (left === 0) {
      made++;
      yield { parts: [...parts], changed: [...changed] };
      return;
    }
    for (let i = from; i < segments.length && made < limit; i++) {
      for (const option of segments[i].options) {
        parts[i] = option;
        changed.push(i);
        yield* pick(i + 1, left - 1, changed);
        changed.pop();
        parts[i] = segments[i].read;
        if (made >= limit) return;
      }
    }
  }
  yield* pick(0, changes, []);
}

/**
 * The accented letters each language writes: a candidate that brings in another is not one of its words, whatever
 * its dictionary says (Latin and English write none; the Latin dictionary still knows a few circumflexed forms).
 */
const ACCENTED_LETTERS: Readonly<Record<string, string>> = {
  fra: 'éèêëàâçôûùîïœÿæ',
  ita: 'àèéìíòóùú',
  spa: 'áéíóúñü',
  por: 'áâãàçéêíóôõú',
  deu: 'äöüß',
  eng: '',
  lat: '',
};

/** The accented forms of a letter's base letter that `language` writes ("ó" in French: "ô"). */
export function writtenAccents(language: string, letter: string): string[] {
  const base = letter.normalize('NFD').charAt(0);
  return Array.from(ACCENTED_LETTERS[language] ?? '').filter((c) => c.normalize('NFD').charAt(0) === base && c.normalize('NFD').length > 1);
}

/** Whether `language` writes accented letters at all (French does; Latin and English do not). */
export function writesAccents(language: string): boolean {
  return (ACCENTED_LETTERS[language] ?? '') !== '';
}

/** Whether `language` writes every accented letter `candidate` brings in that `word` did not have. */
export function writesAccentsOf(language: string, word: string, candidate: string): boolean {
  const allowed = ACCENTED_LETTERS[language];
  if (allowed === undefined) return true;
  const before = new Set(Array.from(word.toLowerCase()));
  return Array.from(candidate.toLowerCase()).every((c) => before.has(c) || (c.codePointAt(0) ?? 0) < 0x80 || allowed.includes(c));
}

/** `g→ç, c→e`: what a candidate changed, in the word's order. */
export function describeChange(segments: readonly Segment[], candidate: Candidate): string {
  return candidate.changed.map((i) => `${segments[i].read}→${candidate.parts[i]}`).join(', ');
}
