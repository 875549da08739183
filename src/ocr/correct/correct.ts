/**
 * The lexicon-checked correction of OCR confusions, conservative by construction: a word the language's dictionary
 * does not know is replaced only when exactly one candidate is in the dictionary — candidates made first from the
 * engine's own alternative characters, then from a small table of known confusions (`confusions.ts`), one change
 * before two. Anything else (no candidate, or several) is left as read and marked `unknown` for the proofreader.
 * Greek look-alike letters inside Latin-script text are mapped back (`scripts.ts`); real Greek stays Greek. Then the
 * rules that read a word from its neighbours (`context.ts`).
 *
 * Every change is recorded on the word (`OcrWord.correction`: what the engine read, why it was changed), so it can be
 * audited and undone (`undoCorrections`, `--no-correct`).
 */
import { pageWords, type OcrCorrectionReason, type OcrPage, type OcrPageCorrection } from '../../project/index.js';
import { editDistance } from '../../util/index.js';
import {
  confusionSegments,
  describeChange,
  shapeSegments,
  variants,
  writesAccents,
  writesAccentsOf,
  writtenAccents,
  type Candidate,
  type Segment,
} from './confusions.js';
import { correctGluedBars, correctInContext, correctQuotesForS, correctStrayBrackets } from './context.js';
import { languageScript } from '../languages.js';
import { openLexicon, type Lexicon } from './lexicon.js';
import { correctCaseByWidth } from './letter-case.js';
import {
  capitalsInside,
  greekLookAlikes,
  greekSpelling,
  isGreekLetter,
  latinLookAlikes,
  letterCount,
  modernGreekForms,
  smallCapitals,
  wordScript,
} from '../scripts.js';
import { markStrayLetters } from './stray-letters.js';
import { changeWord, splitWord } from './words.js';
import { apply, choiceSegmentsOf, coreChoices, everyReplaced, onlyAccepted, tokensOf, type Token } from './tokens.js';

/** A word read with this confidence, this many times in the document, counts as a word of it (a name, a term). */
const DOCUMENT_WORD_CONFIDENCE = 85;
const DOCUMENT_WORD_COUNT = 3;
const DOCUMENT_WORD_LETTERS = 4;
/** Longer "words" are lines run together or garbage: not worth a thousand dictionary look-ups. */
const MAX_WORD_LENGTH = 40;
/** A Greek word is taken for a misread Latin one only inside a line this Latin (share of its other letters). */
const LATIN_CONTEXT_SHARE = 0.6;
/**
 * Languages quoted in books of any language: a word their dictionary knows is a quotation ("the" in a French
 * page, a Latin tag), never a misreading to correct. Loaded when a first correction is about to be made.
 */
const QUOTED_LANGUAGES = ['eng', 'lat', 'fra'];
/**
 * One change per word: with two, a dictionary finds a word for almost anything ("Arius" → "Arles"), and
 * the misreadings that matter (a lost accent, e read as c, ç as g) are one character each.
 */
const MAX_CHANGES = 1;
/** A two-letter word of a quoted language read with this confidence is a quotation, not a misreading. */
const QUOTED_PAIR_CONFIDENCE = 90;
/** A word shorter than this is not mended for a lost stroke (`shapeSegments`): "ao" may be "an" or "au". */
const MIN_SHAPE_LETTERS = 3;

/** What the document itself prints again and again: names and terms no dictionary has ("Athanase", "homéens"). */
export interface DocumentWords {
  /** Count the confidently read words of a page. */
  add(page: OcrPage): void;
  /** Printed confidently again and again: a word of the document, never corrected. */
  has(word: string): boolean;
  /**
   * Printed confidently at least once: what a word no dictionary knows may be mended to, when it is the only
   * spelling one change makes ("Myricl" → "Myriel", a name read right once on the page).
   */
  seen(word: string): boolean;
  /** The words printed confidently at least once that one change (a letter added, dropped or replaced) makes of `word`. */
  oneChangeFrom(word: string): string[];
}

/**
 * The document's vocabulary, counted page by page, and the person's own words (`userWords`: the web app's "Add to
 * dictionary"): known whatever their case, never corrected, and what a misread word may be mended to.
 */
export function documentWords(userWords: readonly string[] = []): DocumentWords {
  const counts = new Map<string, number>();
  const own = new Set(userWords.map(userKey));
  const isOwn = (word: string): boolean => own.size > 0 && own.has(userKey(word));
  return {
    add(page) {
      for (const word of pageWords(page)) {
        if (word.confidence < DOCUMENT_WORD_CONFIDENCE) continue;
        // What the engine read, not what an earlier correction made of it.
        const { core } = splitWord(word.correction?.from ?? word.text);
        if (letterCount(core) < DOCUMENT_WORD_LETTERS) continue;
        counts.set(core, (counts.get(core) ?? 0) + 1);
      }
    },
    has(word) {
      return (counts.get(word) ?? 0) >= DOCUMENT_WORD_COUNT || isOwn(word);
    },
    seen(word) {
      return counts.has(word) || isOwn(word);
    },
    oneChangeFrom(word) {
      const length = Array.from(word).length;
      return [...counts.keys()].filter((w) => w !== word && Math.abs(Array.from(w).length - length) <= 1 && editDistance(w, word) === 1);
    },
  };
}

/** How a person's word is matched: NFC, small letters. */
function userKey(word: string): string {
  return word.normalize('NFC').toLocaleLowerCase();
}

export interface Corrector {
  /** Languages whose dictionary is installed (tesseract codes). */
  readonly checked: readonly string[];
  /** Languages with none: their words are left as read. */
  readonly unchecked: readonly string[];
  /**
   * The page with its misread words corrected, each change recorded on its word, and `correction` set on the
   * page. A page corrected before is first put back as read, so correcting twice changes nothing more.
   */
  correct(page: OcrPage, document?: DocumentWords): Promise<OcrPage>;
  /**
   * The rules that read a word from its neighbours, run again on a page some of whose words were read again since
   * ("le 1 &tobre" became "le 1 octobre": now "le 1er octobre"). Changes the page in place; returns how many words.
   */
  recheckContext(page: OcrPage): number;
  /** Which dictionary knows a word (a tesseract code), `document` when only the document's vocabulary does, else undefined. */
  known(word: string, document?: DocumentWords): string | undefined;
}

/**
 * Start loading the dictionaries of these languages (tesseract codes) while the pages are being read: one takes a
 * third of a second, which the correction step otherwise spends after the last page, with the cores idle. Nothing
 * waits for it here; `openCorrector` reports a dictionary that fails.
 */
export function warmCorrector(languages: readonly string[]): void {
  for (const code of new Set(languages)) openLexicon(code).catch(() => undefined);
}

/** The corrector for a document in these languages (tesseract codes); dictionaries load once per process. */
export async function openCorrector(languages: readonly string[]): Promise<Corrector> {
  const unique = [...new Set(languages)];
  const lexicons = new Map<string, Lexicon>();
  for (const code of unique) {
    const lexicon = await openLexicon(code);
    if (lexicon) lexicons.set(code, lexicon);
  }
  const checked = unique.filter((code) => lexicons.has(code));
  const unchecked = unique.filter((code) => !lexicons.has(code));
  const accentsBeside = unique.some(writesAccents);
  let quotations: Lexicon[] | undefined;
  return {
    checked,
    unchecked,
    async correct(page, document) {
      const read = undoCorrections(page);
      if (!quotations) {
        // The quotation dictionaries load only once a page has something to change.
        const first = correctPage(structuredClone(read), lexicons, [], { checked, unchecked }, document);
        if (first.correction?.corrected === 0) return first;
        const found = await Promise.all(QUOTED_LANGUAGES.filter((code) => !lexicons.has(code)).map((code) => openLexicon(code)));
        quotations = found.filter((l): l is Lexicon => l !== null);
      }
      return correctPage(read, lexicons, quotations, { checked, unchecked }, document);
    },
    recheckContext(page) {
      return correctInContext(page, lexicons, quotations ?? []);
    },
    known(word, document) {
      for (const [code, lexicon] of lexicons) if (knows(lexicon, word, accentsBeside)) return code;
      return document?.has(word) ? 'document' : undefined;
    },
  };
}

/**
 * Whether a lexicon knows a word; a polytonic Greek one also by its modern spellings (`modernGreekForms`). With
 * `accentsBeside` (a language that writes accents is read too), Latin knows only the accents Latin prints (`foldsAccents`).
 */
function knows(lexicon: Lexicon, word: string, accentsBeside = false): boolean {
  if (accentsBeside && foldsAccents(lexicon, word)) return false;
  return lexicon.has(word) || (wordScript(word) === 'Greek' && modernGreekForms(word).some((form) => lexicon.has(form)));
}

/** Latin's own marks: its ligatures and the quantity marks of school editions. */
const LATIN_MARKS = 'æœāēīōūȳăĕĭŏŭ';

/**
 * The Latin dictionary spells its words without accents and takes any accented spelling by folding the accents away
 * (Hunspell ICONV): to it "supréme" is "supreme" and "àme" is "ame". Beside French, such a word is a French word
 * misread ("suprême", "âme"), never a Latin quotation; so there Latin knows a word only in the letters it prints.
 */
function foldsAccents(lexicon: Lexicon, word: string): boolean {
  return (
    lexicon.language === 'lat' &&
    Array.from(word.toLowerCase()).some((c) => (c.codePointAt(0) ?? 0) >= 0x80 && /\p{Script=Latin}/u.test(c) && !LATIN_MARKS.includes(c))
  );
}

/**
 * The page as the engine read it: every recorded correction undone, the page's correction summary removed. Words a
 * person checked while proofreading keep their text (and the record of what the correction step did before them).
 */
export function undoCorrections(page: OcrPage): OcrPage {
  const copy = structuredClone(page);
  delete copy.correction;
  for (const word of pageWords(copy)) {
    if (word.edit) continue;
    if (word.correction) word.text = word.correction.from;
    delete word.correction;
    delete word.unknown;
    delete word.doubt;
    delete word.raised;
  }
  return copy;
}

interface Verdict {
  kind: 'known' | 'unknown' | 'unchecked' | 'corrected';
}

function correctPage(
  page: OcrPage,
  lexicons: ReadonlyMap<string, Lexicon>,
  quotations: readonly Lexicon[],
  languages: { checked: readonly string[]; unchecked: readonly string[] },
  document?: DocumentWords,
): OcrPage {
  const pageLanguages = page.languages.length > 0 ? page.languages : [...languages.checked, ...languages.unchecked];
  const byScript = (script: 'Latin' | 'Greek'): Lexicon[] =>
    pageLanguages.filter((code) => languageScript(code) === script).flatMap((code) => (lexicons.has(code) ? [lexicons.get(code)!] : []));
  const latin = byScript('Latin');
  const greek = byScript('Greek');
  const greekRead = pageLanguages.some((code) => languageScript(code) === 'Greek');
  const latinRead = pageLanguages.some((code) => languageScript(code) === 'Latin');
  const anyKnows = (word: string): boolean => [...lexicons.values()].some((l) => l.has(word)) || document?.has(word) === true;
  let corrected = correctStrayBrackets(page) + correctGluedBars(page, anyKnows) + correctQuotesForS(page, anyKnows);
  let unknown = 0;

  for (const token of tokensOf(page)) {
    // A word a person checked while proofreading is theirs: never corrected again.
    if (token.words.some((w) => w.edit)) continue;
    const verdict = checkToken(token, { latin, greek, quotations, greekRead, latinRead, accentsBeside: pageLanguages.some(writesAccents), document });
    if (verdict.kind === 'corrected') corrected += 1;
    if (verdict.kind === 'unknown') unknown += 1;
    for (const word of token.words) {
      if (verdict.kind === 'unknown') word.unknown = true;
      // The engine's choices are kept where a proofreader may want them (words left unknown, words changed) and
      // where a later correction needs them again (`--no-correct` then a correction undone and made anew).
      if (verdict.kind === 'known') delete word.alternatives;
    }
  }
  corrected += correctInContext(page, lexicons, quotations) + correctCaseByWidth(page, (w) => latin.some((l) => l.has(w)));
  markStrayLetters(page, pageLanguages);
  const usedChecked = pageLanguages.filter((code) => lexicons.has(code));
  const usedUnchecked = pageLanguages.filter((code) => !lexicons.has(code));
  const summary: OcrPageCorrection = { checked: usedChecked, unchecked: usedUnchecked, corrected, unknown };
  return { ...page, correction: summary };
}

interface CheckContext {
  latin: Lexicon[];
  greek: Lexicon[];
  /** Dictionaries of languages quoted in any book: their words are never corrected. */
  quotations: readonly Lexicon[];
  greekRead: boolean;
  latinRead: boolean;
  /** A language that writes accents is read: Latin knows only its own marks (`foldsAccents`). */
  accentsBeside: boolean;
  document?: DocumentWords;
}

function checkToken(token: Token, context: CheckContext): Verdict {
  const core = token.parts.map((p) => p.core).join('');
  const letters = letterCount(core);
  if (letters === 0 || Array.from(core).length > MAX_WORD_LENGTH) return { kind: 'unchecked' };
  const script = wordScript(core);

  // Greek letters inside Latin-script text: the look-alikes first, before any dictionary of Greek is asked.
  if (context.greekRead && context.latinRead && token.words.length === 1 && (script === 'mixed' || (script === 'Greek' && latinContext(token)))) {
    const mapped = mapToLatin(token, context);
    if (mapped) return mapped;
    if (script === 'mixed') return { kind: 'unknown' };
    // A Greek word alone in a Latin line that no Latin word looks like: a Greek term quoted in the text, or a Latin
    // word read in Greek look-alikes ("ΡΟ" for "PG", "Ίδους" for "l'issue"). Left as read, and marked for a look
    // unless the Greek dictionary knows it and some of its letters look like no Latin one ("πρόφασις").
    const greekWord = context.greek.some((l) => knows(l, core));
    const lookAlike = Array.from(core).every((ch) => !isGreekLetter(ch) || latinLookAlikes(ch).length > 0);
    if (!greekWord || lookAlike) token.words[0].doubt = 'script';
  }

  // Spellings no word has, mended whole: a name in small capitals read small, Greek letters no Greek word ends in.
  if (token.words.length === 1) {
    const capitals = script === 'Latin' ? smallCapitals(core) : undefined;
    const mended =
      capitals !== undefined
        ? { text: capitals, change: [...new Set(Array.from(core).filter((ch) => /\p{Ll}/u.test(ch)))].map((ch) => `${ch}→${ch.toUpperCase()}`).join(', ') }
        : script === 'Greek'
          ? greekSpelling(core)
          : undefined;
    if (mended !== undefined) {
      const [word, parts] = [token.words[0], token.parts[0]];
      changeWord(word, `${parts.prefix}${mended.text}${parts.suffix}`, { reason: 'known-confusion', change: mended.change });
      delete word.unknown;
      return { kind: 'corrected' };
    }
  }
  const lexicons = script === 'Greek' ? context.greek : context.latin;
  if (lexicons.length === 0) return { kind: 'unchecked' };
  const known = (w: string): boolean => lexicons.some((l) => knows(l, w, context.accentsBeside));
  if (known(core)) return doubtfulWord(token, core, lexicons) ?? { kind: 'known' };
  if (token.words.length === 2 && lexicons.some((l) => l.has(`${token.parts[0].core}-${token.parts[1].core}`))) return { kind: 'known' };
  // What the document prints confidently again and again is one of its words (a name, a term), even if no
  // dictionary has it; a quotation in another language is a word too — but a short one read doubtfully may be
  // the page's own frequent word misread ("ber", a French word, for "her" on an English page).
  // (Not for two letters: English abbreviations — ct, cu — would shield the commonest misreadings of French. Only a
  // quoted language's frequent word read confidently is one: "la" in a Latin book's French note.)
  if (context.document?.has(core)) return { kind: 'known' };
  if (script !== 'Greek' && letters > 2 && context.quotations.some((l) => knows(l, core, context.accentsBeside)))
    return doubtfulWord(token, core, lexicons) ?? { kind: 'known' };
  if (
    script !== 'Greek' &&
    letters === 2 &&
    token.words.every((w) => w.confidence >= QUOTED_PAIR_CONFIDENCE) &&
    context.quotations.some((l) => l.common(core) && knows(l, core, context.accentsBeside))
  ) {
    return { kind: 'known' };
  }
  // A single letter is a word in too many ways (a, à, y, ô) to choose for it — unless its accent is one the page's
  // language never writes ("ó Dieu"): the ink shows an accent, and the language has one accented form of that letter.
  if (letters < 2) return (token.words.length === 1 && foreignAccent(token, core, lexicons)) || { kind: 'unknown' };
  // Latin letters inside a Greek quotation ("(Ti τοίνυν" for "Τί τοίνυν"): the Greek spelling a dictionary knows.
  if (script === 'Latin' && context.greek.length > 0 && token.words.length === 1 && greekNeighbour(token)) {
    const mapped = mapToGreek(token, context);
    if (mapped) return mapped;
  }
  // A capital read inside a word in small letters, when the word in small letters is one.
  const inside = token.words.length === 1 ? capitalsInside(core) : undefined;
  if (inside !== undefined && (known(inside) || context.document?.has(inside))) {
    const [word, parts] = [token.words[0], token.parts[0]];
    const change = [
      ...new Set(
        Array.from(core)
          .slice(1)
          .filter((ch) => /\p{Lu}/u.test(ch)),
      ),
    ]
      .map((ch) => `${ch}→${ch.toLowerCase()}`)
      .join(', ');
    changeWord(word, `${parts.prefix}${inside}${parts.suffix}`, { reason: 'known-confusion', change });
    return { kind: 'corrected' };
  }

  const accept = (w: string): string | undefined =>
    lexicons.find((l) => l.has(w) && writesAccentsOf(l.language, core, w))?.language ?? (context.document?.seen(w) ? 'document' : undefined);
  const choices = choiceSegmentsOf(token);
  const tiers: Array<{ reason: OcrCorrectionReason; segments: Segment[] }> = [
    ...(choices ? [{ reason: 'engine-choice' as const, segments: choices }] : []),
    { reason: 'known-confusion', segments: token.parts.flatMap((p) => confusionSegments(p.core)) },
    // Last, and not for two letters (a word in too many ways): a stroke lost in small type.
    ...(letters >= MIN_SHAPE_LETTERS ? [{ reason: 'known-confusion' as const, segments: token.parts.flatMap((p) => shapeSegments(p.core)) }] : []),
  ];
  // Between several words, the one that is among its language's most frequent ("in" for "bn": "in", "im", "fa").
  const common = (w: string, language: string): boolean => context.latin.find((l) => l.language === language)?.common(w) ?? false;
  for (const tier of tiers) {
    for (let changes = 1; changes <= MAX_CHANGES; changes++) {
      const only = onlyAccepted(variants(tier.segments, changes), accept, common);
      if (only === 'several') return { kind: 'unknown' };
      if (only) {
        apply(token, tier.segments, only.candidate, { reason: tier.reason, change: describeChange(tier.segments, only.candidate), language: only.language });
        return { kind: 'corrected' };
      }
    }
  }
  return { kind: 'unknown' };
}

/**
 * A one-letter word with an accent none of the page's languages writes, read as the one accented form of its letter
 * that one of them writes and knows as a word: "ó" → "ô", "á" → "à" in French. Several, or none: undefined.
 */
function foreignAccent(token: Token, core: string, lexicons: readonly Lexicon[]): Verdict | undefined {
  const letter = core.toLowerCase();
  if (Array.from(letter).length !== 1 || letter.normalize('NFD').length === 1) return undefined;
  if (lexicons.some((l) => writtenAccents(l.language, letter).includes(letter))) return undefined;
  const forms = new Map<string, string>();
  for (const l of lexicons) for (const form of writtenAccents(l.language, letter)) if (l.has(form)) forms.set(form, l.language);
  if (forms.size !== 1) return undefined;
  const [[form, language]] = [...forms];
  const [word, parts] = [token.words[0], token.parts[0]];
  const text = core === letter ? form : form.toUpperCase();
  changeWord(word, `${parts.prefix}${text}${parts.suffix}`, { reason: 'known-confusion', change: `${core}→${text}`, language });
  delete word.unknown;
  return { kind: 'corrected' };
}

/**
 * A rare word read with little confidence, where the engine's own choices (or a known confusion) make exactly one of
 * the language's most frequent words instead: "fat" for "fut", "be" for "le". Short words only (the function
 * words), one character changed. `lexicons` are the page's languages: the word may be known only to a quoted one.
 */
function doubtfulWord(token: Token, core: string, lexicons: readonly Lexicon[]): Verdict | undefined {
  const word = token.words[0];
  if (token.words.length !== 1 || word.confidence >= DOUBTFUL_CONFIDENCE || letterCount(core) > 4) return undefined;
  const common = (w: string): string | undefined => lexicons.find((l) => l.common(w) && l.has(w))?.language;
  if (common(core) !== undefined) return undefined;
  const parts = token.parts[0];
  const choices = coreChoices(word, parts);
  const tiers: Array<{ reason: OcrCorrectionReason; segments: Segment[] }> = [
    ...(choices ? [{ reason: 'engine-choice' as const, segments: choices }] : []),
    { reason: 'known-confusion', segments: confusionSegments(parts.core) },
  ];
  for (const tier of tiers) {
    const only = onlyAccepted(variants(tier.segments, 1), common);
    if (only === 'several') return undefined;
    if (only) {
      apply(token, tier.segments, only.candidate, { reason: tier.reason, change: describeChange(tier.segments, only.candidate), language: only.language });
      return { kind: 'corrected' };
    }
  }
  return undefined;
}

/** Below this confidence, a rare word may be a frequent one misread. */
const DOUBTFUL_CONFIDENCE = 70;

/** Whether a Greek word sits in Latin-script text: its line is mostly Latin and no Greek word is beside it. */
function latinContext(token: Token): boolean {
  const { latin, greek } = token.line;
  if (latin + greek === 0 || latin / (latin + greek) < LATIN_CONTEXT_SHARE) return false;
  return !greekNeighbour(token);
}

/** Whether the word before or after is Greek. */
function greekNeighbour(token: Token): boolean {
  return [token.before, token.after].some((w) => w && wordScript(splitWord(w.text).core) === 'Greek');
}

/**
 * A Greek or mixed word in Latin text, spelled in Latin letters: each Greek letter replaced by the engine's own
 * Latin choices for it, else by its look-alikes. Taken when exactly one spelling is a word; for a mixed word, or a
 * lone capital (an initial, "Α."), the closest look-alikes are taken even when no dictionary knows the result.
 */
function mapToLatin(token: Token, context: CheckContext): Verdict | undefined {
  const word = token.words[0];
  const parts = token.parts[0];
  const choices = coreChoices(word, parts);
  const chars = Array.from(parts.core);
  const segments: Segment[] = chars.map((ch, i) => {
    if (!isGreekLetter(ch)) return { read: ch, options: [] };
    const fromEngine = (choices?.[i]?.options ?? []).filter((c) => wordScript(c) === 'Latin');
    return { read: ch, options: [...new Set([...fromEngine, ...latinLookAlikes(ch)])] };
  });
  if (segments.some((s) => isGreekLetter(s.read) && s.options.length === 0)) return undefined;
  const greekAt = segments.flatMap((s, i) => (isGreekLetter(s.read) ? [i] : []));
  const accept = (w: string): string | undefined => context.latin.find((l) => l.has(w))?.language ?? (context.document?.has(w) ? 'document' : undefined);
  const only = onlyAccepted(everyReplaced(segments, greekAt), accept);
  if (only === 'several') return { kind: 'unknown' };
  if (only) {
    apply(token, segments, only.candidate, { reason: 'script', change: describeChange(segments, only.candidate), language: only.language });
    return { kind: 'corrected' };
  }
  const initial = chars.length === 1;
  if (wordScript(parts.core) === 'mixed' || initial) {
    const closest: Candidate = {
      parts: segments.map((s) => (isGreekLetter(s.read) ? (latinLookAlikes(s.read)[0] ?? s.options[0]) : s.read)),
      changed: greekAt,
    };
    apply(token, segments, closest, { reason: 'script', change: describeChange(segments, closest) });
    return { kind: 'corrected' };
  }
  return undefined;
}

/**
 * A Latin-script word no dictionary knows, beside a Greek word, spelled in Greek letters: each Latin letter replaced
 * by the Greek ones it looks like. Taken when exactly one spelling is a word a Greek dictionary knows (its modern
 * spelling: the accents the engine did not see are not guessed, "Ti" becomes "Τι"); undefined when none is, a word
 * left unknown when several are.
 */
function mapToGreek(token: Token, context: CheckContext): Verdict | undefined {
  const parts = token.parts[0];
  const segments: Segment[] = Array.from(parts.core).map((ch) => ({ read: ch, options: /\p{L}/u.test(ch) ? greekLookAlikes(ch) : [] }));
  if (segments.some((s) => /\p{L}/u.test(s.read) && s.options.length === 0)) return undefined;
  const latinAt = segments.flatMap((s, i) => (s.options.length > 0 ? [i] : []));
  const accept = (w: string): string | undefined => context.greek.find((l) => knows(l, w))?.language;
  const only = onlyAccepted(everyReplaced(segments, latinAt), accept);
  if (only === 'several') return { kind: 'unknown' };
  if (!only) return undefined;
  apply(token, segments, only.candidate, { reason: 'script', change: describeChange(segments, only.candidate), language: only.language });
  return { kind: 'corrected' };
}
