/**
 * `convert()`: the verbs of this folder composed — open the input, make its pages, recognise the text, write the
 * exports — and the two calls that finish or cancel an OCR batch later. The CLI, the job server's worker and the
 * web app all convert through here.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeError, ERROR_CODES, isQuireError, QuireError } from '../errors.js';
import { checkConversions, type CheckedDocument } from './check.js';
import { exportRegistry, type ExportRequest } from '../export/index.js';
import { parseOcrSpec, type OcrSpec } from '../ocr/index.js';
import { outOfFocus } from '../pipeline/index.js';
import { checkOutputFolder, loadManifest, saveManifest, visiblePages, type ProjectManifest, type ProjectOcr, type ProjectOcrBatch } from '../project/index.js';
import { openDocument, processPages, type OpenedDocument, type OpenOptions, type ProcessOptions } from './document.js';
import { finishText } from './printed.js';
import type { ProgressEvent } from './progress.js';
import { assertOcrReady, cancelProjectBatch, pollProjectOcr, recognizeProject, startRecognitionAsMade, type RecognizeOptions } from './recognize.js';
import { writeExports, type WrittenExport } from './write-exports.js';

export interface ConvertOptions extends Omit<OpenOptions, 'projectDir' | 'opened'>, Omit<ProcessOptions, 'onProgress' | 'signal'> {
  /** `+`-joined export list (`pdf:g4+slim`) or parsed requests. Default `pdf`. */
  exports?: string | ExportRequest[];
  /** Where outputs go. Default: the current directory. */
  outDir?: string;
  /** Output files are `<fileStem><extension>`; default the document name made safe as a file name. */
  fileStem?: string;
  /** Keep the working folder here instead of a temporary one. */
  keepProject?: string;
  /**
   * OCR spec (`auto`, `tesseract:lang=fra+lat`, `none`); absent means no OCR unless an export needs
   * it (md, textpack), which then turns on `auto`.
   */
  ocr?: string;
  /** `--ocr-lang`: `+`-joined BCP-47 or tesseract codes, or `auto` (the default). */
  ocrLang?: string;
  /** Rasterise and OCR every page even when it has a text layer (`--force-ocr`): overrides `keepTextPages`, turns OCR on. */
  forceOcr?: boolean;
  /**
   * Correct OCR confusions against the language's dictionary (default true), each change recorded on its word;
   * false (`--no-correct`) keeps the words as the engine read them — also for a project corrected before.
   */
  correct?: boolean;
  /** The person's own dictionary: words the correction leaves alone and never marks to check. */
  userWords?: readonly string[];
  /** Turn pages found the wrong way up before reading them (default true); false (`--rotate-pages off`) keeps them. */
  rotatePages?: boolean;
  /** This document as `checkConversions` checked it with these options, in a run of several; by default it is checked here. */
  checked?: CheckedDocument;
  /** Stops the conversion: the pipeline's threads and OCR processes are ended, nothing is written, the working folder removed. */
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export interface ConvertResult {
  name: string;
  outputs: WrittenExport[];
  frames: number;
  pages: number;
  /** Pages kept from the source PDF as they were, with their own text (set when there are any). */
  keptPages?: number;
  /** Set when the working folder was kept. */
  projectDir?: string;
  /**
   * Milliseconds: wall time per phase and summed CPU time per pipeline step. When pages are read as the pipeline
   * makes them, `ocr` runs from the first page made to the last one read and overlaps `pipeline`.
   */
  timings: { total: number; pipeline: number; ocr: number; export: number; steps: Record<string, number> };
  /** The OCR engine and languages, when OCR ran, and what the correction step did. */
  ocr?: ProjectOcr;
  /**
   * Set when the OCR was submitted as a batch (`remoteocr:batch`): only the exports that need no text were written,
   * the project is kept (`projectDir`), and `checkProjectOcr(projectDir)` finishes the OCR and the other exports.
   */
  ocrPending?: OcrPending;
  /**
   * The pages (numbered from 1, as the outputs have them) photographed out of focus or shaken: their text is the
   * least sure, and taking them again gives a better one. Set when there are any.
   */
  outOfFocus?: number[];
}

/** The one shape of `convert` that the job server and the web app take (tests hand them stand-ins). */
export type ConvertFn = (input: string | string[], options: ConvertOptions) => Promise<ConvertResult>;

/**
 * The conversion verbs a host hands its work to: convert a document, and later finish or cancel the OCR batch it
 * left in its project. The job server runs them on a thread of their own; tests stand in for them.
 */
export interface ConvertEngine {
  convert: ConvertFn;
  checkOcr(projectDir: string): Promise<OcrCheck>;
  cancelOcr(projectDir: string): Promise<void>;
}

/** A submitted OCR batch, as the caller reports it. */
export interface OcrPending {
  engine: string;
  batchIds: string[];
  submittedAt: string;
}

/** Where a project's OCR batch stands after `checkProjectOcr`. */
export type OcrCheck =
  | { state: 'pending'; name: string; projectDir: string; status: string; pending: OcrPending }
  | { state: 'done'; result: ConvertResult }
  /** Failed for good on the service's side: one sentence, the batch's errors in `detail`. */
  | { state: 'failed'; name: string; projectDir: string; message: string; detail?: string };

/**
 * Convert one document: a scan bundle, a PDF, a slim project (`.quire`) or a kept project folder, or several images
 * taken together. Everything that can be refused is refused before the first page is processed (see
 * `checkConversions`); a run of several documents checks them all first and hands each one's check in `checked`.
 * Nothing is written to `outDir` unless every export succeeds, and an earlier output of the same name is replaced
 * only then.
 */
export async function convert(input: string | string[], options: ConvertOptions = {}): Promise<ConvertResult> {
  const t0 = performance.now();
  const run = options.checked ? undefined : await checkConversions([input], options);
  const checked = options.checked ?? run!.documents[0];
  try {
    return await convertChecked(checked, options, t0);
  } finally {
    await run?.close();
  }
}

/**
 * Whether anything may read this document's text: this run's OCR, or a later one on the project it keeps (kept
 * folder, slim export). Otherwise the pipeline makes no grey reading page.
 */
function mayReadText(plan: CheckedDocument): boolean {
  return plan.readsText || plan.projectDir !== undefined || plan.requests.some((r) => r.format === 'slim');
}

async function convertChecked(plan: CheckedDocument, options: ConvertOptions, t0: number): Promise<ConvertResult> {
  const { requests, outDir, ocr: ocrSpec } = plan;
  // Between documents of a run the disk may have filled up: looked at again, it costs one statfs.
  if (options.checked) await checkOutputFolder(outDir, { needed: plan.expected.outputs });
  const doc = await openPlanned(plan, options);
  try {
    let pipeline = 0;
    let steps: Record<string, number> = {};
    let ocr = 0;
    const correct = options.correct !== false;
    if (doc.source) {
      // Pages are read as the pipeline makes them where the engine and languages allow it.
      const asMade = ocrSpec ? await startRecognitionAsMade(doc.dir, ocrSpec, recognizeOptionsOf(options)) : undefined;
      const t0Pages = performance.now();
      ({ ms: pipeline, steps } = await processPages(doc, {
        ...options,
        reading: mayReadText(plan),
        ...(asMade ? { onPages: (pages) => asMade.add(pages), settle: () => asMade.settle() } : {}),
      }));
      if (asMade) {
        await asMade.finish(doc.manifest);
        await finishText(doc, correct, options.userWords);
        ocr = performance.now() - t0Pages;
      } else if (ocrSpec) ocr = await recognize(doc, ocrSpec, { requests, outDir, ...recognizeOptionsOf(options, plan.fileStem) });
    } else {
      // A project opened again is read again only as the plan says (asked, or lacking the text an export needs).
      if (plan.readsText && ocrSpec) ocr = await recognize(doc, ocrSpec, { requests, outDir, ...recognizeOptionsOf(options, plan.fileStem) });
      // Text recognised before: corrected, or put back as read, as this run asks.
      else if (doc.manifest.ocr && !doc.manifest.ocrBatch && doc.manifest.ocr.correction?.enabled !== correct)
        await finishText(doc, correct, options.userWords);
    }
    const tExport = performance.now();
    const outputs = await writeExports(doc, exportsNow(doc.manifest, requests), outDir, {
      fileStem: plan.fileStem,
      expectedBytes: plan.expected.outputs,
      ...(options.signal ? { signal: options.signal } : {}),
      onWritten: (o) => options.onProgress?.({ type: 'export', format: o.format, path: o.path }),
    });
    if (doc.source) options.onProgress?.({ type: 'done', pages: doc.manifest.pages.length });
    return resultOf(doc.manifest, outputs, doc.frames, doc.transient && !doc.manifest.ocrBatch ? undefined : doc.dir, {
      total: performance.now() - t0,
      pipeline,
      ocr,
      export: performance.now() - tExport,
      steps,
    });
  } catch (e) {
    // A project kept only for a batch that was never submitted is of no use to anyone.
    if (plan.keptForBatch && doc.source && !doc.manifest.ocrBatch) await rm(doc.dir, { recursive: true, force: true });
    if (options.signal?.aborted && !(isQuireError(e) && e.code === ERROR_CODES.CANCELLED)) {
      throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.', describeError(e));
    }
    throw e;
  } finally {
    await doc.close();
  }
}

/**
 * Parse an OCR spec (`auto`, `tesseract:lang=fra`) with `--ocr-lang`, and make sure its engine can run here: one
 * sentence when it cannot (no API key, no language data), said before the pipeline's minutes rather than after.
 */
export async function readyOcr(ocr: string, ocrLang?: string): Promise<OcrSpec> {
  const spec = parseOcrSpec(ocr, ocrLang);
  await assertOcrReady(spec);
  return spec;
}

/**
 * Recognise the text of an opened document's visible pages with `ocr` (an OCR spec such as `auto`, or one parsed
 * with `--ocr-lang`), saving it in the project with each page's printed number and running head. A batch engine
 * submits the pages instead and records the batch in the manifest. Returns the milliseconds it took.
 */
export async function recognize(doc: { dir: string; manifest: ProjectManifest }, ocr: OcrSpec | string, options: RecognizeOptions = {}): Promise<number> {
  const spec = typeof ocr === 'string' ? parseOcrSpec(ocr, options.ocrLang) : ocr;
  const t0 = performance.now();
  const outcome = await recognizeProject(doc.dir, doc.manifest, spec, options);
  const correct = options.correct !== false;
  if (outcome.state === 'submitted') {
    doc.manifest.ocrBatch = {
      ...outcome.batch,
      ...(correct ? {} : { correct: false }),
      exports: options.requests ?? [],
      ...(options.outDir ? { outDir: options.outDir } : {}),
      ...(options.fileStem ? { fileStem: options.fileStem } : {}),
    };
    await saveManifest(doc.dir, doc.manifest);
  } else {
    if (correct) options.onProgress?.({ type: 'ocr-check' });
    await finishText(doc, correct, options.userWords);
  }
  return performance.now() - t0;
}

/**
 * Finish a project's OCR batch, if it is done: poll it, save its text, write the exports asked for when it was
 * submitted (to the folder named then), and forget the batch. While it runs, or when it failed for good on the
 * service's side, say so. A poll that could not reach the service throws. `quire run <project> --check-ocr` and the
 * job server's poller call this.
 */
export async function checkProjectOcr(projectDir: string, options: Pick<ConvertOptions, 'signal' | 'onProgress'> = {}): Promise<OcrCheck> {
  const t0 = performance.now();
  const dir = resolve(projectDir);
  const manifest = await loadManifest(dir);
  const batch = manifest.ocrBatch;
  if (!batch) {
    const done = manifest.ocr ? ` (its OCR is done; export it again with quire run ${dir} -e <formats>)` : '';
    throw new QuireError(ERROR_CODES.USAGE, `The project in ${dir} has no OCR batch waiting${done}.`);
  }
  const polled = await pollProjectOcr(dir, manifest, options.signal ? { signal: options.signal } : {});
  if (polled.state === 'pending') return { state: 'pending', name: manifest.name, projectDir: dir, status: polled.status, pending: pendingOf(batch) };
  if (polled.state === 'failed')
    return { state: 'failed', name: manifest.name, projectDir: dir, message: polled.message, ...(polled.detail ? { detail: polled.detail } : {}) };
  await finishText({ dir, manifest }, batch.correct !== false);
  const ocr = performance.now() - t0;
  const tExport = performance.now();
  const requests = batch.exports ?? [{ format: 'pdf', options: {} }];
  const outputs = await writeExports({ dir, manifest }, requests, batch.outDir ?? dir, {
    ...(batch.fileStem ? { fileStem: batch.fileStem } : {}),
    onWritten: (o) => options.onProgress?.({ type: 'export', format: o.format, path: o.path }),
  });
  // Forgotten only once the exports are written: a check that stops half-way is simply made again.
  delete manifest.ocrBatch;
  await saveManifest(dir, manifest);
  options.onProgress?.({ type: 'done', pages: manifest.pages.length });
  const frames = new Set(manifest.pages.map((p) => `${p.source.input}#${p.source.frame}`)).size;
  return {
    state: 'done',
    result: resultOf(manifest, outputs, frames, dir, { total: performance.now() - t0, pipeline: 0, ocr, export: performance.now() - tExport, steps: {} }),
  };
}

/** Cancel a project's OCR batch on the service's side; nothing when it has none (or no project is left). */
export async function cancelProjectOcr(projectDir: string): Promise<void> {
  const dir = resolve(projectDir);
  if (!existsSync(join(dir, 'project.json'))) return;
  await cancelProjectBatch(await loadManifest(dir));
}

/** What reading the text needs of the conversion's options. */
function recognizeOptionsOf(options: ConvertOptions, fileStem?: string): RecognizeOptions {
  return {
    ...(fileStem ? { fileStem } : {}),
    ...(options.correct === false ? { correct: false } : {}),
    ...(options.userWords ? { userWords: options.userWords } : {}),
    ...(options.rotatePages === false ? { rotatePages: false } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
}

/**
 * Open the document the plan names: the input or project the check opened (taken over, not opened again), else
 * opened now, its project folder where the plan keeps it.
 */
async function openPlanned(plan: CheckedDocument, options: ConvertOptions): Promise<OpenedDocument> {
  const opened = plan.takeOpened();
  if (opened?.kind === 'project') return opened.document;
  return openDocument(plan.inputs.length === 1 ? plan.inputs[0] : plan.inputs, {
    ...(options.label ? { label: options.label } : {}),
    ...(options.name ? { name: options.name } : {}),
    keepTextPages: plan.keepTextPages,
    ...(opened ? { opened: opened.input } : {}),
    ...(plan.projectDir ? { projectDir: plan.projectDir } : {}),
  });
}

/** The exports to write now: all of them, or while a batch is away, those made without text (the image PDF, slim). */
function exportsNow(manifest: ProjectManifest, requests: ExportRequest[]): ExportRequest[] {
  return manifest.ocrBatch ? requests.filter((r) => !exportRegistry.get(r.format)?.needsOcr) : requests;
}

function pendingOf(batch: ProjectOcrBatch): OcrPending {
  return { engine: batch.engine, batchIds: batch.ticket.batchIds, submittedAt: batch.ticket.submittedAt };
}

function resultOf(
  manifest: ProjectManifest,
  outputs: WrittenExport[],
  frames: number,
  projectDir: string | undefined,
  timings: ConvertResult['timings'],
): ConvertResult {
  const keptPages = manifest.pages.filter((p) => p.kind === 'pdf').length;
  const blurred = visiblePages(manifest).flatMap((p, i) => (outOfFocus(p.decisions.sharpen, p.decisions.scale) ? [i + 1] : []));
  return {
    name: manifest.name,
    outputs,
    frames,
    pages: manifest.pages.length,
    ...(keptPages > 0 ? { keptPages } : {}),
    ...(projectDir ? { projectDir } : {}),
    ...(manifest.ocr ? { ocr: manifest.ocr } : {}),
    ...(manifest.ocrBatch ? { ocrPending: pendingOf(manifest.ocrBatch) } : {}),
    ...(blurred.length > 0 ? { outOfFocus: blurred } : {}),
    timings,
  };
}
