/**
 * The first two verbs of a conversion: `openDocument` (an input, or a project made earlier, as a project folder)
 * and `processPages` (every frame through the pipeline into the project's page images).
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describeError, ERROR_CODES, isQuireError, QuireError } from '../errors.js';
import { inputType, openImages, openInput, openSlim, type FrameKind, type OpenedInput, type SourceFrame, type TextLayerPage } from '../ingest/index.js';
import {
  addPageSizes,
  createFramePool,
  dropPageGuesses,
  type ExtraStep,
  type ExtraStepRunner,
  type FinishedPage,
  type FramePage,
  type FrameTask,
  matchPageSizes,
  type PageSizeSamples,
} from '../pipeline/index.js';
import {
  createProjectFolder,
  loadManifest,
  newManifest,
  removeProjectFolder,
  safeFileName,
  saveManifest,
  writeOcrPage,
  type HandSetPages,
  type PresetName,
  type ProjectFolder,
  type ProjectManifest,
} from '../project/index.js';
import type { ProgressEvent } from './progress.js';

export interface OpenOptions {
  /**
   * How the user knows the input (an upload's original file name): used in messages instead of the path, and for
   * the document name when the input has none of its own. Default: the path.
   */
  label?: string;
  /** Document name for output files; default from the input. */
  name?: string;
  /**
   * Keep the project folder here instead of a temporary one removed at `close()`; a function gets the document
   * name first (a batch's project is named after it).
   */
  projectDir?: string | ((name: string) => string);
  /** Keep PDF pages that already have a text layer as they are (`quire ocr`); `processPages` then skips them. */
  keepTextPages?: boolean;
  /** The input, already opened (by the check before work): taken over instead of opened again, closed at `close()`. */
  opened?: OpenedInput;
}

/** A document opened for conversion: its project folder and manifest, and the input its pages come from. */
export interface OpenedDocument {
  name: string;
  /** How the user knows the input (its path, an upload's name): named in the failure of one of its bundle's images. */
  label?: string;
  /** The project folder (`project.json`, `pages/`, `ocr/`). */
  dir: string;
  manifest: ProjectManifest;
  /** The input frames still to be processed; null for a project opened again (its pages are made). */
  source: OpenedInput | null;
  /** Frames of the input (for a project opened again: the distinct frames its pages came from). */
  frames: number;
  /** True when the project folder is removed at `close()`. */
  transient: boolean;
  /** The project file of each source PDF whose text pages are kept as they are (`keepTextPages`), by input path. */
  keptPdfs: ReadonlyMap<string, string>;
  /** Release the input and remove a temporary project folder. */
  close(): Promise<void>;
}

/** The name of the source PDF in a project that keeps pages of it (the next ones, if ever, `source-2.pdf` …). */
const SOURCE_PDF = 'source.pdf';

/**
 * Open an input — a scan bundle, a PDF, several images taken together, a slim project (`.quire`) or a kept project
 * folder — as a project. A new input gets an empty project (pages come from `processPages`); a project opened again
 * keeps its pages (a slim one is unpacked into a temporary folder, a folder is used in place).
 */
export async function openDocument(input: string | string[], options: OpenOptions = {}): Promise<OpenedDocument> {
  const inputs = Array.isArray(input) ? input : [input];
  if (inputs.length === 0) throw new QuireError(ERROR_CODES.USAGE, 'No input was given.');
  if (inputs.length === 1 && inputType(inputs[0]) === 'project') return reopenProject(inputs[0], options);

  const opened = options.opened ?? (await openInputs(inputs, options.label));
  let folder: ProjectFolder | undefined;
  try {
    // An input named only by its extension (an upload called `.pdf`) still gives the document a name.
    const name = options.name ?? (opened.name.trim() || 'document');
    const keep = typeof options.projectDir === 'function' ? options.projectDir(name) : options.projectDir;
    folder = await createProjectFolder(keep);
    const dir = folder.dir;
    const manifest = newManifest(
      name,
      inputs.map((p) => basename(p)),
    );
    const kept = options.keepTextPages ? await copySourcePdfs(opened, dir) : new Map<string, string>();
    const made = folder;
    return {
      name,
      label: inputs.length === 1 && options.label ? options.label : inputs.join(' '),
      dir,
      manifest,
      source: opened,
      frames: opened.frames.length,
      transient: folder.transient,
      keptPdfs: kept,
      close: async () => {
        await opened.close();
        await removeProjectFolder(made);
      },
    };
  } catch (e) {
    await opened.close();
    if (folder) await removeProjectFolder(folder);
    throw e;
  }
}

async function reopenProject(path: string, options: OpenOptions): Promise<OpenedDocument> {
  const isFolder = (await stat(path)).isDirectory();
  // A kept project folder is used in place; a slim project is unpacked first.
  const keep = isFolder
    ? undefined
    : typeof options.projectDir === 'function'
      ? options.projectDir(basename(path).replace(/\.quire$/i, ''))
      : options.projectDir;
  const folder = await createProjectFolder(keep);
  try {
    const { dir, manifest } = isFolder
      ? { dir: path, manifest: await loadManifest(path) }
      : await openSlim(path, join(folder.dir, 'project'), options.label ?? path);
    if (options.name) manifest.name = options.name;
    return {
      name: manifest.name,
      dir,
      manifest,
      source: null,
      frames: new Set(manifest.pages.map((p) => `${p.source.input}#${p.source.frame}`)).size,
      transient: folder.transient,
      keptPdfs: new Map(),
      close: () => removeProjectFolder(folder),
    };
  } catch (e) {
    await removeProjectFolder(folder);
    throw e;
  }
}

/** Open the input(s) of one document: one bundle, PDF or image, or several images taken together. */
export async function openInputs(inputs: string[], label: string | undefined): Promise<OpenedInput> {
  const labelOf = (p: string): string => (inputs.length === 1 && label ? label : p);
  for (const p of inputs) {
    try {
      await stat(p);
    } catch {
      throw new QuireError(ERROR_CODES.INPUT_NOT_FOUND, `${labelOf(p)} does not exist.`);
    }
  }
  if (inputs.length === 1) return openInput(inputs[0], label);
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

export interface ProcessOptions {
  /** Force a preset; by default each frame gets the one that fits its kind. */
  pipeline?: PresetName;
  /** `--dpi N` (`force: false`) or `--dpi force:N`. */
  dpi?: { value: number; force: boolean };
  /** Pipeline threads; default the number of cores. */
  workers?: number;
  /** Margin kept around the printed area, in mm; default `DEFAULT_MARGIN_MM`. */
  marginMm?: number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /** Handed each frame's pages as soon as they and every frame before them are made, in document order (OCR reading them while the pipeline goes on). */
  onPages?: (pages: readonly FramePage[]) => void;
  /** Awaited once every frame is done, before the pages get their final size (the OCR of them finishing). */
  settle?: () => Promise<void>;
  /**
   * Make the grey page OCR reads beside each bitonal page (default true). False where nothing will read it — no OCR
   * in this run, no project kept for a later one — saves about a quarter of a camera page's CPU.
   */
  reading?: boolean;
  /**
   * Processor plugin steps added to the preset's (`--steps`, see `openProcessorSteps`), each after its built-in step.
   * A step that fails on a page leaves that page as it was and says so in a `warning` event.
   */
  processors?: { steps: ExtraStep[]; run: ExtraStepRunner };
  /**
   * Pages set by hand, by frame index (`--page-box`, the web app's page view), in the frame's pixels: they replace
   * that frame's automatic split and crop. A frame the input does not have is refused before any work.
   */
  pageBoxes?: ReadonlyMap<number, HandSetPages>;
  /** Make only these frames' pages (by frame index): a frame set by hand, made again. */
  frames?: ReadonlySet<number>;
}

const DEFAULT_PRESET: Record<FrameKind, PresetName> = { camera: 'book', scan: 'sheet', digital: 'flat' };

/** The margin kept around the printed area when none is asked (`--margin-mm`), in mm. */
export const DEFAULT_MARGIN_MM = 4;

/**
 * Make the document's pages: every frame through the pipeline (pages with a text layer kept as they are when the
 * document was opened with `keepTextPages`), recorded in the manifest and saved. Returns the wall milliseconds and
 * the summed CPU milliseconds of each pipeline step.
 */
export async function processPages(doc: OpenedDocument, options: ProcessOptions = {}): Promise<{ ms: number; steps: Record<string, number> }> {
  if (!doc.source) throw new QuireError(ERROR_CODES.USAGE, `The pages of ${doc.name} are already made; open its input again to make them anew.`);
  checkFramesExist(doc.source, options, doc.label ?? doc.name);
  const t0 = performance.now();
  options.onProgress?.({ type: 'start', name: doc.name, frames: options.frames?.size ?? doc.frames });
  const pool = createFramePool(options.workers, options.processors?.run);
  // Stopping means stopping now: the frames in the workers are dropped rather than finished.
  const stop = (): void => void pool.close();
  options.signal?.addEventListener('abort', stop, { once: true });
  let made = false;
  try {
    const { pages, steps, finished } = await runFrames(doc.source, pool, doc.dir, options, doc.keptPdfs, doc.label);
    await options.settle?.();
    const t1 = performance.now();
    // A frame made again alone keeps its own page size (the others' are not in this run); its pages are encoded.
    await matchPageSizes(doc.dir, pages, { place: !options.frames, finished });
    // The threads' share (pages encoded on their guessed canvas) and this pass after the last frame.
    steps['page-size'] = (steps['page-size'] ?? 0) + performance.now() - t1;
    doc.manifest.pages = pages.map((p, i) => ({ index: i + 1, ...p }));
    await saveManifest(doc.dir, doc.manifest);
    made = true;
    return { ms: performance.now() - t0, steps };
  } catch (e) {
    if (options.signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.', describeError(e));
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await pool.close();
    // The threads' pages on a guessed canvas that no page-size pass took, once no thread writes any more.
    if (!made) await dropPageGuesses(doc.dir);
  }
}

/** Refuse pages set by hand (or frames asked for) that name a frame the input does not have. */
function checkFramesExist(source: OpenedInput, options: ProcessOptions, label: string): void {
  const known = new Set(source.frames.map((f) => f.index));
  for (const index of [...(options.pageBoxes?.keys() ?? []), ...(options.frames ?? [])]) {
    if (!known.has(index))
      throw new QuireError(ERROR_CODES.USAGE, `There is no frame ${index} in ${label}: it has ${known.size} frame${known.size === 1 ? '' : 's'}.`);
  }
}

/** A page kept from its PDF: no pipeline and no OCR, its text layer read once into `ocr/<frame>-text.json`. */
async function keepTextPage(frame: SourceFrame, layer: TextLayerPage, file: string, projectDir: string): Promise<FramePage> {
  const ocr = `ocr/${String(frame.index).padStart(4, '0')}-text.json`;
  await mkdir(join(projectDir, 'ocr'), { recursive: true });
  await writeOcrPage(projectDir, ocr, await layer.textContent());
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

/** Stream frames through the pool: one frame loaded ahead of the threads, never more. Pages with a text layer in `kept` skip it. */
async function runFrames(
  opened: OpenedInput,
  pool: ReturnType<typeof createFramePool>,
  projectDir: string,
  options: ProcessOptions,
  kept: ReadonlyMap<string, string>,
  label: string | undefined,
): Promise<{ pages: FramePage[]; steps: Record<string, number>; finished: Map<FramePage, FinishedPage> }> {
  const frames = options.frames ? opened.frames.filter((f) => options.frames?.has(f.index)) : opened.frames;
  const total = frames.length;
  const results: FramePage[][] = new Array(total);
  // The sizes of the pages made so far, for the threads to guess each page's canvas from (a frame made again alone
  // keeps its size: nothing to guess). Which pages are done first varies with the load; `matchPageSizes` keeps a
  // guess only where the whole document gives the same canvas, so the files never depend on it.
  const sizes: PageSizeSamples | undefined = options.frames ? undefined : {};
  const finished = new Map<FramePage, FinishedPage>();
  // Pages are handed on in document order, whichever thread finishes first: the language sample and the OCR that
  // follow them see the same first pages on a loaded machine as on an idle one.
  const handOn = inDocumentOrder<FramePage[]>((pages) => options.onPages?.(pages));
  const steps: Record<string, number> = {};
  let next = 0;
  let framesDone = 0;
  let pagesDone = 0;
  let failure: unknown;

  const lane = async (): Promise<void> => {
    while (next < total && failure === undefined) {
      if (options.signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
      const i = next++;
      const frame = frames[i];
      const handSet = options.pageBoxes?.get(frame.index);
      // A page whose box a person set is made from its pixels, even where its PDF has a text layer.
      const keptFile = !handSet && frame.textLayer && kept.get(frame.textLayer.pdf);
      if (frame.textLayer && keptFile) {
        results[i] = [await keepTextPage(frame, frame.textLayer, keptFile, projectDir)];
        handOn(i, results[i]);
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
        // A page set by hand on a frame kept flat by default (a PDF page) is made as a sheet: flat has no geometry.
        preset: options.pipeline ?? (handSet && DEFAULT_PRESET[frame.kind] === 'flat' ? 'sheet' : DEFAULT_PRESET[frame.kind]),
        ...(frame.dpi ? { knownDpi: frame.dpi } : {}),
        ...(options.dpi ? { dpiOption: options.dpi } : {}),
        marginMm: options.marginMm ?? DEFAULT_MARGIN_MM,
        projectDir,
        // Every page gets its page size, or at least its final G4 file, from `matchPageSizes` below.
        draft: true,
        ...(sizes ? { pageSizes: Object.fromEntries(Object.entries(sizes).map(([key, values]) => [key, values.slice()])) } : {}),
        // Nothing reads a page before its page size when there is no OCR during the run.
        ...(sizes && options.reading === false && !options.onPages ? { unreadUntilPlaced: true } : {}),
        ...(options.reading === false ? { reading: false } : {}),
        ...(options.processors && options.processors.steps.length > 0 ? { extraSteps: options.processors.steps } : {}),
        ...(handSet ? { handSet } : {}),
      };
      const result = await pool.run(task);
      results[i] = result.pages;
      if (sizes) addPageSizes(sizes, result.pages);
      result.finished?.forEach((done, p) => {
        if (done) finished.set(result.pages[p], done);
      });
      for (const message of result.warnings ?? []) options.onProgress?.({ type: 'warning', message });
      handOn(i, result.pages);
      for (const [step, ms] of Object.entries(result.timings)) steps[step] = (steps[step] ?? 0) + ms;
      framesDone++;
      pagesDone += result.pages.length;
      options.onProgress?.({ type: 'frame', framesDone, framesTotal: total, pagesDone, input: frame.input });
    }
  };
  // One lane more than the pool has threads: while every thread works, the next frame is already loaded (a PDF page
  // rendered by pdfjs here, on the main thread) and waits for the first thread free, instead of that thread waiting
  // for it. One frame ahead, never more, so memory stays flat.
  const lanes = Array.from({ length: Math.min(pool.size + 1, Math.max(1, total)) }, () =>
    lane().catch((e: unknown) => {
      failure ??= e;
    }),
  );
  await Promise.all(lanes);
  if (failure !== undefined) throw namingTheBundle(failure, opened, label);
  return { pages: results.flat(), steps, finished };
}

/**
 * `put(i, item)` in any order; `deliver` gets the items in the order of `i` (0, 1, 2, …), each as soon as every one
 * before it has come.
 */
export function inDocumentOrder<T>(deliver: (item: T) => void): (i: number, item: T) => void {
  const waiting = new Map<number, T>();
  let next = 0;
  return (i, item) => {
    waiting.set(i, item);
    for (let ready = waiting.get(next); ready !== undefined; ready = waiting.get(next)) {
      waiting.delete(next++);
      deliver(ready);
    }
  };
}

/**
 * A bundle's frames are known by their file inside it (`images/0003.jpg`): a failure of one names the bundle too, as
 * the checks before the conversion do ("book.aglbundle: images/0003.jpg is not an image Quire can read.").
 */
function namingTheBundle(e: unknown, opened: OpenedInput, label: string | undefined): unknown {
  if (opened.kind !== 'bundle' || !label || !isQuireError(e) || e.code === ERROR_CODES.CANCELLED || e.message.includes(label)) return e;
  return new QuireError(e.code, `${label}: ${e.message}`, e.detail);
}

/** `<outDir>/<name>-project`, or `-project-2`, … when taken: a batch's project never lands on another's. */
export function freeProjectDir(outDir: string, name: string): string {
  const base = join(outDir, `${safeFileName(name)}-project`);
  for (let n = 1; ; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    if (!existsSync(dir)) return dir;
  }
}
