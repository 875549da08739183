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
import { freeProjectDir, openDocument, openInputs, type OpenedDocument } from './document.js';
import { assertOcrReady, ocrSpecFor } from './recognize.js';
import { cleanedPageBytes, outputBytes, workingBytes, type DocumentSize } from './space.js';

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

/** What the check opened of a document, for `convert` to take over rather than open again. */
export type OpenedSource = { kind: 'input'; input: OpenedInput } | { kind: 'project'; document: OpenedDocument };

/**
 * One document of a run, checked, and the plan `convert` follows for it: what to write and where, which OCR reads
 * it and whether it will, where its project folder goes. Nothing downstream works these out again.
 */
export interface CheckedDocument {
  /** The input paths it is made from (several images make one document). */
  inputs: string[];
  name: string;
  /** Its outputs are `<fileStem><extension>`: distinct within the run and short enough for the output folder. */
  fileStem: string;
  /** Set when the stem is not the document's own: another document of the run has that name, or it was shortened. */
  renamed?: 'taken' | 'shortened';
  frames: number;
  /** An estimate of the bytes its outputs and its working folder take. */
  expected: Expected;
  /** The exports to write, into `outDir`. */
  requests: ExportRequest[];
  outDir: string;
  /** The OCR the run reads text with: asked for, or `auto` when an export is made from text; absent, no OCR. */
  ocr?: OcrSpec;
  /** Some page of this document goes through the OCR engine (for a project opened again: asked, or lacking text an export needs). */
  readsText: boolean;
  /** Pages of a PDF with a text layer are kept as they are (`quire ocr`), unless `--force-ocr`. */
  keepTextPages: boolean;
  /** Where the project folder is kept (`--keep-project`, or beside the outputs for an OCR batch); absent, a temporary one. */
  projectDir?: string | ((name: string) => string);
  /** The project is kept only because an OCR batch needs it later: removed if the batch is never submitted. */
  keptForBatch: boolean;
  /**
   * The input or project, still open, for `convert` to take instead of opening it again (only the first document of
   * a run keeps it open; a project only when it goes to a temporary folder).
   */
  takeOpened(): OpenedSource | undefined;
}

export interface CheckedRun {
  outDir: string;
  requests: ExportRequest[];
  ocr?: OcrSpec;
  documents: CheckedDocument[];
  /** Release what the check left open; remove the output folder if the check made it and it is still empty. */
  close(): Promise<void>;
}

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
  const outDir = resolve(options.outDir ?? '.');
  // A batch is finished by a later process, which needs the project: it is kept, beside the outputs unless told where.
  const keptForBatch = !options.keepProject && ocr?.mode === 'batch';
  const projectDir = keptForBatch ? (name: string) => freeProjectDir(outDir, name) : options.keepProject;

  const inspected: Inspected[] = [];
  /** The output folder, when the check made it. */
  let created: string | undefined;
  try {
    for (const [i, doc] of documents.entries()) {
      const inputs = Array.isArray(doc) ? doc : [doc];
      try {
        inspected.push(await inspect(inputs, options, ocr, keepTextPages, i === 0, projectDir === undefined));
      } catch (e) {
        if (typeof e === 'object' && e !== null) refused.set(e, inputs);
        throw e;
      }
    }
    await checkOcr(ocr, needsText, inspected);
    if (
      !(await stat(outDir).then(
        () => true,
        () => false,
      ))
    )
      created = outDir;
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
        requests,
        outDir,
        ...(ocr ? { ocr } : {}),
        readsText: ocr !== undefined && doc.needsOcr,
        keepTextPages,
        ...(projectDir ? { projectDir } : {}),
        keptForBatch,
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
  /** What the free-space estimate needs to know of it. */
  size: DocumentSize;
  expected: Expected;
  opened?: OpenedSource;
}

async function closeAll(docs: Inspected[]): Promise<void> {
  await Promise.all(docs.map((d) => (d.opened?.kind === 'project' ? d.opened.document.close() : d.opened?.input.close())));
  for (const d of docs) d.opened = undefined;
}

/** The inputs of the document each error thrown by `checkConversions` was about, when it was about one. */
const refused = new WeakMap<object, string[]>();

/** The inputs (one, or images given together) of the document `checkConversions` refused with `error`; undefined when the error was about the whole run. */
export function refusedInputs(error: unknown): string[] | undefined {
  return typeof error === 'object' && error !== null ? refused.get(error) : undefined;
}

/**
 * Open one document's input and read what the later checks need; with `keepOpen`, the input stays open for the
 * conversion, and so does a project opened again when it goes to a temporary folder (`temporary`: no folder to keep it in).
 */
async function inspect(
  inputs: string[],
  options: CheckOptions,
  ocr: OcrSpec | undefined,
  keepTextPages: boolean,
  keepOpen: boolean,
  temporary: boolean,
): Promise<Inspected> {
  if (inputs.length === 1 && inputType(inputs[0]) === 'project') {
    const doc = await openDocument(inputs[0], { ...(options.name ? { name: options.name } : {}), ...(options.label ? { label: options.label } : {}) });
    let kept = false;
    try {
      if (doc.manifest.ocrBatch && options.ocr === undefined && ocr) {
        throw new QuireError(ERROR_CODES.USAGE, `This project's OCR batch is not finished yet; finish it with quire run ${doc.dir} --check-ocr.`);
      }
      if (options.forceOcr && doc.manifest.pages.some((p) => p.kind === 'pdf')) {
        throw new QuireError(ERROR_CODES.USAGE, 'This project keeps pages of its PDF as they are, so --force-ocr needs the PDF itself as input.');
      }
      const pages = doc.manifest.pages.filter((p) => !p.hidden);
      const lacking = pages.some((p) => p.kind !== 'pdf' && !p.ocr);
      const needsOcr = pages.some((p) => p.kind !== 'pdf') && (options.ocr !== undefined || lacking);
      const text = !lacking || (needsOcr && ocr !== undefined && ocr.engine !== 'none');
      const size: DocumentSize = { pages: pages.length, imageBytes: cleanedPageBytes(pages.length), cleaned: true, text, reading: false, keptSource: 0 };
      kept = keepOpen && temporary;
      return {
        inputs,
        name: doc.name,
        frames: doc.frames,
        // A project is recognised again only when asked, or when it lacks text an export needs.
        needsOcr,
        size,
        expected: { outputs: 0, working: workingBytes(size) },
        ...(kept ? { opened: { kind: 'project', document: doc } } : {}),
      };
    } finally {
      if (!kept) await doc.close();
    }
  }
  const opened = await openInputs(inputs, options.label);
  try {
    const name = options.name ?? (opened.name.trim() || 'document');
    const inputBytes = await sizeOf(inputs);
    const flat = options.pipeline === 'flat' || (options.pipeline === undefined && opened.kind === 'pdf');
    const pagesPerFrame = options.pipeline === 'book' || (options.pipeline === undefined && opened.kind === 'bundle') ? 2 : 1;
    const pages = opened.frames.length * pagesPerFrame;
    const needsOcr = opened.frames.some((f) => !(keepTextPages && f.textLayer));
    const text = (ocr !== undefined && ocr.engine !== 'none' && needsOcr) || (keepTextPages && opened.frames.some((f) => f.textLayer));
    // Pages kept as they are cost what they cost in the input; cleaned pages are small bitonal images. Grey pages
    // for OCR are made when text is read now, or may be later (a kept project).
    const size: DocumentSize = {
      pages,
      imageBytes: Math.max(cleanedPageBytes(pages), flat ? inputBytes : 0),
      cleaned: !flat,
      text,
      reading: text || !temporary,
      keptSource: keepTextPages ? inputBytes : 0,
    };
    return {
      inputs,
      name,
      frames: opened.frames.length,
      needsOcr,
      size,
      expected: { outputs: 0, working: 0 },
      ...(keepOpen ? { opened: { kind: 'input', input: opened } } : {}),
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
    throw new QuireError(
      ERROR_CODES.USAGE,
      'Markdown, EPUB and textpack exports are made from the text, and --ocr none reads none; choose an OCR engine (e.g. --ocr auto) or export pdf only.',
    );
  }
  // An engine that cannot run (no API key, no language data) is said now, not after the pipeline's minutes.
  await assertOcrReady(ocr);
}

/**
 * The output folder made ready and its names settled: distinct within the run, shortened when the file system
 * takes shorter names, none standing on a folder; enough space for the outputs (and the working folder, where it
 * shares the device).
 */
async function checkOutputs(
  outDir: string,
  requests: ExportRequest[],
  docs: Inspected[],
  options: CheckOptions,
): Promise<Array<{ stem: string; renamed?: 'taken' | 'shortened' }>> {
  const extensions = requests.map((r) => exportRegistry.get(r.format)?.extension ?? '');
  const wanted = docs.map((d) => options.fileStem ?? safeFileName(d.name));
  let stems = distinctStems(wanted, extensions);
  const longestExt = Math.max(0, ...extensions.map((e) => Buffer.byteLength(e)));
  const longestName = Math.max(...stems.map((s) => Buffer.byteLength(s) + longestExt));

  for (const d of docs) {
    // A slim export keeps the pages readable later, so their grey pages are made even when no text is read now.
    const size = requests.some((r) => r.format === 'slim') ? { ...d.size, reading: true } : d.size;
    d.expected = { outputs: outputBytes(size, requests), working: workingBytes(size) };
  }
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
    throw new QuireError(
      ERROR_CODES.OUTPUT,
      `Not enough space for the working folder in ${dir}: ${formatBytes(free)} free, about ${formatBytes(needed)} needed.`,
    );
  }
}
