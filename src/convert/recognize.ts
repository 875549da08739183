import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { type ExportRequest, type PdfPageInput, writePdf } from '../export/index.js';
import { turnPage } from '../pipeline/index.js';
import {
  alignOntoLayout,
  bestLocalEngine,
  otherPageLanguages,
  SAMPLE_PAGES,
  looksMisoriented,
  MIN_ORIENTATION_CONFIDENCE,
  detectDocumentLanguages,
  detectLanguages,
  startLanguageSample,
  findOcrEngine,
  getOcrEngine,
  type OcrDocument,
  type OcrEngine,
  type OcrInput,
  ocrPageText,
  type OcrSpec,
  parseOcrSpec,
  warmCorrector,
} from '../ocr/index.js';
import { OcrProgressLog, pageWork } from './ocr-work.js';
import type { OcrPagesRead, ProgressEvent } from './progress.js';
import {
  type OcrBox,
  type OcrPage,
  type PageKind,
  type ProjectManifest,
  type ProjectOcrBatch,
  type ProjectPage,
  readOcrPage,
  visiblePages,
  writeOcrPage,
} from '../project/index.js';

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
}

function pageRead(options: RecognizeOptions, pagesDone: number, pagesTotal: number, read?: OcrPagesRead): void {
  options.onProgress?.({ type: 'ocr', pagesDone, pagesTotal, ...(read ? { read } : {}) });
}

/** The languages the pages are read in are known (named, or found on sample pages): the correction's dictionaries load meanwhile. */
function languagesKnown(options: RecognizeOptions, languages: string[]): void {
  if (options.correct !== false) warmCorrector(languages);
}

/** OCR ran to its end, or (batch mode) was submitted and waits in `manifest.ocrBatch`. */
export type RecognizeOutcome = { state: 'done' } | { state: 'submitted'; batch: ProjectOcrBatch };

/** The code of a remote result that cannot be used (see `src/ocr/remote/client.ts`). */
const REMOTE_FAILED = ERROR_CODES.REMOTE_OCR_FAILED;

/**
 * OCR every visible page image of a project with one engine and one language set for the whole
 * document (`auto` is resolved once, on the first pages), writing `ocr/<page>.json` beside each
 * page image and recording it in the manifest. Pages run as fast as the engine's warm pool allows.
 * Pages kept from a source PDF keep the text they came with; when every page is one, no engine runs.
 *
 * An engine that reads whole documents (the remote one) gets every page at once, and its languages are read off
 * its text afterwards. In batch mode (`remoteocr:batch`) the pages are submitted and the call returns at once with
 * the batch recorded in `manifest.ocrBatch`; `pollProjectOcr` finishes it later.
 */
export async function recognizeProject(dir: string, manifest: ProjectManifest, spec: OcrSpec, options: RecognizeOptions = {}): Promise<RecognizeOutcome> {
  const pages = visiblePages(manifest).filter((p) => p.kind !== 'pdf');
  if (pages.length === 0) return { state: 'done' };
  const engine = spec.auto ? await bestLocalEngine(spec.languages) : getOcrEngine(spec.engine);
  await assertAvailable(engine);
  await mkdir(join(dir, 'ocr'), { recursive: true });
  if (spec.mode === 'batch') return { state: 'submitted', batch: await submitProjectBatch(dir, manifest, engine, spec, pages, options) };
  if (engine.recognizeDocument) {
    await recognizeAsDocument(dir, manifest, engine, spec, pages, options);
    return { state: 'done' };
  }
  // With `auto`, the languages found may let a faster engine read the rest.
  const pick = spec.auto ? (languages: string[]) => bestLocalEngine(languages) : async () => engine;
  const { languages, engine: used } = await recognizePages(engine, pick, dir, pages, spec.languages, options, (page) => `ocr/${ocrFileStem(page)}.json`);
  manifest.ocr = { engine: used.name, languages };
  return { state: 'done' };
}

/** Fail with the engine's own sentence when it cannot run here (no language data, no API key), before any work. */
export async function assertOcrReady(spec: OcrSpec): Promise<void> {
  await assertAvailable(getOcrEngine(spec.engine));
  if (spec.mode === 'batch' && !getOcrEngine(spec.engine).submitBatch) {
    throw new QuireError(ERROR_CODES.USAGE, `The OCR engine "${spec.engine}" cannot run as a batch.`);
  }
}

async function assertAvailable(engine: OcrEngine): Promise<void> {
  const available = await engine.available();
  if (!available.ok) throw new QuireError(ERROR_CODES.USAGE, available.reason);
}

/**
 * Recognise `pages` one by one with a page engine, writing each result to `fileOf(page)`; returns the languages used
 * (`auto` resolved on sample pages first).
 */
async function recognizePages(
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
    languages = (await detectDocumentLanguages(first, sample, signal ? { signal } : {})).languages;
    engine = await pick(languages);
  } else {
    languages = wanted;
  }
  languagesKnown(options, languages);
  const detected = wanted === 'auto' ? { used: new Set<string>() } : undefined;

  let pagesDone = 0;
  const log = new OcrProgressLog();
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
      const order = log.handed(options.onProgress ? await pageWork(dir, pages[i]) : undefined);
      const again = (): void => options.onProgress?.({ type: 'ocr-again', read: log.read(order) });
      await save(i, order, await readPage(engine, dir, pages[i], languages, options, detected, again));
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
async function readPage(
  engine: OcrEngine,
  dir: string,
  page: ProjectPage,
  languages: string[],
  options: RecognizeOptions,
  detected?: { used: Set<string> },
  again?: () => void,
): Promise<OcrPage> {
  const signal = options.signal;
  const read = (langs: string[]): Promise<OcrPage> => recognizePage(engine.recognize.bind(engine), inputOf(dir, page), langs, signal, page);
  const readAgain = (langs: string[]): Promise<OcrPage> => {
    again?.();
    return read(langs);
  };
  let result = await read(languages);
  const mayTurn = options.rotatePages !== false && engine.detectOrientation && looksMisoriented(result);
  if (mayTurn && (await turnIfNeeded(dir, page, engine, inputOf(dir, page), signal))) result = await readAgain(languages);
  const own = detected ? otherPageLanguages(result, languages, engine.languages()) : undefined;
  if (own) result = await readAgain(own);
  for (const language of own ?? languages) detected?.used.add(language);
  return result;
}

/** A page as the pipeline hands it over: its place in the document is known only once every frame is done. */
type MadePage = Omit<ProjectPage, 'index'>;

/** Recognition that reads pages as the pipeline makes them (see `startRecognitionAsMade`). */
export interface RecognitionAsMade {
  /** Read these pages as soon as a worker is free. */
  add(pages: readonly MadePage[]): void;
  /** Wait until every page handed over is read (the first failure, if any, is thrown here). */
  settle(): Promise<void>;
  /**
   * Once the pages have their final place: a page set on a larger canvas after it was read (one page size per
   * document) gets its words moved with it; `manifest.ocr` is recorded.
   */
  finish(manifest: ProjectManifest): Promise<void>;
}

/**
 * Start reading pages while the pipeline still makes the others, when that is possible: a page engine (not a
 * whole-document or batch one). With `auto`, the languages are decided once, from lines of the first pages made
 * (or of all of them, when the document has fewer), and every page waits for that before it is read. Undefined
 * otherwise: the caller recognises the project once its pages are made. Overlapping the two keeps both cores busy
 * while the pipeline waits on decoding and the OCR on its last pages.
 */
export async function startRecognitionAsMade(dir: string, spec: OcrSpec, options: RecognizeOptions = {}): Promise<RecognitionAsMade | undefined> {
  if (spec.mode === 'batch') return undefined;
  const first = spec.auto ? await bestLocalEngine(spec.languages) : getOcrEngine(spec.engine);
  if (first.recognizeDocument) return undefined;
  // Asked once a page needs reading: pages kept with their own text need no engine at all.
  let ready: Promise<void> | undefined;
  const readyOnce = (): Promise<void> =>
    (ready ??= assertAvailable(first)
      .then(() => mkdir(join(dir, 'ocr'), { recursive: true }))
      .then(() => undefined));
  const decision = languageDecision(dir, first, spec, options);
  const running: Array<Promise<void>> = [];
  /** The size each page had when it was read. */
  const readAt = new Map<MadePage, { width: number; height: number }>();
  let failure: unknown;
  let pagesDone = 0;
  let pagesKnown = 0;
  const log = new OcrProgressLog();
  return {
    add(pages) {
      for (const page of pages) {
        if (page.kind === 'pdf' || page.hidden) continue;
        pagesKnown++;
        decision.sample(page as ProjectPage);
        running.push(
          (async () => {
            if (failure !== undefined) return;
            if (options.signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
            await readyOnce();
            const { engine, languages } = await decision.decided;
            if (failure !== undefined) return;
            const order = log.handed(options.onProgress ? await pageWork(dir, page) : undefined);
            const again = (): void => options.onProgress?.({ type: 'ocr-again', read: log.read(order) });
            const result = await readPage(engine, dir, page as ProjectPage, languages, options, decision.detected, again);
            const file = `ocr/${ocrFileStem(page as ProjectPage)}.json`;
            await writeOcrPage(dir, file, result);
            page.ocr = file;
            readAt.set(page, { width: page.width, height: page.height });
            pageRead(options, ++pagesDone, pagesKnown, log.read(order));
          })().catch((e: unknown) => {
            failure ??= e;
          }),
        );
      }
    },
    async settle() {
      // Every page is made: a document shorter than the sample decides on what it has.
      decision.allMade();
      await Promise.all(running);
      if (failure !== undefined) throw failure;
    },
    async finish(manifest) {
      for (const page of manifest.pages) {
        const made = [...readAt.entries()].find(([p]) => p.file === page.file);
        const place = page.decisions.pageSize;
        if (!made || !page.ocr || !place || (made[1].width === page.width && made[1].height === page.height)) continue;
        await writeOcrPage(dir, page.ocr, movePage(await readOcrPage(dir, page.ocr, page.index), place));
      }
      if (pagesKnown === 0) return;
      const { engine, languages } = await decision.decided;
      manifest.ocr = { engine: engine.name, languages: withPageLanguages(languages, decision.detected) };
    },
  };
}

/** The engine and languages pages are read with, decided once for the document. */
interface LanguageDecision {
  /** Offer a page as it is made: the first ones are the sample `auto` decides on. */
  sample(page: ProjectPage): void;
  /** No more pages will come: decide on the sample as it is. */
  allMade(): void;
  readonly decided: Promise<{ engine: OcrEngine; languages: string[] }>;
  /** With `auto`: the languages pages were read with, a page in another language than the document's included. */
  readonly detected?: { used: Set<string> };
}

/** The document's languages, then those a page of another language was read with. */
function withPageLanguages(languages: string[], detected: { used: Set<string> } | undefined): string[] {
  return [...new Set([...languages, ...(detected?.used ?? [])])];
}

function languageDecision(dir: string, first: OcrEngine, spec: OcrSpec, options: RecognizeOptions): LanguageDecision {
  if (spec.languages !== 'auto') {
    const languages = spec.languages;
    languagesKnown(options, languages);
    const decided = Promise.resolve({ engine: first, languages });
    return { sample: () => undefined, allMade: () => undefined, decided };
  }
  // Each sample page's lines are read as soon as it is made, while the pipeline makes the next ones.
  const sampler = startLanguageSample(first, options.signal ? { signal: options.signal } : {});
  let sampled = 0;
  let decide!: () => void;
  const started = new Promise<void>((resolve) => (decide = resolve));
  const decided = started.then(async () => {
    const { languages } = await sampler.decide();
    languagesKnown(options, languages);
    // With the engine left to Quire, the languages found may let a faster one read the pages.
    return { engine: spec.auto ? await bestLocalEngine(languages) : first, languages };
  });
  // A failure is the page readers' to report; no rejection goes unheard meanwhile.
  decided.catch(() => undefined);
  return {
    sample(page) {
      if (sampled >= SAMPLE_PAGES) return;
      sampler.add(imageOf(dir, page));
      if (++sampled === SAMPLE_PAGES) decide();
    },
    allMade: () => decide(),
    decided,
    detected: { used: new Set<string>() },
  };
}

/** A page's words set on a larger canvas at (x, y): every box and baseline moved, the page's size the canvas's. */
function movePage(page: OcrPage, place: { width: number; height: number; x: number; y: number }): OcrPage {
  // Results are in the pixels of the page as it was read (see `OcrPage`): the offset is the canvas's own.
  const dx = place.x;
  const dy = place.y;
  const box = (b: OcrBox): OcrBox => ({ x0: b.x0 + dx, y0: b.y0 + dy, x1: b.x1 + dx, y1: b.y1 + dy });
  return {
    ...page,
    width: place.width,
    height: place.height,
    blocks: page.blocks.map((b) => ({
      box: box(b.box),
      paragraphs: b.paragraphs.map((p) => ({
        box: box(p.box),
        lines: p.lines.map((l) => ({
          ...l,
          box: box(l.box),
          ...(l.baseline ? { baseline: { x0: l.baseline.x0 + dx, y0: l.baseline.y0 + dy, x1: l.baseline.x1 + dx, y1: l.baseline.y1 + dy } } : {}),
          words: l.words.map((w) => ({ ...w, box: box(w.box) })),
        })),
      })),
    })),
  };
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
function imageOf(dir: string, p: ProjectPage): OcrInput {
  return { file: join(dir, p.file), width: p.width, height: p.height, dpi: p.dpi };
}

/**
 * The pages as a document a whole-document engine can cut into PDFs: each PDF is written with the PDF exporter (page
 * image data copied as it is), read back and removed.
 */
async function projectDocument(dir: string, pages: ProjectPage[]): Promise<OcrDocument> {
  const inputs = pages.map((p) => imageOf(dir, p));
  const pageBytes = await Promise.all(inputs.map(async (p) => (await stat(p.file)).size));
  return {
    pages: inputs,
    pageBytes,
    async pdf(from, to) {
      const path = join(dir, 'ocr', `.chunk-${process.pid}-${from + 1}-${to}.pdf`);
      const images = pages.slice(from, to).map((p, k): PdfPageInput => ({ ...inputs[from + k], kind: p.kind as PageKind }));
      try {
        await writePdf(images, path, { profile: 'auto', title: `pages ${from + 1}–${to}` });
        return new Uint8Array(await readFile(path));
      } finally {
        await rm(path, { force: true });
      }
    },
  };
}

/** Local word layouts are kept beside the results as `ocr/<page>.local.json`. */
const LOCAL_LAYOUT_SUFFIX = '.local.json';

/** A local layout is kept as a cache: missing or damaged, it is made again (or done without). */
function readLayout(dir: string, file: string, page: ProjectPage): Promise<OcrPage | undefined> {
  return readOcrPage(dir, file, page.index).catch(() => undefined);
}

const hasWords = (page: OcrPage | undefined): page is OcrPage =>
  page !== undefined && page.blocks.some((b) => b.paragraphs.some((p) => p.lines.some((l) => l.words.length > 0)));

/**
 * The local layout of each page, when one exists: `ocr/<page>.local.json`, else the page's current result when a
 * local engine made it (copied to `.local.json`, since the remote result takes its place). With the spec
 * option `layout=<engine>`, that engine reads the pages that have none first.
 */
async function localLayouts(
  dir: string,
  pages: ProjectPage[],
  remote: string,
  spec: Pick<OcrSpec, 'options' | 'languages'>,
  options: RecognizeOptions,
): Promise<Array<OcrPage | undefined>> {
  const layouts: Array<OcrPage | undefined> = [];
  for (const page of pages) {
    const localFile = `ocr/${ocrFileStem(page)}${LOCAL_LAYOUT_SUFFIX}`;
    let layout = await readLayout(dir, localFile, page);
    if (!hasWords(layout) && page.ocr && !page.ocr.endsWith(LOCAL_LAYOUT_SUFFIX)) {
      const current = await readLayout(dir, page.ocr, page);
      if (hasWords(current) && current.engine !== remote) {
        // A copy: the page keeps its text until the remote result replaces it, even if the remote call fails.
        await writeOcrPage(dir, localFile, current);
        layout = current;
      }
    }
    layouts.push(hasWords(layout) ? layout : undefined);
  }
  const layoutEngine = spec.options.layout;
  const missing = pages.filter((_, i) => layouts[i] === undefined);
  if (layoutEngine && missing.length > 0) {
    const local = getOcrEngine(layoutEngine);
    if (local.recognizeDocument || local.name === remote)
      throw new QuireError(ERROR_CODES.USAGE, `The OCR option layout=${layoutEngine} needs a local engine such as tesseract.`);
    await assertAvailable(local);
    const languages = spec.languages === 'auto' ? 'auto' : parseOcrSpec(layoutEngine, spec.languages.join('+')).languages;
    // A layout is not the text: nothing of it is corrected, so no dictionary is loaded for it.
    await recognizePages(
      local,
      async () => local,
      dir,
      missing,
      languages,
      { ...(options.signal ? { signal: options.signal } : {}), correct: false },
      (p) => `ocr/${ocrFileStem(p)}${LOCAL_LAYOUT_SUFFIX}`,
    );
    for (const [i, page] of pages.entries()) layouts[i] ??= await readLayout(dir, `ocr/${ocrFileStem(page)}${LOCAL_LAYOUT_SUFFIX}`, page);
  }
  return layouts;
}

/**
 * Remote pages saved as the project's OCR: each aligned onto its local layout when there is one (see
 * `src/ocr/remote/align.ts`), the document's languages read off the text unless the spec named them.
 */
async function saveRemotePages(
  dir: string,
  manifest: ProjectManifest,
  engine: string,
  pages: ProjectPage[],
  results: OcrPage[],
  layouts: Array<OcrPage | undefined>,
  wanted: string[] | 'auto',
): Promise<void> {
  const languages = wanted === 'auto' ? detectLanguages(results.map(ocrPageText).join('\n\n')) : wanted;
  for (const [i, page] of pages.entries()) {
    const remote = { ...results[i], languages };
    const local = layouts[i];
    const placed = (local && alignOntoLayout(remote, local)) || remote;
    const file = `ocr/${ocrFileStem(page)}.json`;
    await writeOcrPage(dir, file, placed);
    page.ocr = file;
  }
  manifest.ocr = { engine, languages };
}

async function recognizeAsDocument(
  dir: string,
  manifest: ProjectManifest,
  engine: OcrEngine,
  spec: OcrSpec,
  pages: ProjectPage[],
  options: RecognizeOptions,
): Promise<void> {
  const layouts = await localLayouts(dir, pages, engine.name, spec, options);
  const document = await projectDocument(dir, pages);
  const languages = spec.languages === 'auto' ? [] : spec.languages;
  const results = await engine.recognizeDocument!(document, languages, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onPage: (pagesDone: number, pagesTotal: number) => pageRead(options, pagesDone, pagesTotal) } : {}),
    label: manifest.name,
    engineOptions: spec.options,
  });
  await saveRemotePages(dir, manifest, engine.name, pages, results, layouts, spec.languages);
}

async function submitProjectBatch(
  dir: string,
  manifest: ProjectManifest,
  engine: OcrEngine,
  spec: OcrSpec,
  pages: ProjectPage[],
  options: RecognizeOptions,
): Promise<ProjectOcrBatch> {
  if (!engine.submitBatch || !engine.poll) throw new QuireError(ERROR_CODES.USAGE, `The OCR engine "${engine.name}" cannot run as a batch.`);
  // A layout engine runs now, while the batch is away, so finishing it later needs only the network.
  await localLayouts(dir, pages, engine.name, spec, options);
  const document = await projectDocument(dir, pages);
  const ticket = await engine.submitBatch(document, spec.languages === 'auto' ? [] : spec.languages, {
    ...(options.signal ? { signal: options.signal } : {}),
    label: manifest.name,
    engineOptions: spec.options,
  });
  const batch: ProjectOcrBatch = { engine: engine.name, options: spec.options, languages: spec.languages, pages: pages.map((p) => p.index), ticket };
  manifest.ocrBatch = batch;
  return batch;
}

function batchPages(manifest: ProjectManifest, batch: ProjectOcrBatch): ProjectPage[] {
  return batch.pages.map((index) => {
    const page = manifest.pages.find((p) => p.index === index);
    if (!page) throw new QuireError(ERROR_CODES.BAD_PROJECT, `Page ${index} of the OCR batch is no longer in the project.`);
    return page;
  });
}

function batchEngine(batch: ProjectOcrBatch): OcrEngine {
  const engine = findOcrEngine(batch.engine);
  if (!engine?.poll) throw new QuireError(ERROR_CODES.USAGE, `The OCR engine "${batch.engine}" of this project's batch is not available here.`);
  return engine;
}

/** Where a project's batch stands after a poll. */
export type ProjectOcrPoll = { state: 'pending'; status: string } | { state: 'done' } | { state: 'failed'; message: string; detail?: string };

/**
 * Ask the engine where the project's batch stands. Done: the pages are saved as the project's OCR (aligned onto
 * local layouts as in streaming mode) and `manifest.ocr` is set — the caller saves the manifest and removes
 * `ocrBatch` once the exports are written. Failed on the service's side (for good: failed, timed out, cancelled, a
 * page it could not read): its sentence, the batch's errors in `detail`. A poll that could not ask (network, key)
 * throws instead: the batch may still be fine.
 */
export async function pollProjectOcr(dir: string, manifest: ProjectManifest, options: { signal?: AbortSignal } = {}): Promise<ProjectOcrPoll> {
  const batch = manifest.ocrBatch;
  if (!batch) throw new QuireError(ERROR_CODES.USAGE, `The project in ${dir} has no OCR batch waiting.`);
  const engine = batchEngine(batch);
  const pages = batchPages(manifest, batch);
  const document = await projectDocument(dir, pages);
  const polled = await engine.poll!(batch.ticket, document, options.signal ? { signal: options.signal } : {});
  if (polled.state !== 'done') return polled;
  if (polled.pages.length !== pages.length)
    throw new QuireError(
      REMOTE_FAILED,
      'The OCR batch came back with a different number of pages than were sent.',
      `${polled.pages.length} of ${pages.length}`,
    );
  const layouts = await localLayouts(dir, pages, engine.name, { options: {}, languages: batch.languages }, {});
  await saveRemotePages(dir, manifest, engine.name, pages, polled.pages, layouts, batch.languages);
  return { state: 'done' };
}

/** Cancel the project's batch on the service's side (a job deleted or given up on); nothing when there is none. */
export async function cancelProjectBatch(manifest: ProjectManifest): Promise<void> {
  const batch = manifest.ocrBatch;
  if (!batch) return;
  await batchEngine(batch).cancel?.(batch.ticket);
}

async function recognizePage(
  recognize: (page: OcrInput, languages: string[], options?: { signal?: AbortSignal }) => Promise<OcrPage>,
  input: OcrInput,
  languages: string[],
  signal: AbortSignal | undefined,
  page: ProjectPage,
): Promise<OcrPage> {
  try {
    return await recognize(input, languages, signal ? { signal } : {});
  } catch (e) {
    if (e instanceof QuireError) throw e;
    throw new QuireError(ERROR_CODES.INTERNAL, `OCR of page ${page.index} failed.`, describeError(e));
  }
}

function ocrFileStem(page: ProjectPage): string {
  const name = page.file.split('/').pop() ?? `${page.index}`;
  return name.replace(/\.[^.]+$/, '');
}

/**
 * The OCR this run needs: the one asked for, else `auto` when an export is made from text
 * (Markdown, textpack) or languages were named, else none.
 */
export function ocrSpecFor(ocr: string | undefined, ocrLang: string | undefined, needsText: boolean): OcrSpec | undefined {
  if (ocr !== undefined) return parseOcrSpec(ocr, ocrLang);
  // Naming languages means wanting OCR, as does asking for a text export.
  if (needsText || ocrLang !== undefined) return parseOcrSpec('auto', ocrLang);
  return undefined;
}
