/**
 * The lexicon of a language: is this word spelled as the language spells it? Hunspell dictionaries from the npm
 * `dictionary-<code>` packages (installed by `npm ci`, never fetched at run time), read by Hunspell itself compiled
 * to WebAssembly (`hunspell-asm`). nspell, the pure-JS reader, took 8.8 s and 600 MB to load the French dictionary
 * on our machines; Hunspell loads it in 0.15 s and checks a word in ~15 µs. Used by the OCR correction step and by
 * the Markdown's hyphenation decisions.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { HunspellFactory } from 'hunspell-asm';

const require = createRequire(import.meta.url);

/** Tesseract language code → the npm package holding its Hunspell `.aff`/`.dic`. */
const DICTIONARY_PACKAGES: Readonly<Record<string, string>> = {
  eng: 'dictionary-en',
  fra: 'dictionary-fr',
  deu: 'dictionary-de',
  spa: 'dictionary-es',
  ita: 'dictionary-it',
  lat: 'dictionary-la',
  por: 'dictionary-pt',
  ell: 'dictionary-el',
};

export interface Lexicon {
  /** The tesseract code of the language. */
  readonly language: string;
  /**
   * True when the language spells the word this way. Case follows Hunspell: a lower-case word is also accepted
   * capitalised or in capitals ("même", "Même", "MÊME"); a proper noun only as the dictionary writes it.
   */
  has(word: string): boolean;
  /**
   * True for the language's most frequent words, its function words ("le", "une", "ils"; "in", "is"; "et", "quod"):
   * the stop-word lists of the npm `stopword` package, in small letters. Greek has none here (its list is written
   * without accents).
   */
  common(word: string): boolean;
}

/** Tesseract language code → its list in the `stopword` package (the same ISO 639-3 codes), for `Lexicon.common`. */
const COMMON_WORDS = ['eng', 'fra', 'deu', 'spa', 'ita', 'lat', 'por'];

function commonWords(language: string): ReadonlySet<string> {
  if (!COMMON_WORDS.includes(language)) return new Set();
  const lists = require('stopword') as Record<string, readonly string[] | undefined>;
  return new Set((lists[language] ?? []).map((w) => w.normalize('NFC')));
}

let factory: Promise<HunspellFactory> | undefined;
const lexicons = new Map<string, Promise<Lexicon | null>>();

/** The folder of an installed npm package (found the way Node finds our dependencies), or null. */
function packageFolder(name: string): string | null {
  for (const folder of require.resolve.paths(name) ?? []) {
    const candidate = join(folder, name);
    if (existsSync(join(candidate, 'index.aff')) && existsSync(join(candidate, 'index.dic'))) return candidate;
  }
  return null;
}

/** Tesseract codes of the languages that have a dictionary installed, sorted. */
export function listLexiconLanguages(): string[] {
  return Object.keys(DICTIONARY_PACKAGES)
    .filter((code) => packageFolder(DICTIONARY_PACKAGES[code]) !== null)
    .sort();
}

/**
 * The lexicon of a language (tesseract code), loaded once per process and kept; null when no dictionary is
 * installed for it (the caller leaves such text unchecked and says so).
 */
export function openLexicon(language: string): Promise<Lexicon | null> {
  let lexicon = lexicons.get(language);
  if (!lexicon) {
    lexicon = loadLexicon(language);
    lexicons.set(language, lexicon);
  }
  return lexicon;
}

async function loadLexicon(language: string): Promise<Lexicon | null> {
  const pkg = DICTIONARY_PACKAGES[language];
  const folder = pkg ? packageFolder(pkg) : null;
  if (!folder) return null;
  // hunspell-asm is loaded with the first dictionary: a run without OCR never needs it.
  factory ??= import('hunspell-asm').then(({ loadModule }) => loadModule());
  const hunspellFactory = await factory;
  const [aff, dic] = await Promise.all([readFile(join(folder, 'index.aff')), readFile(join(folder, 'index.dic'))]);
  // The files live in the module's in-memory file system; their names only need to be unique there.
  const hunspell = hunspellFactory.create(hunspellFactory.mountBuffer(aff, `${language}.aff`), hunspellFactory.mountBuffer(dic, `${language}.dic`));
  const known = new Map<string, boolean>();
  const common = commonWords(language);
  return {
    language,
    common: (word) => common.has(word.toLowerCase().replace(/\u2019/g, "'")),
    has(word: string): boolean {
      let answer = known.get(word);
      if (answer === undefined) {
        // Dictionaries write the typographic apostrophe as ', as do most OCR engines; accept both.
        answer = word.length > 0 && hunspell.spell(word.replace(/\u2019/g, "'"));
        if (known.size > 200_000) known.clear();
        known.set(word, answer);
      }
      return answer;
    },
  };
}
