/**
 * Which languages a recognised text is written in, as tesseract codes, main language first.
 * Scripts are counted by Unicode range (a Greek quotation in a French book is a few words, too
 * few for trigrams); Latin-script text goes to `franc`, restricted to the candidates, paragraph
 * by paragraph so a second language (a Latin quotation) is seen too. `franc` has no Latin model,
 * so Latin is recognised by its function words.
 */
import { franc } from 'franc';
import { francToTesseract, languageScript, tesseractToFranc, type Script } from './languages.js';
import { letterCount } from './scripts.js';

export interface DetectOptions {
  /** Tesseract codes the answer may contain (the installed languages); default: any. */
  candidates?: readonly string[];
}

const GREEK = /[\u0370-\u03ff\u1f00-\u1fff]/u;
/** Greek Extended: letters with breathings, found in polytonic (ancient) Greek only. */
const POLYTONIC = /[\u1f00-\u1fff]/u;
const POLYTONIC_SHARE = 0.1;
const CYRILLIC = /[\u0400-\u04ff\u0500-\u052f]/u;
const LETTER = /\p{L}/u;

/**
 * A script other than the main one counts when words written wholly in it hold this share of the letters, and at
 * least `MIN_SCRIPT_LETTERS`: a few Latin words misread in Greek letters ("Μλατιν" for "MARTIN", "πο" for "ne")
 * must not bring a second model in, which would then misread more of them.
 */
const MIN_SCRIPT_SHARE = 0.02;
const MIN_SCRIPT_LETTERS = 16;
/** A second Latin-script language counts when its paragraphs hold this share of the Latin letters. */
const MIN_SECOND_SHARE = 0.12;
/** Shorter paragraphs are merged with their neighbours: trigram statistics need some text. */
const MIN_SEGMENT_LETTERS = 120;
/** Too little text to say anything. */
const MIN_TEXT_LETTERS = 20;

/**
 * The most frequent words of Latin and of the languages it is quoted in. A paragraph is Latin
 * when Latin's words make a good share of it and more than any other list's; shared words
 * (`et`, `in`, `non`) count for both sides.
 */
const FUNCTION_WORDS: Readonly<Record<string, ReadonlySet<string>>> = Object.fromEntries(
  Object.entries({
    lat:
      'et in est non ad cum quod sed ut qui quae quam enim autem etiam atque ac nec neque sunt esse ab ex de per vel aut hoc ' +
      'haec eius tamen igitur ergo quia nam quoque inter sicut apud quidem erat fuit sit omnia omnes eum eam ipse nobis vobis ' +
      'nihil unde ubi ibi sic iam nunc te tu tua tuae tuam tuo tuum me mea meus meum nos noster nostrum vos se sua suam suum ' +
      'suo eo ea id is ille illa hic es deus dei deo deum domine dominus domini super sub pro quo qua quid quis cui cuius ' +
      'quibus ita si nisi sine post ante contra propter quoniam quando tunc semper omnis omni omnium esset erit sum sumus',
    fra:
      'le la les de des du un une et est il elle ils que qui dans pour par sur pas ne en au aux avec ce cette son sa ses se ' +
      'plus mais ou nous vous je on lui leur été être a à',
    eng: 'the of and to a in is that it was for on with as his he by at be this from or had not but are which have were an they her she you i',
    deu:
      'der die das und in zu den von mit sich des auf für ist im dem nicht ein eine als auch es an er so dass sie nach wird ' +
      'bei einer um am sind noch wie einem über einen zum war aus',
    ita: 'di e il la che in a per un è non una del della le i si con da al sono come ma lo gli nel alla dei più anche se questo ha',
    spa: 'de la que el en y a los se del las un por con no una su para es al lo como más pero sus le ya o fue este ha sí',
    por: 'de a o que e do da em um para é com não uma os no se na por mais as dos como mas ao ele das à seu sua ou',
  }).map(([lang, list]) => [lang, new Set(list.split(' '))]),
);
/** Share of Latin function words from which a paragraph may be Latin. */
const LATIN_MIN_SHARE = 0.15;

function scriptOf(ch: string): Script | undefined {
  if (!LETTER.test(ch)) return undefined;
  if (GREEK.test(ch)) return 'Greek';
  if (CYRILLIC.test(ch)) return 'Cyrillic';
  // Latin letters, with accents; other scripts are not told apart further.
  return /[a-zA-Z\u00c0-\u024f\u1e00-\u1eff]/u.test(ch) ? 'Latin' : 'other';
}

/** How many letters of each script the text has. */
export function countScripts(text: string): Record<Script, number> {
  const counts: Record<Script, number> = { Latin: 0, Greek: 0, Cyrillic: 0, other: 0 };
  for (const ch of text) {
    const s = scriptOf(ch);
    if (s) counts[s] += 1;
  }
  return counts;
}

/**
 * Letters of each script counted in words written wholly in it, of two letters or more: the evidence that a page
 * really quotes another script (a stray letter, or a Latin word read half in Greek, is no such evidence).
 */
export function countScriptWords(text: string): Record<Script, number> {
  const counts: Record<Script, number> = { Latin: 0, Greek: 0, Cyrillic: 0, other: 0 };
  for (const word of text.split(/[^\p{L}\p{M}]+/u)) {
    const scripts = new Set<Script>();
    let letters = 0;
    for (const ch of word) {
      const s = scriptOf(ch);
      if (s) {
        scripts.add(s);
        letters++;
      }
    }
    if (scripts.size === 1 && letters >= 2) counts[[...scripts][0]] += letters;
  }
  return counts;
}

/** The text with letters of other scripts blanked out, so trigrams see one script only. */
function onlyScript(text: string, script: Script): string {
  let out = '';
  for (const ch of text) {
    const s = scriptOf(ch);
    out += s === undefined || s === script ? ch : ' ';
  }
  return out;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length > 0);
}

/** For each word list, the share of the text's words it holds. */
export function functionWordShares(text: string): Record<string, number> {
  const ws = words(text);
  const shares: Record<string, number> = {};
  for (const [lang, list] of Object.entries(FUNCTION_WORDS)) {
    let hits = 0;
    for (const w of ws) if (list.has(w)) hits += 1;
    shares[lang] = ws.length > 0 ? hits / ws.length : 0;
  }
  return shares;
}

/** Whether a Latin-script text is Latin (which `franc` cannot say: it has no Latin model). */
export function looksLatin(text: string): boolean {
  const { lat, ...others } = functionWordShares(text);
  return lat >= LATIN_MIN_SHARE && Object.values(others).every((share) => lat > share);
}

/** Paragraphs (blank-line separated, else lines), merged until each has enough letters. */
function segments(text: string): string[] {
  const parts = text.split(/\n\s*\n/).length > 1 ? text.split(/\n\s*\n/) : text.split('\n');
  const out: string[] = [];
  let current = '';
  for (const part of parts) {
    current = current === '' ? part : `${current}\n${part}`;
    if (letterCount(current) >= MIN_SEGMENT_LETTERS) {
      out.push(current);
      current = '';
    }
  }
  if (current !== '') {
    if (out.length > 0 && letterCount(current) < MIN_SEGMENT_LETTERS) out[out.length - 1] += `\n${current}`;
    else out.push(current);
  }
  return out;
}

/** One Latin-script segment's language, among the candidates (franc codes), or undefined. */
function latinScriptLanguage(text: string, francCandidates: string[] | undefined, latinAllowed: boolean): string | undefined {
  if (latinAllowed && looksLatin(text)) return 'lat';
  if (francCandidates && francCandidates.length === 0) return latinAllowed ? 'lat' : undefined;
  if (francCandidates && francCandidates.length === 1) return francToTesseract(francCandidates[0]);
  return francToTesseract(franc(text, { only: francCandidates, minLength: MIN_TEXT_LETTERS }));
}

/** Latin-script languages by share of letters, largest first. */
function latinScriptLanguages(text: string, candidates: readonly string[] | undefined): Array<[string, number]> {
  const latinCandidates = candidates?.filter((c) => languageScript(c) === 'Latin');
  const latinAllowed = !latinCandidates || latinCandidates.includes('lat');
  const francCandidates = latinCandidates?.filter((c) => c !== 'lat').map(tesseractToFranc);
  const shares = new Map<string, number>();
  for (const segment of segments(text)) {
    const lang = latinScriptLanguage(segment, francCandidates, latinAllowed);
    if (lang) shares.set(lang, (shares.get(lang) ?? 0) + letterCount(segment));
  }
  // The main language from the whole text, which is steadier than a vote of short paragraphs.
  const whole = latinScriptLanguage(text, francCandidates, latinAllowed);
  const total = [...shares.values()].reduce((a, b) => a + b, 0);
  const ranked = [...shares.entries()].sort((a, b) => b[1] - a[1]).map(([lang, n]): [string, number] => [lang, n / Math.max(1, total)]);
  if (whole && ranked[0]?.[0] !== whole) {
    // A whole-text answer differing from the paragraph vote wins the main place.
    const rest = ranked.filter(([lang]) => lang !== whole);
    return [[whole, 1], ...rest];
  }
  return ranked;
}

/** The language of a non-Latin script's letters. */
function scriptLanguage(script: Script, text: string, candidates: readonly string[] | undefined): string | undefined {
  const inScript = candidates?.filter((c) => languageScript(c) === script);
  if (script === 'Greek') {
    // Breathings and accents of polytonic Greek: Ancient Greek's model knows them, Modern Greek's does not.
    const greek = [...text].filter((ch) => GREEK.test(ch));
    const polytonic = greek.filter((ch) => POLYTONIC.test(ch)).length / Math.max(1, greek.length) >= POLYTONIC_SHARE;
    const preferred = polytonic ? ['grc', 'ell'] : ['ell', 'grc'];
    return preferred.find((code) => !inScript || inScript.includes(code)) ?? inScript?.[0];
  }
  if (inScript && inScript.length === 1) return inScript[0];
  const only = inScript?.map(tesseractToFranc);
  if (only && only.length === 0) return undefined;
  const guess = francToTesseract(franc(onlyScript(text, script), { only, minLength: MIN_SCRIPT_LETTERS }));
  return guess && (!inScript || inScript.includes(guess)) ? guess : undefined;
}

/**
 * The languages of a recognised text, as tesseract codes, main language first (e.g. `['fra',
 * 'ell']` for a French page quoting Greek). Empty when there is too little text to tell.
 */
export function detectLanguages(text: string, options: DetectOptions = {}): string[] {
  const { candidates } = options;
  const counts = countScripts(text);
  const total = counts.Latin + counts.Greek + counts.Cyrillic + counts.other;
  if (total < MIN_TEXT_LETTERS) return [];

  const found: Array<[string, number]> = [];
  if (counts.Latin >= MIN_TEXT_LETTERS) {
    const latin = latinScriptLanguages(onlyScript(text, 'Latin'), candidates);
    const share = counts.Latin / total;
    latin.forEach(([lang, s], i) => {
      if (i === 0 || s >= MIN_SECOND_SHARE) found.push([lang, (i === 0 ? 1 : s) * share]);
    });
  }
  const inWords = countScriptWords(text);
  for (const script of ['Greek', 'Cyrillic'] as const) {
    const n = inWords[script];
    if (n < MIN_SCRIPT_LETTERS || n / total < MIN_SCRIPT_SHARE) continue;
    const lang = scriptLanguage(script, text, candidates);
    if (lang) found.push([lang, n / total]);
  }
  const ordered = found.sort((a, b) => b[1] - a[1]).map(([lang]) => lang);
  return [...new Set(ordered)].filter((lang) => !candidates || candidates.includes(lang));
}
