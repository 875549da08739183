import { existsSync } from 'node:fs';
import { copyFile, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { describeError, ERROR_CODES, QuireError } from './errors.js';
import { exportRegistry, openSlim, parseExportList, type ExportRequest } from './export/index.js';
import { inputType, openImages, openInput, type FrameKind, type OpenedInput, type SourceFrame, type TextLayerPage } from './ingest/index.js';
import { createFramePool, type FramePool } from './pipeline/pool.js';
import type { FramePage, FrameTask } from './pipeline/process.js';
import type { PresetName } from './pipeline/types.js';
import {
  createProjectFolder,
  loadManifest,
  newManifest,
  removeProjectFolder,
  safeFileName,
  saveManifest,
  type ProjectFolder,
  type ProjectManifest,
  type ProjectOcrBatch,
} from './project/index.js';
import { assertOcrReady, ocrSpecFor, pollProjectOcr, recognizeProject, cancelProjectBatch } from './recognize.js';
import { writeExports, type WrittenExport } from './write-exports.js';
import type { OcrSpec } from './ocr/index.js';

export { safeFileName } from './project/index.js';

export type ProgressEvent =
  | { type: 'start'; name: string; frames: number }
  | { type: 'frame'; framesDone: number; framesTotal: number; pagesDone: number; input: string }
  | { type: 'ocr'; pagesDone: number; pagesTotal: number }
  | { type: 'export'; format: string; path: string }
  | { type: 'done'; pages: number };

export interface ConvertOptions {
  /** `+`-joined export list (`pdf:g4+slim`) or parsed requests. Default `pdf`. */
  exports?: string | ExportRequest[];
  /** Where outputs go. Default: the current directory. */
  outDir?: string;
  /** Force a preset; by default each frame gets the one that fits its kind. */
  pipeline?: PresetName;
  /** `--dpi N` (`force: false`) or `--dpi force:N`. */
  dpi?: { value: number; force: boolean };
  /** Keep the working folder here instead of a temporary one. */
  keepProject?: string;
  /** Pipeline threads; default the number of cores. */
  workers?: number;
  /** Margin kept around the printed area, in mm. */
  marginMm?: number;
  /**
   * OCR spec (`auto`, `tesseract:lang=fra+lat`, `none`); absent means no OCR unless an export needs
   * it (md, textpack), which then turns on `auto`.
   */
  ocr?: string;
  /** `--ocr-lang`: `+`-joined BCP-47 or tesseract codes, or `auto` (the default). */
  ocrLang?: string;
  /** Document name for output files; default from the input. */
  name?: string;
  /**
   * Keep PDF pages that already have a text layer as they are (`quire ocr`): copied into the output PDF untouched,
   * their own text used for Markdown and textpacks, no pipeline and no OCR. Off by default (`quire run`).
   */
  keepTextPages?: boolean;
  /** Rasterise and OCR every page even when it has a text layer (`--force-ocr`): overrides `keepTextPages`, turns OCR on. */
  forceOcr?: boolean;
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
  /** Milliseconds: wall time per phase and summed CPU time per pipeline step. */
  timings: { total: number; pipeline: number; ocr: number; export: number; steps: Record<string, number> };
  /** The OCR engine and languages, when OCR ran. */
  ocr?: { engine: string; languages: string[] };
  /**
   * Set when the OCR was submitted as a batch (`remoteocr:batch`): only the exports that need no text were written,
   * the project is kept (`projectDir`), and `checkProjectOcr(projectDir)` finishes the OCR and the other exports.
   */
  ocrPending?: OcrPending;
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

const DEFAULT_PRESET: Record<FrameKind, PresetName> = { camera: 'book', scan: 'sheet', digital: 'flat' };

/** The name of the source PDF in a project that keeps pages of it (the next ones, if ever, `source-2.pdf` …). */
const SOURCE_PDF = 'source.pdf';

/**
 * Convert one document: a scan bundle, a PDF, a slim project (`.quire`), or several images taken together.
 * Nothing is written to `outDir` unless every export succeeds.
 */
export async function convert(input: string | string[], options: ConvertOptions = {}): Promise<ConvertResult> {
  const t0 = performance.now();
  const requests = typeof options.exports === 'string' || options.exports === undefined ? parseExportList(options.exports ?? 'pdf') : options.exports;
  const outDir = resolve(options.outDir ?? '.');
  const inputs = Array.isArray(input) ? input : [input];
  if (inputs.length === 0) throw new QuireError(ERROR_CODES.USAGE, 'No input was given.');
  const needsText = requests.some((r) => exportRegistry.get(r.format)?.needsOcr);
  const ocrSpec = ocrSpecFor(options.ocr, options.ocrLang, needsText || options.forceOcr === true);
  // An engine that cannot run (no API key, no language data) is said before the pipeline's minutes, not after.
  // `quire ocr` may keep every page of a PDF with its own text and run no engine at all, so it is not asked there.
  if (ocrSpec && (!options.keepTextPages || options.forceOcr)) await assertOcrReady(ocrSpec);

  if (inputs.length === 1 && inputType(inputs[0]) === 'project') {
    return reexportProject(inputs[0], requests, outDir, options, ocrSpec, t0);
  }

  const opened = await openDocument(inputs);
  let folder: ProjectFolder | undefined;
  let pool: FramePool | undefined;
  let manifest: ProjectManifest | undefined;
  // A batch is finished by a later process, which needs the project: it is kept, beside the outputs unless told where.
  const implicitKeep = !options.keepProject && ocrSpec?.mode === 'batch';
  try {
    const name = options.name ?? opened.name;
    folder = await createProjectFolder(implicitKeep ? freeProjectDir(outDir, name) : options.keepProject);
    manifest = newManifest(name, inputs.map((p) => basename(p)));
    options.onProgress?.({ type: 'start', name, frames: opened.frames.length });
    pool = createFramePool(options.workers);
    const tPipe = performance.now();
    const kept = options.keepTextPages && !options.forceOcr ? await copySourcePdfs(opened, folder.dir) : new Map<string, string>();
    const { pages, steps } = await runFrames(opened, pool, folder.dir, options, kept);
    const pipeline = performance.now() - tPipe;
    manifest.pages = pages.map((p, i) => ({ index: i + 1, ...p }));
    await saveManifest(folder.dir, manifest);
    await pool.close();

    const ocr = await runOcr(folder.dir, manifest, ocrSpec, options, requests, outDir);
    const tExport = performance.now();
    const outputs = await writeExports(folder.dir, manifest, exportsNow(manifest, requests), outDir, (o) => options.onProgress?.({ type: 'export', format: o.format, path: o.path }));
    options.onProgress?.({ type: 'done', pages: manifest.pages.length });
    const keptPages = manifest.pages.filter((p) => p.kind === 'pdf').length;
    return {
      name,
      outputs,
      frames: opened.frames.length,
      pages: manifest.pages.length,
      ...(keptPages > 0 ? { keptPages } : {}),
      ...(folder.transient ? {} : { projectDir: folder.dir }),
      ...(manifest.ocr ? { ocr: manifest.ocr } : {}),
      ...(manifest.ocrBatch ? { ocrPending: pendingOf(manifest.ocrBatch) } : {}),
      timings: { total: performance.now() - t0, pipeline, ocr, export: performance.now() - tExport, steps },
    };
  } catch (e) {
    // A project kept only for a batch that was never submitted is of no use to anyone.
    if (folder && implicitKeep && !manifest?.ocrBatch) await rm(folder.dir, { recursive: true, force: true });
    throw e;
  } finally {
    await pool?.close();
    await opened.close();
    if (folder) await removeProjectFolder(folder);
  }
}

async function openDocument(inputs: string[]): Promise<OpenedInput> {
  for (const p of inputs) {
    try {
      await stat(p);
    } catch {
      throw new QuireError(ERROR_CODES.INPUT_NOT_FOUND, `${p} does not exist.`);
    }
  }
  if (inputs.length === 1) return openInput(inputs[0]);
  const notImages = inputs.filter((p) => inputType(p) !== 'image');
  if (notImages.length > 0) {
    throw new QuireError(ERROR_CODES.USAGE, `Only image files can be combined into one document, and ${notImages[0]} is not one.`);
  }
  return openImages(inputs);
}

/**
 * Copy each PDF whose pages have a text layer into the project, so a kept page (and a slim project made from it)
 * does not depend on the input staying where it was. Returns the project file of each such PDF, by input path.
 */
async function copySourcePdfs(opened: OpenedInput, projectDir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const frame of opened.frames) {
    const pdf = frame.textLayer?.pdf;
    if (pdf === undefined || files.has(pdf)) continue;
    const file = files.size === 0 ? SOURCE_PDF : SOURCE_PDF.replace(/\.pdf$/, `-${files.size + 1}.pdf`);
    try {
      await copyFile(pdf, join(projectDir, file));
    } catch (e) {
      throw new QuireError(ERROR_CODES.OUTPUT, `Could not copy ${pdf} into the project.`, describeError(e));
    }
    files.set(pdf, file);
  }
  return files;
}

/** A page kept from its PDF: no pipeline and no OCR, its text layer read once into `ocr/<frame>-text.json`. */
async function keepTextPage(frame: SourceFrame, layer: TextLayerPage, file: string, projectDir: string): Promise<FramePage> {
  const ocr = `ocr/${String(frame.index).padStart(4, '0')}-text.json`;
  await mkdir(join(projectDir, 'ocr'), { recursive: true });
  await writeFile(join(projectDir, ocr), JSON.stringify(await layer.textContent()));
  return {
    file,
    kind: 'pdf',
    pdfPage: layer.page,
    width: layer.width,
    height: layer.height,
    dpi: layer.dpi,
    ocr,
    source: { input: frame.input, frame: frame.index, side: 'single' },
    // Nothing was done to the page: `flat` is the preset that changes nothing.
    decisions: { preset: 'flat', inputDpi: { value: layer.dpi, source: 'pdf' } },
  };
}

/** Stream frames through the pool: load one ahead of each thread, never more. Pages with a text layer in `kept` skip it. */
async function runFrames(
  opened: OpenedInput,
  pool: FramePool,
  projectDir: string,
  options: ConvertOptions,
  kept: Map<string, string>,
): Promise<{ pages: FramePage[]; steps: Record<string, number> }> {
  const total = opened.frames.length;
  const results: FramePage[][] = new Array(total);
  const steps: Record<string, number> = {};
  let next = 0;
  let framesDone = 0;
  let pagesDone = 0;
  let failure: unknown;

  const lane = async (): Promise<void> => {
    while (next < total && failure === undefined) {
      if (options.signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
      const i = next++;
      const frame = opened.frames[i];
      const keptFile = frame.textLayer && kept.get(frame.textLayer.pdf);
      if (frame.textLayer && keptFile) {
        results[i] = [await keepTextPage(frame, frame.textLayer, keptFile, projectDir)];
        framesDone++;
        pagesDone++;
        options.onProgress?.({ type: 'frame', framesDone, framesTotal: total, pagesDone, input: frame.input });
        continue;
      }
      const image = await frame.load();
      const task: FrameTask = {
        frame: image,
        input: frame.input,
        frameIndex: frame.index,
        kind: frame.kind,
        preset: options.pipeline ?? DEFAULT_PRESET[frame.kind],
        ...(frame.dpi ? { knownDpi: frame.dpi } : {}),
        ...(options.dpi ? { dpiOption: options.dpi } : {}),
        marginMm: options.marginMm ?? 4,
        projectDir,
      };
      const result = await pool.run(task);
      results[i] = result.pages;
      for (const [step, ms] of Object.entries(result.timings)) steps[step] = (steps[step] ?? 0) + ms;
      framesDone++;
      pagesDone += result.pages.length;
      options.onProgress?.({ type: 'frame', framesDone, framesTotal: total, pagesDone, input: frame.input });
    }
  };
  const lanes = Array.from({ length: Math.min(pool.size, Math.max(1, total)) }, () =>
    lane().catch((e: unknown) => {
      failure ??= e;
    }),
  );
  await Promise.all(lanes);
  if (failure !== undefined) throw failure;
  return { pages: results.flat(), steps };
}

/**
 * OCR the project when asked; returns the milliseconds it took. A batch submitted instead is recorded in the
 * project with the exports asked for and their folder, for whoever finishes it.
 */
async function runOcr(dir: string, manifest: ProjectManifest, spec: OcrSpec | undefined, options: ConvertOptions, requests: ExportRequest[], outDir: string): Promise<number> {
  if (!spec) return 0;
  const t0 = performance.now();
  const outcome = await recognizeProject(dir, manifest, spec, {
    ...(options.signal ? { signal: options.signal } : {}),
    onPage: (pagesDone, pagesTotal) => options.onProgress?.({ type: 'ocr', pagesDone, pagesTotal }),
  });
  if (outcome.state === 'submitted') manifest.ocrBatch = { ...outcome.batch, exports: requests, outDir };
  await saveManifest(dir, manifest);
  return performance.now() - t0;
}

/** The exports to write now: all of them, or while a batch is away, those made without text (the image PDF, slim). */
function exportsNow(manifest: ProjectManifest, requests: ExportRequest[]): ExportRequest[] {
  return manifest.ocrBatch ? requests.filter((r) => !exportRegistry.get(r.format)?.needsOcr) : requests;
}

function pendingOf(batch: ProjectOcrBatch): OcrPending {
  return { engine: batch.engine, batchIds: batch.ticket.batchIds, submittedAt: batch.ticket.submittedAt };
}

/** `<outDir>/<name>-project`, or `-project-2`, … when taken: a batch's project never lands on another's. */
function freeProjectDir(outDir: string, name: string): string {
  const base = join(outDir, `${safeFileName(name)}-project`);
  for (let n = 1; ; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    if (!existsSync(dir)) return dir;
  }
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
  if (polled.state === 'failed') return { state: 'failed', name: manifest.name, projectDir: dir, message: polled.message, ...(polled.detail ? { detail: polled.detail } : {}) };
  await saveManifest(dir, manifest);
  const ocr = performance.now() - t0;
  const tExport = performance.now();
  const requests = batch.exports ?? [{ format: 'pdf', options: {} }];
  const outputs = await writeExports(dir, manifest, requests, batch.outDir ?? dir, (o) => options.onProgress?.({ type: 'export', format: o.format, path: o.path }));
  // Forgotten only once the exports are written: a check that stops half-way is simply made again.
  delete manifest.ocrBatch;
  await saveManifest(dir, manifest);
  options.onProgress?.({ type: 'done', pages: manifest.pages.length });
  const keptPages = manifest.pages.filter((p) => p.kind === 'pdf').length;
  return {
    state: 'done',
    result: {
      name: manifest.name,
      outputs,
      frames: new Set(manifest.pages.map((p) => `${p.source.input}#${p.source.frame}`)).size,
      pages: manifest.pages.length,
      ...(keptPages > 0 ? { keptPages } : {}),
      projectDir: dir,
      ...(manifest.ocr ? { ocr: manifest.ocr } : {}),
      timings: { total: performance.now() - t0, pipeline: 0, ocr, export: performance.now() - tExport, steps: {} },
    },
  };
}

/** Cancel a project's OCR batch on the service's side; nothing when it has none (or no project is left). */
export async function cancelProjectOcr(projectDir: string): Promise<void> {
  const dir = resolve(projectDir);
  if (!existsSync(join(dir, 'project.json'))) return;
  await cancelProjectBatch(await loadManifest(dir));
}

/**
 * Reopen a slim project (or a kept project folder) and write its exports again without
 * reprocessing a page; OCR runs only when asked for, or when a text export needs it and the
 * project has none yet.
 */
async function reexportProject(
  path: string,
  requests: ExportRequest[],
  outDir: string,
  options: ConvertOptions,
  ocrSpec: OcrSpec | undefined,
  t0: number,
): Promise<ConvertResult> {
  const isFolder = (await stat(path)).isDirectory();
  // A batch from a slim project needs a folder that outlives this run, as in `convert`.
  const keep = options.keepProject ?? (!isFolder && ocrSpec?.mode === 'batch' ? freeProjectDir(outDir, basename(path).replace(/\.quire$/i, '')) : undefined);
  const folder = await createProjectFolder(keep);
  try {
    // A kept project folder is exported in place; a slim project is unpacked first.
    const { dir, manifest } = isFolder ? { dir: path, manifest: await loadManifest(path) } : await openSlim(path, join(folder.dir, 'project'));
    if (manifest.ocrBatch && options.ocr === undefined && ocrSpec) {
      throw new QuireError(ERROR_CODES.USAGE, `This project's OCR batch is not finished yet; finish it with quire run ${dir} --check-ocr.`);
    }
    if (options.name) manifest.name = options.name;
    if (options.forceOcr && manifest.pages.some((p) => p.kind === 'pdf')) {
      throw new QuireError(ERROR_CODES.USAGE, 'This project keeps pages of its PDF as they are, so --force-ocr needs the PDF itself as input.');
    }
    const frames = new Set(manifest.pages.map((p) => `${p.source.input}#${p.source.frame}`)).size;
    const hasOcr = manifest.pages.every((p) => p.hidden || p.ocr);
    const ocr = options.ocr !== undefined || (ocrSpec && !hasOcr) ? await runOcr(dir, manifest, ocrSpec, options, requests, outDir) : 0;
    const tExport = performance.now();
    const outputs = await writeExports(dir, manifest, exportsNow(manifest, requests), outDir, (o) => options.onProgress?.({ type: 'export', format: o.format, path: o.path }));
    const keptPages = manifest.pages.filter((p) => p.kind === 'pdf').length;
    return {
      name: manifest.name,
      outputs,
      frames,
      pages: manifest.pages.length,
      ...(keptPages > 0 ? { keptPages } : {}),
      ...(folder.transient && !manifest.ocrBatch ? {} : { projectDir: dir }),
      ...(manifest.ocr ? { ocr: manifest.ocr } : {}),
      ...(manifest.ocrBatch ? { ocrPending: pendingOf(manifest.ocrBatch) } : {}),
      timings: { total: performance.now() - t0, pipeline: 0, ocr, export: performance.now() - tExport, steps: {} },
    };
  } finally {
    await removeProjectFolder(folder);
  }
}
