import { mkdir, rm, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { ERROR_CODES, QuireError } from './errors.js';
import { openSlim, parseExportList, pdfPagesFromProject, writePdf, writeSlim, type ExportRequest } from './export/index.js';
import { inputType, openImages, openInput, type FrameKind, type OpenedInput } from './ingest/index.js';
import { createFramePool, type FramePool } from './pipeline/pool.js';
import type { FramePage, FrameTask } from './pipeline/process.js';
import type { PresetName } from './pipeline/types.js';
import {
  createProjectFolder,
  loadManifest,
  newManifest,
  removeProjectFolder,
  saveManifest,
  type ProjectFolder,
  type ProjectManifest,
} from './project/index.js';

export type ProgressEvent =
  | { type: 'start'; name: string; frames: number }
  | { type: 'frame'; framesDone: number; framesTotal: number; pagesDone: number; input: string }
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
  /** Document name for output files; default from the input. */
  name?: string;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export interface ConvertResult {
  name: string;
  outputs: Array<{ format: string; path: string; bytes: number }>;
  frames: number;
  pages: number;
  /** Set when the working folder was kept. */
  projectDir?: string;
  /** Milliseconds: wall time per phase and summed CPU time per pipeline step. */
  timings: { total: number; pipeline: number; export: number; steps: Record<string, number> };
}

const DEFAULT_PRESET: Record<FrameKind, PresetName> = { camera: 'book', scan: 'sheet', digital: 'flat' };

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

  if (inputs.length === 1 && inputType(inputs[0]) === 'project') {
    return reexportProject(inputs[0], requests, outDir, options, t0);
  }

  const opened = await openDocument(inputs);
  let folder: ProjectFolder | undefined;
  let pool: FramePool | undefined;
  try {
    folder = await createProjectFolder(options.keepProject);
    const name = options.name ?? opened.name;
    const manifest = newManifest(name, inputs.map((p) => basename(p)));
    options.onProgress?.({ type: 'start', name, frames: opened.frames.length });
    pool = createFramePool(options.workers);
    const tPipe = performance.now();
    const { pages, steps } = await runFrames(opened, pool, folder.dir, options);
    const pipeline = performance.now() - tPipe;
    manifest.pages = pages.map((p, i) => ({ index: i + 1, ...p }));
    await saveManifest(folder.dir, manifest);

    const tExport = performance.now();
    const outputs = await writeExports(folder.dir, manifest, requests, outDir, options);
    options.onProgress?.({ type: 'done', pages: manifest.pages.length });
    return {
      name,
      outputs,
      frames: opened.frames.length,
      pages: manifest.pages.length,
      ...(folder.transient ? {} : { projectDir: folder.dir }),
      timings: { total: performance.now() - t0, pipeline, export: performance.now() - tExport, steps },
    };
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

/** Stream frames through the pool: load one ahead of each thread, never more. */
async function runFrames(
  opened: OpenedInput,
  pool: FramePool,
  projectDir: string,
  options: ConvertOptions,
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

/** Write every requested export; if one fails, remove the ones already written. */
async function writeExports(
  projectDir: string,
  manifest: ProjectManifest,
  requests: ExportRequest[],
  outDir: string,
  options: ConvertOptions,
): Promise<ConvertResult['outputs']> {
  await mkdir(outDir, { recursive: true });
  const stem = join(outDir, safeFileName(manifest.name));
  const outputs: ConvertResult['outputs'] = [];
  try {
    for (const req of requests) {
      if (req.format === 'pdf') {
        const path = `${stem}.pdf`;
        const pages = pdfPagesFromProject(projectDir, manifest);
        const profile = (req.options.profile as 'auto' | 'g4' | 'jpeg' | undefined) ?? 'auto';
        const { bytes } = await writePdf(pages, path, { profile, title: manifest.name });
        outputs.push({ format: 'pdf', path, bytes });
      } else if (req.format === 'slim') {
        const path = `${stem}.quire`;
        const { bytes } = await writeSlim(projectDir, manifest, path);
        outputs.push({ format: 'slim', path, bytes });
      } else {
        throw new QuireError(ERROR_CODES.UNKNOWN_FORMAT, `Export format "${req.format}" is not available yet.`);
      }
      options.onProgress?.({ type: 'export', format: req.format, path: outputs[outputs.length - 1].path });
    }
  } catch (e) {
    await Promise.all(outputs.map((o) => rm(o.path, { force: true })));
    throw e;
  }
  return outputs;
}

/** Reopen a slim project and write its exports again, without reprocessing a page. */
async function reexportProject(path: string, requests: ExportRequest[], outDir: string, options: ConvertOptions, t0: number): Promise<ConvertResult> {
  const folder = await createProjectFolder(options.keepProject);
  try {
    // A kept project folder is exported in place; a slim project is unpacked first.
    const { dir, manifest } = (await stat(path)).isDirectory()
      ? { dir: path, manifest: await loadManifest(path) }
      : await openSlim(path, join(folder.dir, 'project'));
    if (options.name) manifest.name = options.name;
    const tExport = performance.now();
    const outputs = await writeExports(dir, manifest, requests, outDir, options);
    return {
      name: manifest.name,
      outputs,
      frames: new Set(manifest.pages.map((p) => `${p.source.input}#${p.source.frame}`)).size,
      pages: manifest.pages.length,
      ...(folder.transient ? {} : { projectDir: dir }),
      timings: { total: performance.now() - t0, pipeline: 0, export: performance.now() - tExport, steps: {} },
    };
  } finally {
    await removeProjectFolder(folder);
  }
}

/** A document name made safe as a file name on every OS, keeping its letters (accents included). */
export function safeFileName(name: string): string {
  const cleaned = name
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .slice(0, 150);
  return cleaned || 'document';
}
