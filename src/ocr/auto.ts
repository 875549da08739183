/**
 * Language `auto`: read a sample of lines from the first page(s) with a first guess, read the languages off the
 * text, and let the whole document be recognised with them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectLanguages } from './detect.js';
import { languageScript } from './languages.js';
import { letterCount } from './scripts.js';
import { pageLines, type PageBands, SAMPLE_LINES, writeSampleSheet } from './sample-lines.js';
import type { OcrSpec } from './spec.js';
import { ocrPageText } from './tesseract-result.js';
import type { OcrEngine, OcrInput } from './types.js';
import type { OcrPage } from '../project/index.js';

/** Pages looked at: enough text to tell languages apart, little enough to stay quick. */
export const SAMPLE_PAGES = 3;
const FALLBACK_LANGUAGE = 'eng';

export interface LanguageDetection {
  /** The languages to recognise the document with, main language first. */
  languages: string[];
  /** The first guess the sample lines were read with. */
  firstGuess: string[];
}

/**
 * The first pass's languages: English for the Latin script (its model reads accented letters
 * well enough for trigrams), plus every installed language of another script, so a Greek or
 * Cyrillic quotation comes out in its own letters and can be counted. Only one per script:
 * two models of one script fight over the same words.
 */
export function firstGuessLanguages(installed: readonly string[]): string[] {
  const latin = installed.includes(FALLBACK_LANGUAGE) ? FALLBACK_LANGUAGE : installed.find((c) => languageScript(c) === 'Latin');
  const others = new Map<string, string>();
  for (const code of installed) {
    const script = languageScript(code);
    // `ell` before `grc`, `rus` before the other Cyrillic languages: the most widely useful model of the script.
    if (script === 'Latin' || script === 'other') continue;
    const preferred = script === 'Greek' ? 'ell' : 'rus';
    if (!others.has(script) || code === preferred) others.set(script, code);
  }
  const guess = [...(latin ? [latin] : []), ...others.values()];
  return guess.length > 0 ? guess : installed.slice(0, 1);
}

/**
 * Detect the document's languages from a sample of lines of its first pages (see `resolveLanguages`): eight lines
 * of the first, four of the next two, from the running head to the notes, read once with the first guess. The pages themselves are read
 * once, afterwards, in the languages found.
 */
export async function detectDocumentLanguages(
  engine: OcrEngine,
  samplePages: readonly OcrInput[],
  options: { signal?: AbortSignal } = {},
): Promise<LanguageDetection> {
  const sampler = startLanguageSample(engine, options);
  for (const page of samplePages.slice(0, SAMPLE_PAGES)) sampler.add(page);
  return sampler.decide();
}

/** A language sample taken page by page: each page's lines are read as soon as the page is offered. */
export interface LanguageSample {
  /** Offer a page (in document order). */
  add(page: OcrInput): void;
  /** The languages of what was offered, once every sample read is done. */
  decide(): Promise<LanguageDetection>;
}

/** Lines of each later sample page: they join one sheet, read beside the first page's. */
const LATER_SAMPLE_LINES = SAMPLE_LINES / 2;

/**
 * Start a language sample over the pages as the pipeline makes them: the first page's lines are read as soon as it
 * is offered, while the next pages are still being made; the later pages' lines, fewer each, are found as each is
 * offered, stacked on one sheet and read when the sample is decided, beside the first. Two readings of a few lines, side by side, one round
 * on two cores: the document's language is known about when its third page is made.
 */
export function startLanguageSample(engine: OcrEngine, options: { signal?: AbortSignal } = {}): LanguageSample {
  const installed = engine.languages();
  const firstGuess = firstGuessLanguages(installed);
  const reads: Array<Promise<string>> = [];
  /** The later pages, each with its lines, found as it is offered (decoding a page and finding its lines takes a few tens of ms). */
  const later: Array<{ page: OcrInput; lines: Promise<PageBands> }> = [];
  const read = (pages: OcrInput[], lines: Array<Promise<PageBands>>, name: string): void => {
    const text = readSample(engine, pages, lines, name, firstGuess, options);
    // A failure is decide()'s to report; no rejection goes unheard meanwhile.
    text.catch(() => undefined);
    reads.push(text);
  };
  const linesOf = (page: OcrInput, count: number): Promise<PageBands> => {
    const lines = pageLines(page, count);
    // An unreadable page is readSample's to handle (it reads the whole pages then).
    lines.catch(() => undefined);
    return lines;
  };
  let offered = 0;
  return {
    add(page) {
      if (offered++ === 0) read([page], [linesOf(page, SAMPLE_LINES)], 'first');
      else later.push({ page, lines: linesOf(page, LATER_SAMPLE_LINES) });
    },
    async decide() {
      if (later.length > 0) {
        const pages = later.splice(0);
        read(
          pages.map((p) => p.page),
          pages.map((p) => p.lines),
          'later',
        );
      }
      try {
        const text = (await Promise.all(reads)).join('\n\n');
        const detected = detectLanguages(text, installed.length > 0 ? { candidates: installed } : {});
        const languages = detected.length > 0 ? detected : [firstGuess[0] ?? FALLBACK_LANGUAGE];
        return { languages, firstGuess };
      } finally {
        // One read failed: the others still end (and remove their strips) before the failure is told.
        await Promise.allSettled(reads);
      }
    },
  };
}

/**
 * The text of the pages' sample lines (the whole pages where no line is found), read with `languages`. The strip
 * lives in a folder of its own, removed when the read ends however it ends: a sample never decided (the conversion
 * failed or was cancelled first) leaves nothing behind.
 */
async function readSample(
  engine: OcrEngine,
  pages: OcrInput[],
  lines: Array<Promise<PageBands>>,
  name: string,
  languages: string[],
  options: { signal?: AbortSignal },
): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'quire-sample-'));
  try {
    const strip = await Promise.all(lines)
      .then((found) => writeSampleSheet(found, folder, name, pages[0].dpi))
      .catch(() => undefined);
    if (!strip) return (await Promise.all(pages.map((p) => engine.recognize(p, languages, options)))).map(ocrPageText).join('\n\n');
    const read = engine.readWords
      ? (await engine.readWords([strip], languages, { ...options, forLanguage: true }))[0]
      : await engine.recognize(strip, languages, options);
    return ocrPageText(read);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The languages to recognise a document with: the spec's own, or (`auto`) those detected on the
 * first 1–3 pages. Called once per document, before the pages are recognised.
 */
export async function resolveLanguages(
  engine: OcrEngine,
  samplePages: readonly OcrInput[],
  spec: Pick<OcrSpec, 'languages'>,
  options: { signal?: AbortSignal } = {},
): Promise<string[]> {
  if (spec.languages !== 'auto') return spec.languages;
  return (await detectDocumentLanguages(engine, samplePages, options)).languages;
}

/**
 * Recognise one page with its languages detected on the page itself: a sample of its lines read with the first
 * guess, then the page in the languages found. For single pages and callers without a document; documents should
 * call `resolveLanguages` once instead.
 */
export async function recognizeAuto(engine: OcrEngine, page: OcrInput, options: { signal?: AbortSignal } = {}): Promise<OcrPage> {
  const { languages } = await detectDocumentLanguages(engine, [page], options);
  return engine.recognize(page, languages, options);
}

/** Letters a page needs before its own language is trusted over the document's: a short page says too little. */
const MIN_PAGE_LETTERS = 400;

/**
 * The languages to read a page again with when its text, read in the document's `languages`, is plainly in another
 * main language (an anthology's French page in an English book: the document's languages come from its first
 * pages); undefined when the document's languages suit the page. The page's other scripts stay with the document's.
 */
export function otherPageLanguages(page: OcrPage, languages: readonly string[], installed: readonly string[]): string[] | undefined {
  const text = ocrPageText(page);
  if (letterCount(text) < MIN_PAGE_LETTERS) return undefined;
  const found = detectLanguages(text, installed.length > 0 ? { candidates: installed } : {});
  const main = found[0];
  if (main === undefined || languages.includes(main)) return undefined;
  return [...new Set([...found, ...languages.filter((l) => languageScript(l) !== languageScript(main))])];
}
