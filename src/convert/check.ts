/**
 * Check before work: everything that can be refused is refused before the first page of the first document is
 * processed — every input opened and validated, the OCR engine (and its key) ready, an export that needs text not
 * asked of `--ocr none`, the output folder created and written to, names within its file system's limit and
 * distinct within the run, a folder where an output goes, and the free space against an estimate of the need.
 */
import { rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { ERROR_CODES, QuireError } from '../errors.js';
import { exportRegistry, parseExportList, type ExportRequest } from '../export/index.js';
import { inputType, type OpenedInput } from '../ingest/index.js';
import type { OcrSpec } from '../ocr/index.js';
import {
  checkOutputFolder,
  distinctStems,
  fileSystemError,
  fitStem,
  freeBytes,
  removeStaleWorkFolders,
  safeFileName,
  type PresetName,
} from '../project/index.js';
import { formatBytes } from '../util/index.js';
import { openDocument, openInputs } from './document.js';
import { assertOcrReady, ocrSpecFor } from './recognize.js';

export interface CheckOptions {
  /** `+`-joined export list or parsed requests. Default `pdf`. */
  exports?: string | ExportRequest[];
  outDir?: string;
  /** One document only: its outputs' file stem, as given (the job server's `output`). */
  fileStem?: string;
  /** One document only: its name, instead of the input's. */
  name?: string;
  /** One document only: how the user knows the input. */
  label?: string;
  ocr?: string;
  ocrLang?: string;
  forceOcr?: boolean;
  keepTextPages?: boolean;
  pipeline?: PresetName;
  keepProject?: string;
}

/** One document of a run, checked. */
export interface CheckedDocument {
  /** The input paths it is made from (several images make one document). */
  inputs: string[];
  name: string;
  /** Its outputs are `<fileStem><extension>`: distinct within the run and short enough for the output folder. */
  fileStem: string;
  /** Set when the stem is not the document's own: another document of the run has that name, or it was shortened. */
  renamed?: 'taken' | 'shortened';
  frames: number;
  /** A rough lower bound of the bytes its outputs and its working folder take. */
  expected: Expected;
  /** The input, still open, for `convert` to take instead of opening it again (only the first document keeps it open). */
  takeOpened(): OpenedInput | undefined;
}

export interface CheckedRun {
  outDir: string;
  requests: ExportRequest[];
  ocr?: OcrSpec;
  documents: CheckedDocument[];
  /** Release what the check left open; remove the output folder if the check made it and it is still empty. */
  close(): Promise<void>;
}

/** A clean 300-dpi text page in CCITT G4 is rarely under this: the estimate is meant to be low, never alarmist. */
const PAGE_BYTES = 20 * 1024;
/** Markdown and OCR results per page. */
const TEXT_BYTES = 1024;

/**
 * Check a run of documents (each one input, or several images) before any work; throws the first problem found,
 * as one sentence. Working folders that killed runs left behind are removed first.
 */
export async function checkConversions(documents: ReadonlyArray<string | string[]>, options: CheckOptions = {}): Promise<CheckedRun> {
  await removeStaleWorkFolders();
  if (documents.length === 0) throw new QuireError(ERROR_CODES.USAGE, 'No input was given.');
  if (documents.length > 1 && (options.fileStem || options.name || options.keepProject)) {
    const what = options.keepProject ? '--keep-project keeps one project' : 'a file name is for one document';
    throw new QuireError(ERROR_CODES.USAGE, `${what}, so give it one document at a time.`);
  }
  const requests = typeof options.exports === 'string' || options.exports === undefined ? parseExportList(options.exports ?? 'pdf') : options.exports;
  const needsText = requests.some((r) => exportRegistry.get(r.format)?.needsOcr);
  const ocr = ocrSpecFor(options.ocr, options.ocrLang, needsText || options.forceOcr === true);
  const keepTextPages = options.keepTextPages === true && options.forceOcr !== true;

  const inspected: Inspected[] = [];
  /** The output folder, when the check made it. */
  let created: string | undefined;
  try {
    for (const [i, doc] of documents.entries()) inspected.push(await inspect(Array.isArray(doc) ? doc : [doc], options, keepTextPages, i === 0));
    const outDir = resolve(options.outDir ?? '.');
    await checkOcr(ocr, needsText, inspected);
    if (!(await stat(outDir).then(() => true, () => false))) created = outDir;
    const stems = await checkOutputs(outDir, requests, inspected, options);
    return {
      outDir,
      requests,
      ...(ocr ? { ocr } : {}),
      documents: inspected.map((doc, i) => ({
        inputs: doc.inputs,
        name: doc.name,
        fileStem: stems[i].stem,
        ...(stems[i].renamed ? { renamed: stems[i].renamed } : {}),
        frames: doc.frames,
        expected: doc.expected,
        takeOpened: () => {
          const taken = doc.opened;
          doc.opened = undefined;
          return taken;
        },
      })),
      close: async () => {
        await closeAll(inspected);
        // An output folder this run made and nothing was written to is not left behind.
        if (created) await rmdir(created).catch(() => undefined);
      },
    };
  } catch (e) {
    await closeAll(inspected);
    if (created) await rmdir(created).catch(() => undefined);
    throw e;
  }
}

interface Expected {
  /** The outputs asked for. */
  outputs: number;
  /** The working folder (page images, OCR results, a kept source PDF). */
  working: number;
}

interface Inspected {
  inputs: string[];
  name: string;
  frames: number;
  /** Some page will go through OCR if OCR is on. */
  needsOcr: boolean;
  /** Bytes of the page images in a PDF or a slim project, and of the text of all pages. */
  size: { images: number; text: number };
  expected: Expected;
  opened?: OpenedInput;
}

async function closeAll(docs: Inspected[]): Promise<void> {
  await Promise.all(docs.map((d) => d.opened?.close()));
  for (const d of docs) d.opened = undefined;
}

/** Open one document's input and read what the later checks need; the first document's input stays open. */
async function inspect(inputs: string[], options: CheckOptions, keepTextPages: boolean, keepOpen: boolean): Promise<Inspected> {
  if (inputs.length === 1 && inputType(inputs[0]) === 'project') {
    const doc = await openDocument(inputs[0], options.name ? { name: options.name } : {});
    try {
      const pages = doc.manifest.pages.filter((p) => !p.hidden);
      const lacking = pages.some((p) => p.kind !== 'pdf' && !p.ocr);
      const size = { images: pages.length * PAGE_BYTES, text: pages.length * TEXT_BYTES };
      return {
        inputs,
        name: doc.name,
        frames: doc.frames,
        // A project is recognised again only when asked, or when it lacks text an export needs.
        needsOcr: pages.some((p) => p.kind !== 'pdf') && (options.ocr !== undefined || lacking),
        size,
        expected: { outputs: 0, working: size.images + size.text },
      };
    } finally {
      await doc.close();
    }
  }
  const opened = await openInputs(inputs, options.label);
  try {
    const name = options.name ?? (opened.name.trim() || 'document');
    const inputBytes = await sizeOf(inputs);
    const flat = options.pipeline === 'flat' || (options.pipeline === undefined && opened.kind === 'pdf');
    const pagesPerFrame = options.pipeline === 'book' || (options.pipeline === undefined && opened.kind === 'bundle') ? 2 : 1;
    const pages = opened.frames.length * pagesPerFrame;
    // Pages kept as they are cost what they cost in the input; cleaned pages are small bitonal images.
    const size = { images: Math.max(pages * PAGE_BYTES, flat ? inputBytes : 0), text: pages * TEXT_BYTES };
    return {
      inputs,
      name,
      frames: opened.frames.length,
      needsOcr: opened.frames.some((f) => !(keepTextPages && f.textLayer)),
      size,
      expected: { outputs: 0, working: size.images + size.text + (keepTextPages ? inputBytes : 0) },
      ...(keepOpen ? { opened } : {}),
    };
  } finally {
    if (!keepOpen) await opened.close();
  }
}

async function sizeOf(paths: string[]): Promise<number> {
  let total = 0;
  for (const p of paths) {
    const info = await stat(p).catch(() => undefined);
    if (info?.isFile()) total += info.size;
  }
  return total;
}

/** The OCR engine must be able to run when some page will be read, and `--ocr none` cannot make the text an export needs. */
async function checkOcr(ocr: OcrSpec | undefined, needsText: boolean, docs: Inspected[]): Promise<void> {
  if (!ocr || !docs.some((d) => d.needsOcr)) return;
  if (ocr.engine === 'none' && needsText) {
    throw new QuireError(ERROR_CODES.USAGE, 'Markdown and textpack exports are made from the text, and --ocr none reads none; choose an OCR engine (e.g. --ocr auto) or export pdf only.');
  }
  // An engine that cannot run (no API key, no language data) is said now, not after the pipeline's minutes.
  await assertOcrReady(ocr);
}

/**
 * The output folder made ready and its names settled: distinct within the run, shortened when the file system
 * takes shorter names, none standing on a folder; enough space for the outputs (and the working folder, where it
 * shares the device).
 */
async function checkOutputs(outDir: string, requests: ExportRequest[], docs: Inspected[], options: CheckOptions): Promise<Array<{ stem: string; renamed?: 'taken' | 'shortened' }>> {
  const extensions = requests.map((r) => exportRegistry.get(r.format)?.extension ?? '');
  const wanted = docs.map((d) => options.fileStem ?? safeFileName(d.name));
  let stems = distinctStems(wanted, extensions);
  const longestExt = Math.max(0, ...extensions.map((e) => Buffer.byteLength(e)));
  const longestName = Math.max(...stems.map((s) => Buffer.byteLength(s) + longestExt));

  // Markdown is text; every other export carries the page images (a textpack holds the PDF, a slim project the pages).
  for (const d of docs) d.expected.outputs = requests.reduce((n, r) => n + (r.format === 'md' ? d.size.text : d.size.images + d.size.text), 0);
  const outputs = docs.reduce((n, d) => n + d.expected.outputs, 0);
  const working = Math.max(...docs.map((d) => d.expected.working));
  const workDir = options.keepProject ? resolve(options.keepProject) : tmpdir();
  const together = await sameDevice(outDir, workDir);
  const folder = await checkOutputFolder(outDir, { longestName, needed: outputs + (together ? working : 0) });
  if (!together) await checkWorkingSpace(workDir, working);
  const maxBytes = Math.min(longestName, folder.maxNameBytes);
  if (maxBytes < longestName) stems = distinctStems(wanted, extensions, maxBytes);
  for (const stem of stems) {
    for (const ext of extensions) {
      const path = resolve(outDir, `${stem}${ext}`);
      if ((await stat(path).catch(() => undefined))?.isDirectory()) {
        throw await fileSystemError(Object.assign(new Error(`EISDIR: ${path}`), { code: 'EISDIR' }), path);
      }
    }
  }
  return stems.map((stem, i) => {
    if (stem === wanted[i]) return { stem };
    // The stem alone, cut to the limit: when that is what was written, the name was only shortened.
    const cut = fitStem(wanted[i], maxBytes - longestExt);
    return { stem, renamed: stem === cut ? 'shortened' : 'taken' };
  });
}

async function sameDevice(a: string, b: string): Promise<boolean> {
  const dev = async (p: string): Promise<number | undefined> => {
    for (let path = p; ; path = resolve(path, '..')) {
      const info = await stat(path).catch(() => undefined);
      if (info) return info.dev;
      if (resolve(path, '..') === path) return undefined;
    }
  };
  return (await dev(a)) === (await dev(b));
}

async function checkWorkingSpace(dir: string, needed: number): Promise<void> {
  const free = await freeBytes(dir);
  if (free !== undefined && free < needed) {
    throw new QuireError(ERROR_CODES.OUTPUT, `Not enough space for the working folder in ${dir}: ${formatBytes(free)} free, about ${formatBytes(needed)} needed.`);
  }
}
