/**
 * The `tesseract-cli` engine: the system's `tesseract` program (Debian's `tesseract-ocr`), one
 * process per core, each held to one thread, reading a page or, when many wait, a few from a list file. Native tesseract reads a page in about half the time
 * tesseract.js's WebAssembly takes, so `auto` prefers it where it is installed. It reads the same
 * `best_int` models as tesseract.js (the npm packages, unpacked once under the app data folder), not
 * Debian's `fast` ones, so choosing it never trades accuracy for speed; a language only the system
 * has is read with the system's model. Offline by construction.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
  /** Processes at once, each reading one page or a few listed in a file; default: the number of cores. */
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

/** A page asked for, waiting for a process to read it. */
interface WaitingPage {
  page: OcrInput;
  langs: string[];
  major: number;
  signal: AbortSignal;
  /** The caller's own signal: only pages one caller may cancel together are read by one process. */
  caller: AbortSignal | undefined;
  /** Told once the process reading the page runs. */
  started?: () => void;
  /** Whether the program can read the page's own file (`storedPage`), looked at as the page was asked for. */
  stored: Promise<StoredPage | undefined>;
  resolve(read: Reading): void;
  reject(error: unknown): void;
}

/**
 * A page read, its hOCR parsed when called: parsing a page's hOCR with per-character choices takes 0.13–0.3 s on this
 * thread, done once its process's place has gone to the next page, whose process then starts that much earlier.
 */
type Reading = () => OcrPage;

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
/**
 * Most pages one process reads from a list file: its model loads once (measured: 3–4 % of tesseract's CPU on 300-dpi
 * book pages, the same words). Few, so the last pages of a document still share the cores.
 */
const PAGES_PER_PROCESS = 4;
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
  choices = true,
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
    // Each character's alternatives in the hOCR, for the correction step's dictionary check. All five searches for them
    // (`lstm_choice_iterations`, each adding a character's next best): with one, 2 % of a page's CPU instead of 7 %, the
    // synthetic corpus lost words its third choices mended (docs/benchmarks.md).
    ...(five && choices ? ['-c', 'lstm_choice_mode=2'] : []),
  ];
}

/**
 * The environment of every tesseract process: one thread each (with OpenMP's default, two pages on two cores run
 * several times slower). Not two even for a page read alone at a document's end: two threads read it 5–15 % faster
 * when nothing else runs, but 10–25 times slower as soon as anything else wants a core for a while (the other
 * page's process ending, Quire's own thread, another program): measured in docs/benchmarks.md.
 */
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

  const listedLanguages = (failed: boolean, stdout: string, stderr: string): { folder?: string; codes: string[] } =>
    failed ? { codes: [] } : { folder: parseLanguageFolder(`${stdout}\n${stderr}`), codes: parseLanguageList(stdout) };
  // Synchronous because `OcrEngine.languages()` is; asked once (a few ms), then cached.
  const system = (): { folder?: string; codes: string[] } => {
    if (systemLanguages) return systemLanguages;
    const listed = spawnSync(binary, [...dataArgs, '--list-langs'], { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
    systemLanguages = listedLanguages(listed.error !== undefined || listed.status !== 0, listed.stdout ?? '', listed.stderr ?? '');
    return systemLanguages;
  };
  /** The same list asked for beside the version (`available`): two probes at once rather than one after the other. */
  let listing: Promise<void> | undefined;
  const listSystemLanguages = (): Promise<void> =>
    (listing ??= runProgram(binary, [...dataArgs, '--list-langs'], { timeoutMs: PROBE_TIMEOUT_MS }).then((outcome) => {
      const ok = outcome.kind === 'exited' && outcome.code === 0;
      systemLanguages ??= listedLanguages(!ok, ok ? outcome.stdout : '', ok ? outcome.stderr : '');
    }));
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
    const [probed] = await Promise.all([probeVersion(), systemLanguages ? undefined : listSystemLanguages()]);
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
  const program: TesseractProgram = {
    binary,
    timeoutMs,
    dataDir: () => models?.path ?? tessdataDir,
    ensure: async (langs) => {
      if (models) await models.ensure(langs, system().folder);
    },
  };
  /**
   * The system's own model folder when it holds every one of `langs` (Debian's fast models: about 40 % less CPU than
   * best_int on a language sample's lines, the same words told apart), else undefined. Never with a folder given as
   * it is (`tessdataDir`).
   */
  const quickModels = (langs: readonly string[]): string | undefined => {
    const folder = models ? system().folder : undefined;
    return folder !== undefined && langs.every((code) => existsSync(join(folder, `${code}.traineddata`))) ? folder : undefined;
  };
  /** Aborted by close(): ends every running process; replaced so the engine can be used again. */
  let closing = new AbortController();

  /** The page as tesseract reads it: its own file when it can, else a PNG made here, on its stdin. */
  const pageSource = async (page: OcrInput): Promise<StoredPage | PreparedPage> => (await storedPage(page)) ?? (await preparePage(page));

  const readPage = async (
    page: OcrInput,
    langs: string[],
    major: number,
    signal: AbortSignal,
    source?: StoredPage | PreparedPage,
    started?: () => void,
  ): Promise<Reading> => {
    // Decoded only once a place is free: a long queue then holds file names, not pixels.
    const prepared = source ?? (await pageSource(page));
    if (signal.aborted) throw cancelled();
    if (models) await models.ensure(langs, system().folder);
    const running = runProgram(binary, tesseractArgs(prepared, langs, major, models?.path ?? tessdataDir), {
      input: 'png' in prepared ? prepared.png : undefined,
      env: oneThread(),
      timeoutMs,
      signal,
    });
    started?.();
    const outcome = await running;
    if (outcome.kind !== 'exited' || outcome.code !== 0) throw pageFailure(outcome, page.file, timeoutMs);
    const frame = { width: page.width, height: page.height, dpi: page.dpi, scaleX: prepared.scaleX, scaleY: prepared.scaleY };
    return () => parseHocr(outcome.stdout, frame, langs);
  };

  /** The program's version, the languages to read and the signal that ends the reading, once they are checked. */
  const prepareRead = async (wanted: string[], own: AbortSignal | undefined): Promise<{ major: number; langs: string[]; signal: AbortSignal }> => {
    const probed = await probeVersion();
    if ('reason' in probed) throw new QuireError(ERROR_CODES.USAGE, probed.reason);
    const langs = checkLanguages(wanted);
    return { major: probed.major, langs, signal: own ? AbortSignal.any([own, closing.signal]) : closing.signal };
  };

  /** Pages waiting for a process, in the order they were asked for. */
  const waiting: WaitingPage[] = [];
  const sameRead = (a: WaitingPage, b: WaitingPage): boolean => a.caller === b.caller && a.major === b.major && a.langs.join('+') === b.langs.join('+');

  /**
   * Pages stored as files the program reads as they are (`storedPage`), read by one process from a list file, one
   * hOCR page each. When that process fails, each page is read alone, so the error names the page it is about.
   */
  const readStoredPages = async (pages: Array<{ item: WaitingPage; source: StoredPage }>): Promise<void> => {
    const read = await readPageList(program, pages);
    for (const [k, { item, source: own }] of pages.entries()) {
      if (read) item.resolve(read[k]);
      else await readPage(item.page, item.langs, item.major, item.signal, own, item.started).then(item.resolve, item.reject);
    }
  };

  /**
   * Read a waiting page, now that a place is free, with as many pages like it as waited longer (pages read with
   * the same languages for the same caller, stored as files of the same resolution and kind): at most
   * `PAGES_PER_PROCESS`, and no more than an even share of those waiting among the places, so every core keeps
   * work to the end. A page already read with another is done.
   */
  const readWaiting = async (item: WaitingPage): Promise<void> => {
    const at = waiting.indexOf(item);
    if (at < 0) return;
    waiting.splice(at, 1);
    const others: WaitingPage[] = [];
    try {
      const source = (await item.stored) ?? (await preparePage(item.page));
      if (!('file' in source)) return item.resolve(await readPage(item.page, item.langs, item.major, item.signal, source, item.started));
      // Taken at once (no await between looking and taking): no other place can take them meanwhile.
      const like = waiting.filter((other) => sameRead(item, other));
      const share = Math.min(PAGES_PER_PROCESS, Math.floor((like.length + 1) / queue.size()));
      for (const other of like.slice(0, Math.max(0, share - 1))) others.push(...waiting.splice(waiting.indexOf(other), 1));
      const stored = await Promise.all(others.map(async (other) => ({ item: other, source: await other.stored })));
      const fits = (s: StoredPage | undefined): s is StoredPage => s !== undefined && s.dpi === source.dpi && s.bitonal === source.bitonal;
      const together = [{ item, source }, ...stored.flatMap((o) => (fits(o.source) ? [{ item: o.item, source: o.source }] : []))];
      if (together.length === 1) item.resolve(await readPage(item.page, item.langs, item.major, item.signal, source, item.started));
      else await readStoredPages(together);
      // Rare: a page of the same document that is not a stored file; read here (its own place finds it taken).
      for (const other of stored)
        if (!fits(other.source))
          await readPage(other.item.page, other.item.langs, other.item.major, other.item.signal, undefined, other.item.started).then(
            other.item.resolve,
            other.item.reject,
          );
    } catch (e) {
      // Every page taken here is told (those already read keep their text: a promise settles once).
      for (const taken of [item, ...others]) taken.reject(e);
    }
  };

  return {
    name: 'tesseract-cli',
    display: 'Tesseract (native)',
    description: "The system's tesseract program (Debian's tesseract-ocr), offline, one process per core, with the best_int models of the npm packages.",
    options: [],
    available,
    languages,
    models() {
      return modelsOf(npmLanguages(), languages(), tessdataDir ? `from ${tessdataDir}` : `the system's own${system().folder ? ` (${system().folder})` : ''}`);
    },
    async recognize(page: OcrInput, wanted: string[], recognizeOptions?: { signal?: AbortSignal; started?: () => void }): Promise<OcrPage> {
      const { major, langs, signal } = await prepareRead(wanted, recognizeOptions?.signal);
      // A file name and a few numbers: a long queue holds no pixels.
      const stored = storedPage(page);
      const read = await new Promise<Reading>((resolve, reject) => {
        const started = recognizeOptions?.started;
        const item: WaitingPage = { page, langs, major, signal, caller: recognizeOptions?.signal, ...(started ? { started } : {}), stored, resolve, reject };
        waiting.push(item);
        queue
          .run(() => readWaiting(item), signal)
          .catch((e: unknown) => {
            // Cancelled while waiting for a place: not read with another page either.
            const at = waiting.indexOf(item);
            if (at >= 0) waiting.splice(at, 1);
            reject(e);
          });
      });
      // Parsed after the place is handed on (see `Reading`).
      await new Promise((resolve) => setImmediate(resolve));
      return read();
    },
    async readWords(images: OcrInput[], wanted: string[], readOptions?: { signal?: AbortSignal; forLanguage?: boolean }): Promise<OcrPage[]> {
      const { major, langs, signal } = await prepareRead(wanted, readOptions?.signal);
      // A language sample needs words, not their alternatives: the system's fast models read it when it has them all.
      const quick = readOptions?.forLanguage ? { dataDir: quickModels(langs) } : undefined;
      // In batches, as many at once as pages are read: a book's thousands of words use every core, and a short
      // document's few dozen are shared between the cores too (this reading is the last step before the text).
      const count = Math.max(Math.ceil(images.length / WORDS_PER_PROCESS), Math.min(workers, Math.floor(images.length / MIN_WORDS_PER_PROCESS)), 1);
      const size = Math.ceil(images.length / count);
      const batches: OcrInput[][] = [];
      for (let first = 0; first < images.length; first += size) batches.push(images.slice(first, first + size));
      const read = await Promise.all(batches.map((batch) => queue.run(() => readWordImages(program, batch, langs, major, signal, quick), signal)));
      return read.flat();
    },
    async detectOrientation(page: OcrInput, detectOptions?: { signal?: AbortSignal }): Promise<PageOrientation | null> {
      const probed = await probeVersion();
      if ('reason' in probed) throw new QuireError(ERROR_CODES.USAGE, probed.reason);
      const own = detectOptions?.signal;
      const signal = own ? AbortSignal.any([own, closing.signal]) : closing.signal;
      return queue.run(async () => readOrientation(program, await pageSource(page), probed.major, signal), signal);
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

/** The tesseract program as an engine runs it: where its models are, made ready before each reading. */
interface TesseractProgram {
  binary: string;
  timeoutMs: number;
  dataDir(): string | undefined;
  ensure(langs: string[]): Promise<void>;
}

/**
 * Pages stored as files the program reads as they are, read by one process from a list file: their readings, one hOCR
 * page each, or undefined when the process failed (its pages are then read alone, so an error names its page).
 */
async function readPageList(program: TesseractProgram, pages: Array<{ item: WaitingPage; source: StoredPage }>): Promise<Reading[] | undefined> {
  const [{ item: first, source }] = pages;
  await program.ensure(first.langs);
  const folder = await mkdtemp(join(tmpdir(), 'quire-pages-'));
  try {
    const list = join(folder, 'pages.txt');
    await writeFile(list, pages.map((p) => `${p.source.file}\n`).join(''));
    const timeoutMs = program.timeoutMs * pages.length;
    const args = tesseractArgs({ ...source, file: list }, first.langs, first.major, program.dataDir());
    const running = runProgram(program.binary, args, { env: oneThread(), timeoutMs, signal: first.signal });
    for (const { item } of pages) item.started?.();
    const outcome = await running;
    // A program that cannot start, or a list that takes too long, would do no better page by page.
    if (outcome.kind !== 'exited') throw pageFailure(outcome, first.page.file, timeoutMs);
    const hocr = outcome.code === 0 ? hocrPages(outcome.stdout) : [];
    if (hocr.length !== pages.length) return undefined;
    return hocr.map((text, k) => {
      const { page } = pages[k].item;
      return () => parseHocr(text, { width: page.width, height: page.height, dpi: page.dpi, scaleX: 1, scaleY: 1 }, first.langs);
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * Word images (PNG files on clean paper) read by one process, listed in a file: one page per image, in order, without
 * per-character choices (what is read again is taken as text; the choices cost 7–15 % of a reading). `quick`: read for
 * their language only, with the models of `quick.dataDir` when it is given.
 */
async function readWordImages(
  program: TesseractProgram,
  images: OcrInput[],
  langs: string[],
  major: number,
  signal: AbortSignal,
  quick?: { dataDir: string | undefined },
): Promise<OcrPage[]> {
  const { binary, timeoutMs } = program;
  const dataDir = quick?.dataDir ?? program.dataDir();
  if (quick?.dataDir === undefined) await program.ensure(langs);
  const folder = await mkdtemp(join(tmpdir(), 'quire-words-'));
  try {
    const list = join(folder, 'images.txt');
    await writeFile(list, images.map((image) => `${image.file}\n`).join(''));
    const outcome = await runProgram(binary, tesseractArgs({ dpi: images[0].dpi, bitonal: false }, langs, major, dataDir, list, false), {
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
}

/** Which way the page turns, from tesseract's orientation pass (`--psm 0`); null when it cannot tell. */
async function readOrientation(
  program: TesseractProgram,
  prepared: StoredPage | PreparedPage,
  major: number,
  signal: AbortSignal,
): Promise<PageOrientation | null> {
  const { binary, timeoutMs } = program;
  if (signal.aborted) throw cancelled();
  await program.ensure([ORIENTATION_DATA]);
  const dataDir = program.dataDir();
  const source = 'png' in prepared ? '-' : prepared.file;
  const args = [source, 'stdout', ...(dataDir ? ['--tessdata-dir', dataDir] : []), '--dpi', String(prepared.dpi), '--psm', '0'];
  const outcome = await runProgram(binary, args, { input: 'png' in prepared ? prepared.png : undefined, env: oneThread(), timeoutMs, signal });
  if (outcome.kind === 'cancelled') throw cancelled();
  // Too little text to tell: tesseract says so and exits non-zero.
  if (outcome.kind !== 'exited' || outcome.code !== 0 || major < OLDEST_MAJOR) return null;
  return parseOrientation(outcome.stdout) ?? null;
}

/** Which model reads which language: the npm best_int models where a package has one, else `own` (the system's). */
function modelsOf(npm: ReadonlySet<string>, all: string[], own: string): Array<{ languages: string[]; model: string }> {
  const best = all.filter((code) => npm.has(code));
  const rest = all.filter((code) => !npm.has(code));
  return [
    ...(best.length > 0 ? [{ languages: best, model: `${MODEL_FOLDER} (npm @tesseract.js-data)` }] : []),
    ...(rest.length > 0 ? [{ languages: rest, model: own }] : []),
  ];
}
