/**
 * The `tesseract-cli` engine: the system's `tesseract` program (Debian's `tesseract-ocr`), one
 * process per page, each held to one thread. Native tesseract reads a page in about half the time
 * tesseract.js's WebAssembly takes, so `auto` prefers it where it is installed. It reads the same
 * `best_int` models as tesseract.js (the npm packages, unpacked once under the app data folder), not
 * Debian's `fast` ones, so choosing it never trades accuracy for speed; a language only the system
 * has is read with the system's model. Offline by construction.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_CODES, QuireError } from '../errors.js';
import { hocrPages, parseHocr } from './tesseract-cli-hocr.js';
import { parseOrientation, type PageOrientation } from './orientation.js';
import { listInstalledLanguages, MODEL_FOLDER, nativeDataFolder, ORIENTATION_DATA, type NativeDataFolder } from './tesseract-data.js';
import { createProcessQueue, runProgram, type ProcessOutcome } from './tesseract-cli-process.js';
import { preparePage, type PreparedPage, storedPage, type StoredPage } from './tesseract-page.js';
import type { OcrEngine, OcrInput } from './types.js';
import type { OcrPage } from '../project/index.js';

export interface TesseractCliEngineOptions {
  /** The program to run; default `tesseract` from the PATH. */
  binary?: string;
  /** Pages read at once, one process each; default: the number of cores. */
  workers?: number;
  /**
   * A tessdata folder to use as it is (`--tessdata-dir`), instead of the npm models unpacked under the app data
   * folder beside the program's own.
   */
  tessdataDir?: string;
  /** Where the npm models are unpacked; default `<app data>/tessdata/4.0.0_best_int`. */
  modelsDir?: string;
  /** How long one page may take before its process is ended, in ms. */
  timeoutMs?: number;
}

export interface TesseractCliEngine extends OcrEngine {
  /** Pages being read now (never more than `workers`). */
  running(): number;
  /** End every running tesseract process and refuse queued pages; the engine stays usable. */
  close(): Promise<void>;
}

type Availability = { ok: true } | { ok: false; reason: string };

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const PROBE_TIMEOUT_MS = 10_000;
const OLDEST_MAJOR = 4;
/** Fully automatic page segmentation without orientation detection (that needs the osd model). */
const PSM_AUTO = '3';
/** One uniform block of text: no layout analysis (a word cut out of its page, to read again). */
const PSM_BLOCK = '6';
/** Word images read by one process: its model loads once, each image is still read on its own. */
const WORDS_PER_PROCESS = 400;
/** Fewer words than this are not worth a second process: loading the model costs about as much as reading them. */
const MIN_WORDS_PER_PROCESS = 24;
/** `thresholding_method` 2 is Sauvola (local, for uneven light); it arrived in tesseract 5. */
const SAUVOLA_FROM_MAJOR = 5;

/** The major version from `tesseract --version` (5.x prints it on stdout, 4.x on stderr). */
export function parseTesseractVersion(output: string): { major: number; version: string } | undefined {
  const m = /tesseract\s+v?((\d+)(?:\.\d+)*)/i.exec(output);
  return m ? { major: Number(m[2]), version: m[1] } : undefined;
}

/** The folder `tesseract --list-langs` says it read (`List of available languages in "/usr/share/…/tessdata/" (3):`). */
export function parseLanguageFolder(output: string): string | undefined {
  return /List of available languages in "([^"]+)"/i.exec(output)?.[1];
}

/** The codes from `tesseract --list-langs`, without `osd` (orientation data, not a language). */
export function parseLanguageList(output: string): string[] {
  return output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^List of available languages/i.test(l) && l !== 'osd');
}

/**
 * The arguments for one page: PNG on stdin (or the page's own file), hOCR on stdout. `words`: instead, a file
 * listing images of words cut out onto clean paper (see `readWords`), each read as one block with a global
 * threshold, one hOCR page each.
 */
export function tesseractArgs(
  page: Pick<PreparedPage, 'dpi' | 'bitonal'> & { file?: string },
  languages: readonly string[],
  major: number,
  tessdataDir?: string,
  words?: string,
): string[] {
  const five = major >= SAUVOLA_FROM_MAJOR;
  const lines = words !== undefined;
  return [
    words ?? page.file ?? '-',
    'stdout',
    ...(tessdataDir ? ['--tessdata-dir', tessdataDir] : []),
    '-l',
    languages.join('+'),
    '--dpi',
    String(page.dpi),
    '--psm',
    lines ? PSM_BLOCK : PSM_AUTO,
    // The variable rather than the `hocr` config file: a --tessdata-dir of bare traineddata has no configs/ folder.
    '-c',
    'tessedit_create_hocr=1',
    // As the tesseract.js engine does: Otsu is enough for black-and-white pages, grey ones need a local threshold.
    // Not words cut out onto white paper: Sauvola's window, sized for a page, loses their faint strokes (measured:
    // no word of the benchmark's 8 px pages read right again with it, seven with Otsu).
    ...(!page.bitonal && five && !lines ? ['-c', 'thresholding_method=2'] : []),
    // Our pages are black on white: trying every line again as white on black only costs time.
    '-c',
    'tessedit_do_invert=0',
    // Each character's alternatives in the hOCR, for the correction step's dictionary check.
    ...(five ? ['-c', 'lstm_choice_mode=2'] : []),
  ];
}

/** The environment of every tesseract process: one thread each (with OpenMP's default, two pages on two cores run several times slower). */
function oneThread(): NodeJS.ProcessEnv {
  return { ...process.env, OMP_THREAD_LIMIT: '1' };
}

function cancelled(): QuireError {
  return new QuireError(ERROR_CODES.CANCELLED, 'OCR was cancelled.');
}

/** Every way a page's process can fail, in the user's words. */
function pageFailure(outcome: ProcessOutcome, file: string, timeoutMs: number): QuireError {
  switch (outcome.kind) {
    case 'cancelled':
      return cancelled();
    case 'not-started':
      return new QuireError(ERROR_CODES.INTERNAL, 'The tesseract program could not be started.', `${outcome.error.code ?? ''} ${outcome.error.message}`.trim());
    case 'timed-out':
      return new QuireError(
        ERROR_CODES.INTERNAL,
        `Tesseract took longer than ${Number((timeoutMs / 1000).toFixed(1))} s on the page image ${file}.`,
        outcome.stderr.trim(),
      );
    case 'exited': {
      const how = outcome.signal ? `killed by ${outcome.signal}` : `exit code ${outcome.code}`;
      return new QuireError(ERROR_CODES.INTERNAL, `Tesseract failed on the page image ${file}.`, `${how}: ${outcome.stderr.trim()}`);
    }
  }
}

/** What is installed: the program's version and the languages it reads (the system's, and the npm models'). */
interface TesseractInstallation {
  probeVersion(): Promise<{ major: number } | { reason: string }>;
  /** The system's languages and the folder they are in; synchronous because `OcrEngine.languages()` is. */
  system(): { folder?: string; codes: string[] };
  languages(): string[];
  npmLanguages(): Set<string>;
  available(): Promise<Availability>;
  /** The languages asked for, each once, when all are installed; a usage error naming what is missing otherwise. */
  checkLanguages(wanted: readonly string[]): string[];
}

function tesseractInstallation(binary: string, dataArgs: string[], models: NativeDataFolder | undefined, missing: string): TesseractInstallation {
  let systemLanguages: { folder?: string; codes: string[] } | undefined;
  let version: Promise<{ major: number } | { reason: string }> | undefined;
  let installed: string[] | undefined;

  const probeVersion = (): Promise<{ major: number } | { reason: string }> =>
    (version ??= runProgram(binary, ['--version'], { timeoutMs: PROBE_TIMEOUT_MS }).then((outcome) => {
      if (outcome.kind !== 'exited') return { reason: missing };
      const found = parseTesseractVersion(`${outcome.stdout}\n${outcome.stderr}`);
      if (outcome.code !== 0 || !found) return { reason: `The tesseract program ${binary} did not say which version it is.` };
      if (found.major < OLDEST_MAJOR) return { reason: `Tesseract ${found.version} is too old; version ${OLDEST_MAJOR} or later is needed.` };
      return { major: found.major };
    }));

  // Synchronous because `OcrEngine.languages()` is; asked once (a few ms), then cached.
  const system = (): { folder?: string; codes: string[] } => {
    if (systemLanguages) return systemLanguages;
    const listed = spawnSync(binary, [...dataArgs, '--list-langs'], { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
    const out = `${listed.stdout ?? ''}\n${listed.stderr ?? ''}`;
    systemLanguages = listed.error || listed.status !== 0 ? { codes: [] } : { folder: parseLanguageFolder(out), codes: parseLanguageList(`${listed.stdout}`) };
    return systemLanguages;
  };
  const languages = (): string[] => {
    if (installed) return installed;
    // The program must run at all for its languages to count; the npm ones then join the system's.
    const own = system();
    const runs = own.folder !== undefined || own.codes.length > 0;
    installed = models && runs ? [...new Set([...own.codes, ...listInstalledLanguages()])].sort() : own.codes;
    return installed;
  };
  const npmLanguages = (): Set<string> => new Set(models ? listInstalledLanguages() : []);

  const available = async (): Promise<Availability> => {
    const probed = await probeVersion();
    if ('reason' in probed) return { ok: false, reason: probed.reason };
    if (languages().length === 0) return { ok: false, reason: 'No tesseract language data is installed (apt-get install tesseract-ocr-eng).' };
    return { ok: true };
  };

  const checkLanguages = (wanted: readonly string[]): string[] => {
    const have = languages();
    const unique = [...new Set(wanted)];
    const absent = unique.filter((code) => !have.includes(code));
    if (unique.length === 0 || absent.length > 0) {
      const what = unique.length === 0 ? 'No OCR language was given' : `The OCR language ${absent.join(', ')} is not installed`;
      throw new QuireError(ERROR_CODES.USAGE, `${what}; installed languages: ${have.join(', ') || 'none'}.`);
    }
    return unique;
  };

  return { probeVersion, system, languages, npmLanguages, available, checkLanguages };
}

export function createTesseractCliEngine(options: TesseractCliEngineOptions = {}): TesseractCliEngine {
  const { binary = 'tesseract', workers = availableParallelism(), tessdataDir, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
  const queue = createProcessQueue(workers);
  const dataArgs = tessdataDir ? ['--tessdata-dir', tessdataDir] : [];
  /** The npm models, unpacked on first use; none when told to use one tessdata folder as it is. */
  const models: NativeDataFolder | undefined = tessdataDir ? undefined : nativeDataFolder(options.modelsDir);
  const missing = options.binary ? `The tesseract program ${binary} could not be run.` : "Debian's tesseract-ocr is not installed.";
  const { probeVersion, system, languages, npmLanguages, available, checkLanguages } = tesseractInstallation(binary, dataArgs, models, missing);
  /** Aborted by close(): ends every running process; replaced so the engine can be used again. */
  let closing = new AbortController();

  /** The page as tesseract reads it: its own file when it can, else a PNG made here, on its stdin. */
  const pageSource = async (page: OcrInput): Promise<StoredPage | PreparedPage> => (await storedPage(page)) ?? (await preparePage(page));

  const readPage = async (page: OcrInput, langs: string[], major: number, signal: AbortSignal): Promise<OcrPage> => {
    // Decoded only once a place is free: a long queue then holds file names, not pixels.
    const prepared = await pageSource(page);
    if (signal.aborted) throw cancelled();
    if (models) await models.ensure(langs, system().folder);
    const outcome = await runProgram(binary, tesseractArgs(prepared, langs, major, models?.path ?? tessdataDir), {
      input: 'png' in prepared ? prepared.png : undefined,
      env: oneThread(),
      timeoutMs,
      signal,
    });
    if (outcome.kind !== 'exited' || outcome.code !== 0) throw pageFailure(outcome, page.file, timeoutMs);
    const frame = { width: page.width, height: page.height, dpi: page.dpi, scaleX: prepared.scaleX, scaleY: prepared.scaleY };
    return parseHocr(outcome.stdout, frame, langs);
  };

  /** The program's version, the languages to read and the signal that ends the reading, once they are checked. */
  const prepareRead = async (wanted: string[], own: AbortSignal | undefined): Promise<{ major: number; langs: string[]; signal: AbortSignal }> => {
    const probed = await probeVersion();
    if ('reason' in probed) throw new QuireError(ERROR_CODES.USAGE, probed.reason);
    const langs = checkLanguages(wanted);
    return { major: probed.major, langs, signal: own ? AbortSignal.any([own, closing.signal]) : closing.signal };
  };

  /** Word images (PNG files on clean paper) read by one process, listed in a file: one page per image, in order. */
  const readWordImages = async (images: OcrInput[], langs: string[], major: number, signal: AbortSignal): Promise<OcrPage[]> => {
    if (models) await models.ensure(langs, system().folder);
    const folder = await mkdtemp(join(tmpdir(), 'quire-words-'));
    try {
      const list = join(folder, 'images.txt');
      await writeFile(list, images.map((image) => `${image.file}\n`).join(''));
      const outcome = await runProgram(binary, tesseractArgs({ dpi: images[0].dpi, bitonal: false }, langs, major, models?.path ?? tessdataDir, list), {
        env: oneThread(),
        timeoutMs,
        signal,
      });
      if (outcome.kind !== 'exited' || outcome.code !== 0) throw pageFailure(outcome, images[0].file, timeoutMs);
      const pages = hocrPages(outcome.stdout);
      if (pages.length !== images.length) throw new QuireError(ERROR_CODES.INTERNAL, `Tesseract read ${pages.length} of ${images.length} word images.`);
      return pages.map((hocr, k) => parseHocr(hocr, { width: images[k].width, height: images[k].height, dpi: images[k].dpi, scaleX: 1, scaleY: 1 }, langs));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  };

  const readOrientation = async (page: OcrInput, major: number, signal: AbortSignal): Promise<PageOrientation | null> => {
    const prepared = await pageSource(page);
    if (signal.aborted) throw cancelled();
    if (models) await models.ensure([ORIENTATION_DATA], system().folder);
    const dataDir = models?.path ?? tessdataDir;
    const source = 'png' in prepared ? '-' : prepared.file;
    const args = [source, 'stdout', ...(dataDir ? ['--tessdata-dir', dataDir] : []), '--dpi', String(prepared.dpi), '--psm', '0'];
    const outcome = await runProgram(binary, args, { input: 'png' in prepared ? prepared.png : undefined, env: oneThread(), timeoutMs, signal });
    if (outcome.kind === 'cancelled') throw cancelled();
    // Too little text to tell: tesseract says so and exits non-zero.
    if (outcome.kind !== 'exited' || outcome.code !== 0 || major < OLDEST_MAJOR) return null;
    return parseOrientation(outcome.stdout) ?? null;
  };

  return {
    name: 'tesseract-cli',
    display: 'Tesseract (native)',
    description: "The system's tesseract program (Debian's tesseract-ocr), offline, one process per page, with the best_int models of the npm packages.",
    options: [],
    available,
    languages,
    models() {
      const npm = npmLanguages();
      const all = languages();
      const best = all.filter((code) => npm.has(code));
      const own = all.filter((code) => !npm.has(code));
      return [
        ...(best.length > 0 ? [{ languages: best, model: `${MODEL_FOLDER} (npm @tesseract.js-data)` }] : []),
        ...(own.length > 0
          ? [{ languages: own, model: tessdataDir ? `from ${tessdataDir}` : `the system's own${system().folder ? ` (${system().folder})` : ''}` }]
          : []),
      ];
    },
    async recognize(page: OcrInput, wanted: string[], recognizeOptions?: { signal?: AbortSignal }): Promise<OcrPage> {
      const { major, langs, signal } = await prepareRead(wanted, recognizeOptions?.signal);
      return queue.run(() => readPage(page, langs, major, signal), signal);
    },
    async readWords(images: OcrInput[], wanted: string[], readOptions?: { signal?: AbortSignal }): Promise<OcrPage[]> {
      const { major, langs, signal } = await prepareRead(wanted, readOptions?.signal);
      // In batches, as many at once as pages are read: a book's thousands of words use every core, and a short
      // document's few dozen are shared between the cores too (this reading is the last step before the text).
      const count = Math.max(Math.ceil(images.length / WORDS_PER_PROCESS), Math.min(workers, Math.floor(images.length / MIN_WORDS_PER_PROCESS)), 1);
      const size = Math.ceil(images.length / count);
      const batches: OcrInput[][] = [];
      for (let first = 0; first < images.length; first += size) batches.push(images.slice(first, first + size));
      const read = await Promise.all(batches.map((batch) => queue.run(() => readWordImages(batch, langs, major, signal), signal)));
      return read.flat();
    },
    async detectOrientation(page: OcrInput, detectOptions?: { signal?: AbortSignal }): Promise<PageOrientation | null> {
      const probed = await probeVersion();
      if ('reason' in probed) throw new QuireError(ERROR_CODES.USAGE, probed.reason);
      const own = detectOptions?.signal;
      const signal = own ? AbortSignal.any([own, closing.signal]) : closing.signal;
      return queue.run(() => readOrientation(page, probed.major, signal), signal);
    },
    running() {
      return queue.running();
    },
    async close() {
      const ending = closing;
      closing = new AbortController();
      ending.abort();
    },
  };
}
