/**
 * Reading a project's pages with a page engine (tesseract and the like), one by one: a page turned when it reads as
 * nonsense, read again in its own language when it is plainly in another; the options every way of reading shares.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { type ExportRequest } from '../export/index.js';
import { turnPage } from '../pipeline/index.js';
import {
  otherPageLanguages,
  SAMPLE_PAGES,
  looksMisoriented,
  MIN_ORIENTATION_CONFIDENCE,
  detectDocumentLanguages,
  type OcrEngine,
  type OcrInput,
  warmCorrector,
} from '../ocr/index.js';
import { OcrProgressLog, pageWork } from './ocr-work.js';
import type { OcrPagesRead, ProgressEvent } from './progress.js';
import { type OcrPage, type ProjectPage, writeOcrPage } from '../project/index.js';

/** How a document's text is read: the options of `recognize`, and of every step of it here. */
export interface RecognizeOptions {
  /** The exports asked for, their folder and file stem, recorded with a batch so whoever finishes it writes them. */
  requests?: ExportRequest[];
  outDir?: string;
  fileStem?: string;
  /** With `ocr` given as a string: `--ocr-lang`. */
  ocrLang?: string;
  /**
   * Run the correction step on the recognised text (default true): its dictionaries are loaded as soon as the
   * languages are known, while the pages are read.
   */
  correct?: boolean;
  /** The person's own dictionary (the web app's "Add to dictionary"): words the correction leaves alone and never marks to check. */
  userWords?: readonly string[];
  /**
   * Turn pages found the wrong way up (default true): a page whose text reads as nonsense is checked with the
   * engine's orientation detection, turned, and read again. False (`--rotate-pages off`) keeps pages as they are.
   */
  rotatePages?: boolean;
  signal?: AbortSignal;
  /** Told of each page read (`{ type: 'ocr', pagesDone, pagesTotal }`). */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * The caller shows a time left (the web app): each page's work, its ink, is measured as it is handed to the engine
   * and told with each page read (`OcrPagesRead.works`). Off by default: a progress bar that counts pages (the CLI)
   * does not pay a decode of every page for it.
   */
  timeLeft?: boolean;
}

/** A page's work when the caller asked for a time left (`RecognizeOptions.timeLeft`), else not measured. */
export async function workIfTimed(options: RecognizeOptions, dir: string, page: Pick<ProjectPage, 'file'>): Promise<number | undefined> {
  return options.timeLeft && options.onProgress ? pageWork(dir, page) : undefined;
}

export function pageRead(options: RecognizeOptions, pagesDone: number, pagesTotal: number, read?: OcrPagesRead): void {
  options.onProgress?.({ type: 'ocr', pagesDone, pagesTotal, ...(read ? { read } : {}) });
}

/**
 * The languages the pages are read in are known (named, or found on sample pages): the correction's dictionaries are
 * to load while the pages are read, on a core the OCR leaves free. Loading them on this thread takes 0.1–0.2 s of
 * CPU (eng, fra); done as the first pages began, it competed with the two tesseract processes reading them and put
 * their end, and every later page, back by about as much (measured on fr3: the first two pages took 0.2–0.3 s more
 * wall time than their CPU time, the third, read alone, 0.1 s). So they load once a core is free of OCR: every page
 * known has begun and fewer are being read than there are cores (the document's last pages), or when the only pages
 * are fewer than the cores. An engine that cannot tell when a page begins tells it as the page is done.
 */
export class DictionaryWarmUp {
  private warmed: boolean;
  private known = 0;
  private allKnown = false;
  private begun = 0;
  private done = 0;
  private languages?: string[];

  /** `warm`: what loads the dictionaries of a language set (the correction's own, unless a test watches). */
  constructor(
    options: Pick<RecognizeOptions, 'correct'>,
    private readonly cores = availableParallelism(),
    private readonly warm: (languages: readonly string[]) => void = warmCorrector,
  ) {
    this.warmed = options.correct === false;
  }

  /** The document's languages are decided: their dictionaries are the ones to load. */
  languagesKnown(languages: string[]): void {
    this.languages = languages;
    this.check();
  }

  /** One more page to read; `last`: every page of the document is known now. */
  pageKnown(count = 1, last = false): void {
    this.known += count;
    if (last) this.lastKnown();
  }

  /** No more pages will come. */
  lastKnown(): void {
    this.allKnown = true;
    this.check();
  }

  /** What to call once this page's reading has begun (called again, it counts once). */
  pageBegins(): () => void {
    let told = false;
    return () => {
      if (told) return;
      told = true;
      this.begun++;
      this.check();
    };
  }

  pageDone(): void {
    this.done++;
    this.check();
  }

  private check(): void {
    if (this.warmed || !this.languages || !this.allKnown || this.begun < this.known || this.known - this.done >= this.cores) return;
    this.warmed = true;
    this.warm(this.languages);
  }
}

export async function assertAvailable(engine: OcrEngine): Promise<void> {
  const available = await engine.available();
  if (!available.ok) throw new QuireError(ERROR_CODES.USAGE, available.reason);
}

/**
 * Recognise `pages` one by one with a page engine, writing each result to `fileOf(page)`; returns the languages used
 * (`auto` resolved on sample pages first).
 */
export async function recognizePages(
  first: OcrEngine,
  pick: (languages: string[]) => Promise<OcrEngine>,
  dir: string,
  pages: ProjectPage[],
  wanted: string[] | 'auto',
  options: RecognizeOptions,
  fileOf: (page: ProjectPage) => string,
): Promise<{ languages: string[]; engine: OcrEngine }> {
  const signal = options.signal;
  let languages: string[];
  let engine = first;
  if (wanted === 'auto') {
    // Decided on lines of the first pages, as when pages are read as they are made (`languageDecision`); lines of
    // the page images themselves, the clean black-and-white pages (the grey reading images are larger).
    const sample = pages.slice(0, SAMPLE_PAGES).map((p) => imageOf(dir, p));
    options.onProgress?.({ type: 'ocr-languages' });
    languages = (await detectDocumentLanguages(first, sample, signal ? { signal } : {})).languages;
    options.onProgress?.({ type: 'ocr-languages', languages });
    engine = await pick(languages);
  } else {
    languages = wanted;
  }
  const warmUp = new DictionaryWarmUp(options);
  warmUp.pageKnown(pages.length, true);
  warmUp.languagesKnown(languages);
  const detected = wanted === 'auto' ? { used: new Set<string>() } : undefined;

  let pagesDone = 0;
  const log = new OcrProgressLog(options.correct !== false && engine.readWords !== undefined);
  const save = async (i: number, order: number, result: OcrPage): Promise<void> => {
    const page = pages[i];
    const file = fileOf(page);
    await writeOcrPage(dir, file, result);
    if (!file.endsWith(LOCAL_LAYOUT_SUFFIX)) page.ocr = file;
    pageRead(options, ++pagesDone, pages.length, log.read(order));
  };
  // The engine queues pages on its warm workers; handing it a few at a time keeps memory flat.
  const inFlight = 4;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < pages.length) {
      if (signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
      const i = next++;
      const order = log.handed(await workIfTimed(options, dir, pages[i]));
      const again = (): void => options.onProgress?.({ type: 'ocr-again', read: log.read(order) });
      await save(i, order, await readPage(engine, dir, pages[i], languages, options, detected, again, warmUp.pageBegins()));
      warmUp.pageDone();
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, pages.length) }, lane));
  return { languages: withPageLanguages(languages, detected), engine };
}

/**
 * Read one page, and when its text reads as nonsense, ask whether it is the wrong way up: turned, it is read again.
 * With `auto` languages (`detected` given), a page plainly in another language than the document's is read again in
 * its own, and the languages it was read with are added to `detected.used`.
 */
export async function readPage(
  engine: OcrEngine,
  dir: string,
  page: ProjectPage,
  languages: string[],
  options: RecognizeOptions,
  detected?: { used: Set<string> },
  again?: () => void,
  started?: () => void,
): Promise<OcrPage> {
  const signal = options.signal;
  const read = (langs: string[]): Promise<OcrPage> =>
    recognizePage(engine.recognize.bind(engine), inputOf(dir, page), langs, { ...(signal ? { signal } : {}), ...(started ? { started } : {}) }, page);
  const readAgain = (langs: string[]): Promise<OcrPage> => {
    again?.();
    return read(langs);
  };
  let result = await read(languages);
  started?.();
  const mayTurn = options.rotatePages !== false && engine.detectOrientation && looksMisoriented(result);
  if (mayTurn && (await turnIfNeeded(dir, page, engine, inputOf(dir, page), signal))) result = await readAgain(languages);
  const own = detected ? otherPageLanguages(result, languages, engine.languages()) : undefined;
  if (own) {
    options.onProgress?.({ type: 'ocr-page-language', page: page.index, languages: own });
    result = await readAgain(own);
  }
  for (const language of own ?? languages) detected?.used.add(language);
  return result;
}

/** The document's languages, then those a page of another language was read with. */
export function withPageLanguages(languages: string[], detected: { used: Set<string> } | undefined): string[] {
  return [...new Set([...languages, ...(detected?.used ?? [])])];
}

/**
 * Ask the engine how far a page that read as nonsense must turn; turn it (page image and reading image) when the
 * answer is sure enough. The answer is recorded either way. True when the page was turned.
 */
async function turnIfNeeded(dir: string, page: ProjectPage, engine: OcrEngine, input: OcrInput, signal: AbortSignal | undefined): Promise<boolean> {
  const found = await engine.detectOrientation!(input, signal ? { signal } : {});
  const confidence = Math.round((found?.confidence ?? 0) * 100) / 100;
  if (!found || found.rotate === 0 || found.confidence < MIN_ORIENTATION_CONFIDENCE) {
    page.decisions.orientation = { rotated: 0, confidence };
    return false;
  }
  await turnPage(dir, page, found.rotate, confidence);
  return true;
}

function inputOf(dir: string, p: ProjectPage): OcrInput {
  const reading = p.ocrImage ? join(dir, p.ocrImage) : undefined;
  if (!reading || !existsSync(reading)) return { file: join(dir, p.file), width: p.width, height: p.height, dpi: p.dpi };
  const readScale = p.decisions.ocrScale;
  return { file: reading, width: p.width, height: p.height, dpi: p.dpi, ...(readScale !== undefined ? { readScale } : {}) };
}

/** The page image itself (what a PDF of the pages shows), for engines that read whole documents. */
export function imageOf(dir: string, p: ProjectPage): OcrInput {
  return { file: join(dir, p.file), width: p.width, height: p.height, dpi: p.dpi };
}

/** Local word layouts are kept beside the results as `ocr/<page>.local.json`. */
export const LOCAL_LAYOUT_SUFFIX = '.local.json';

async function recognizePage(
  recognize: OcrEngine['recognize'],
  input: OcrInput,
  languages: string[],
  options: { signal?: AbortSignal; started?: () => void },
  page: ProjectPage,
): Promise<OcrPage> {
  try {
    return await recognize(input, languages, options);
  } catch (e) {
    if (e instanceof QuireError) throw e;
    throw new QuireError(ERROR_CODES.INTERNAL, `OCR of page ${page.index} failed.`, describeError(e));
  }
}

export function ocrFileStem(page: ProjectPage): string {
  const name = page.file.split('/').pop() ?? `${page.index}`;
  return name.replace(/\.[^.]+$/, '');
}
