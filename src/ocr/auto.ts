/**
 * Language `auto`: recognise the first page(s) once with a first guess, read the languages off
 * the text, and let the whole document be recognised with them.
 */
import { detectLanguages } from './detect.js';
import { languageScript } from './languages.js';
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
  /** The first guess the sample pages were read with. */
  firstGuess: string[];
  /** The sample pages as read with `firstGuess`: reuse them when `languages` equals it. */
  samples: OcrPage[];
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

/** Detect the document's languages from its first pages (see `resolveLanguages`). */
export async function detectDocumentLanguages(
  engine: OcrEngine,
  samplePages: readonly OcrInput[],
  options: { signal?: AbortSignal } = {},
): Promise<LanguageDetection> {
  const installed = engine.languages();
  const firstGuess = firstGuessLanguages(installed);
  const pages = samplePages.slice(0, SAMPLE_PAGES);
  const samples = await Promise.all(pages.map((p) => engine.recognize(p, firstGuess, options)));
  const text = samples.map(ocrPageText).join('\n\n');
  const detected = detectLanguages(text, installed.length > 0 ? { candidates: installed } : {});
  const languages = detected.length > 0 ? detected : [firstGuess[0] ?? FALLBACK_LANGUAGE];
  return { languages, firstGuess, samples };
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
 * Recognise one page with its languages detected on the page itself: a first pass with the first
 * guess, then a second with the detected languages when they differ. For single pages and
 * callers without a document; documents should call `resolveLanguages` once instead.
 */
export async function recognizeAuto(engine: OcrEngine, page: OcrInput, options: { signal?: AbortSignal } = {}): Promise<OcrPage> {
  const { languages, firstGuess, samples } = await detectDocumentLanguages(engine, [page], options);
  if (languages.join('+') === firstGuess.join('+')) return samples[0];
  return engine.recognize(page, languages, options);
}
