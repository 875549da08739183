/**
 * A project's OCR: pages read as the pipeline makes them or once they are all made, the document's languages decided
 * once (`auto`: on lines of its first pages); whole-document and batch engines in `recognize-remote.ts`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ERROR_CODES, QuireError } from '../errors.js';
import { bestLocalEngine, SAMPLE_PAGES, startLanguageSample, getOcrEngine, type OcrEngine, type OcrSpec, parseOcrSpec } from '../ocr/index.js';
import {
  type OcrBox,
  type OcrPage,
  type ProjectManifest,
  type ProjectOcrBatch,
  type ProjectPage,
  readOcrPage,
  visiblePages,
  writeOcrPage,
} from '../project/index.js';
import {
  assertAvailable,
  imageOf,
  DictionaryWarmUp,
  ocrFileStem,
  pageRead,
  readPage,
  recognizePages,
  type RecognizeOptions,
  withPageLanguages,
  workIfTimed,
} from './recognize-pages.js';
import { recognizeAsDocument, submitProjectBatch } from './recognize-remote.js';
import { OcrProgressLog } from './ocr-work.js';

export type { RecognizeOptions } from './recognize-pages.js';
export { cancelProjectBatch, pollProjectOcr, type ProjectOcrPoll } from './recognize-remote.js';

/** OCR ran to its end, or (batch mode) was submitted and waits in `manifest.ocrBatch`. */
export type RecognizeOutcome = { state: 'done' } | { state: 'submitted'; batch: ProjectOcrBatch };

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
  const warmUp = new DictionaryWarmUp(options);
  const decision = languageDecision(dir, first, spec, options);
  void decision.decided.then(
    ({ languages }) => warmUp.languagesKnown(languages),
    () => undefined,
  );
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
        warmUp.pageKnown();
        decision.sample(page as ProjectPage);
        running.push(
          (async () => {
            if (failure !== undefined) return;
            if (options.signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
            await readyOnce();
            const { engine, languages } = await decision.decided;
            if (failure !== undefined) return;
            const order = log.handed(await workIfTimed(options, dir, page));
            const again = (): void => options.onProgress?.({ type: 'ocr-again', read: log.read(order) });
            const result = await readPage(engine, dir, page as ProjectPage, languages, options, decision.detected, again, warmUp.pageBegins());
            warmUp.pageDone();
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
      warmUp.lastKnown();
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

function languageDecision(dir: string, first: OcrEngine, spec: OcrSpec, options: RecognizeOptions): LanguageDecision {
  if (spec.languages !== 'auto') {
    const languages = spec.languages;
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
 * The OCR this run needs: the one asked for, else `auto` when an export is made from text
 * (Markdown, textpack) or languages were named, else none.
 */
export function ocrSpecFor(ocr: string | undefined, ocrLang: string | undefined, needsText: boolean): OcrSpec | undefined {
  if (ocr !== undefined) return parseOcrSpec(ocr, ocrLang);
  // Naming languages means wanting OCR, as does asking for a text export.
  if (needsText || ocrLang !== undefined) return parseOcrSpec('auto', ocrLang);
  return undefined;
}
