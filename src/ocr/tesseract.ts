/**
 * The built-in `tesseract` engine: tesseract.js (WebAssembly, in worker threads) with language
 * data from the `@tesseract.js-data/<lang>` npm packages. Offline by construction: `langPath` is
 * a local folder, so tesseract.js reads files and never fetches; core and worker scripts come
 * from `node_modules` (no `corePath`/`workerPath`).
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import type Tesseract from 'tesseract.js';
import { ERROR_CODES, QuireError, describeError } from '../errors.js';
import { parseHocr } from './tesseract-cli-hocr.js';
import { orientationFromDegrees, type PageOrientation } from './orientation.js';
import { createLanguageFolder, findOrientationData, listInstalledLanguages, MODEL_FOLDER, ORIENTATION_DATA, type LanguageFolder } from './tesseract-data.js';
import { preparePage, type PreparedPage } from './tesseract-page.js';
import type { OcrEngine, OcrInput } from './types.js';
import type { OcrPage } from '../project/index.js';
import { createWorkerPool, type PoolWorker, type WorkerPoolStats } from './worker-pool.js';

export interface TesseractEngineOptions {
  /** Workers in the warm pool; default: the number of cores. */
  workers?: number;
  /** How long a worker may take to start or switch languages, in ms (a broken data file makes tesseract.js wait forever). */
  startTimeoutMs?: number;
  /** Where the folder of language-data links is made; default: the system temp folder. */
  dataParent?: string;
}

export interface TesseractEngine extends OcrEngine {
  /** Worker starts and language switches so far: how warm the pool stays. */
  stats(): WorkerPoolStats;
  close(): Promise<void>;
}

interface TesseractWorker extends PoolWorker {
  /** The page's hOCR: the layout and, per character, the LSTM's choices (which the JSON blocks leave out). */
  recognize(page: PreparedPage): Promise<string>;
}

const DEFAULT_START_TIMEOUT_MS = 30_000;

/** Fully automatic page segmentation without orientation detection (that needs the legacy model). */
const PSM_AUTO = '3';
/** `thresholding_method`: 0 is Otsu (global), 2 is Sauvola (local, for uneven light). */
const THRESHOLD_OTSU = '0';
const THRESHOLD_SAUVOLA = '2';

function withTimeout<T>(promise: Promise<T>, ms: number, what: string, onLate: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(new QuireError(ERROR_CODES.INTERNAL, `The OCR engine did not start in time (${what}).`, `no answer from tesseract.js within ${ms} ms`));
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        if (timedOut) onLate(value);
        else resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(new QuireError(ERROR_CODES.INTERNAL, `The OCR engine could not start (${what}).`, describeError(error)));
      },
    );
  });
}

/** The per-page parameters: tesseract keeps them until changed, so every page sets all of them. */
function pageParameters(page: PreparedPage): Partial<Tesseract.WorkerParams> {
  return {
    tessedit_pageseg_mode: PSM_AUTO as Tesseract.PSM,
    user_defined_dpi: String(page.dpi),
    thresholding_method: page.bitonal ? THRESHOLD_OTSU : THRESHOLD_SAUVOLA,
    // Our pages are black on white: trying every line again as white on black only costs time.
    tessedit_do_invert: '0',
    // Each character's alternatives in the hOCR, for the correction step's dictionary check.
    lstm_choice_mode: '2',
  } as Partial<Tesseract.WorkerParams>;
}

/**
 * The worker's thread, when tesseract.js exposes it (it does in Node, undocumented): an idle warm
 * worker is unref'd so it never keeps a finished CLI process alive, and ref'd while it works.
 */
function threadOf(worker: Tesseract.Worker): { ref(): void; unref(): void } | undefined {
  const thread = (worker as unknown as { worker?: { ref?: unknown; unref?: unknown } }).worker;
  return thread && typeof thread.ref === 'function' && typeof thread.unref === 'function' ? (thread as { ref(): void; unref(): void }) : undefined;
}

/** tesseract.js, loaded when a worker starts: a run read by native tesseract (the default) never needs it. */
async function loadTesseractJs(): Promise<typeof Tesseract> {
  return (await import('tesseract.js')).default;
}

async function startWorker(languages: readonly string[], folder: LanguageFolder, timeoutMs: number): Promise<TesseractWorker> {
  // Checked first: with a missing file, createWorker never settles.
  await folder.ensure(languages);
  const what = languages.join('+');
  const { createWorker, OEM } = await loadTesseractJs();
  const worker = await withTimeout(
    createWorker([...languages], OEM.LSTM_ONLY, {
      langPath: folder.path,
      gzip: true,
      cacheMethod: 'none',
      // Without a handler tesseract.js throws a failed job's error from its message listener,
      // which kills the process; with one, the job's own promise still rejects.
      errorHandler: () => undefined,
      logger: () => undefined,
    }),
    timeoutMs,
    what,
    (late) => void late.terminate(),
  );
  const thread = threadOf(worker);
  thread?.unref();
  const working = async <T>(fn: () => Promise<T>): Promise<T> => {
    thread?.ref();
    try {
      return await fn();
    } finally {
      thread?.unref();
    }
  };
  return {
    async reinitialize(next) {
      await folder.ensure(next);
      const { OEM } = await loadTesseractJs();
      await working(() => withTimeout(worker.reinitialize(next.join('+'), OEM.LSTM_ONLY), timeoutMs, next.join('+'), () => undefined));
    },
    async terminate() {
      await worker.terminate();
    },
    recognize(page) {
      return working(async () => {
        await worker.setParameters(pageParameters(page));
        const result = await worker.recognize(page.png, {}, { text: false, blocks: false, hocr: true });
        return result.data.hocr ?? '';
      });
    },
  };
}

/** Whether tesseract.js itself can be loaded here (it always can after `npm ci`). */
function tesseractInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('tesseract.js');
    return true;
  } catch {
    return false;
  }
}

/** Orientation detection runs on tesseract's legacy engine, in a worker of its own started on first use. */
async function startOrientationWorker(folder: LanguageFolder, timeoutMs: number): Promise<Tesseract.Worker> {
  await folder.ensure([ORIENTATION_DATA]);
  const { createWorker, OEM } = await loadTesseractJs();
  const worker = await withTimeout(
    createWorker(ORIENTATION_DATA, OEM.TESSERACT_ONLY, {
      langPath: folder.path,
      gzip: true,
      cacheMethod: 'none',
      legacyCore: true,
      legacyLang: true,
      errorHandler: () => undefined,
      logger: () => undefined,
    }),
    timeoutMs,
    ORIENTATION_DATA,
    (late) => void late.terminate(),
  );
  threadOf(worker)?.unref();
  return worker;
}

export function createTesseractEngine(options: TesseractEngineOptions = {}): TesseractEngine {
  const { workers = availableParallelism(), startTimeoutMs = DEFAULT_START_TIMEOUT_MS, dataParent } = options;
  let folder: Promise<LanguageFolder> | undefined;
  const languageFolder = (): Promise<LanguageFolder> => (folder ??= createLanguageFolder(dataParent));
  const pool = createWorkerPool<TesseractWorker>({
    size: workers,
    create: async (languages) => startWorker(languages, await languageFolder(), startTimeoutMs),
  });

  let orientationWorker: Promise<Tesseract.Worker> | undefined;
  let orientationQueue: Promise<unknown> = Promise.resolve();

  const checkLanguages = (languages: readonly string[]): string[] => {
    const installed = listInstalledLanguages();
    const wanted = [...new Set(languages)];
    const missing = wanted.filter((code) => !installed.includes(code));
    if (wanted.length === 0 || missing.length > 0) {
      const what = wanted.length === 0 ? 'No OCR language was given' : `The OCR language ${missing.join(', ')} is not installed`;
      throw new QuireError(ERROR_CODES.USAGE, `${what}; installed languages: ${installed.join(', ') || 'none'}.`);
    }
    return wanted;
  };

  return {
    name: 'tesseract',
    display: 'Tesseract (local)',
    description: 'Tesseract 5 LSTM in WebAssembly, on this machine, offline; language data from npm packages.',
    options: [],
    async available() {
      if (!tesseractInstalled()) return { ok: false, reason: 'The tesseract.js package is not installed.' };
      if (listInstalledLanguages().length === 0) {
        return { ok: false, reason: 'No tesseract language data is installed (npm install @tesseract.js-data/eng).' };
      }
      return { ok: true };
    },
    languages() {
      return listInstalledLanguages();
    },
    models() {
      const languages = listInstalledLanguages();
      return languages.length > 0 ? [{ languages, model: `${MODEL_FOLDER} (npm @tesseract.js-data)` }] : [];
    },
    async recognize(page: OcrInput, languages: string[], recognizeOptions?: { signal?: AbortSignal }): Promise<OcrPage> {
      const langs = checkLanguages(languages);
      return pool.run(
        langs,
        async (worker) => {
          // Decoded only once a worker is free: a long queue then holds file names, not pixels.
          const prepared = await preparePage(page);
          let hocr: string;
          try {
            hocr = await worker.recognize(prepared);
          } catch (e) {
            throw new QuireError(ERROR_CODES.INTERNAL, `OCR failed on the page image ${page.file}.`, describeError(e));
          }
          return parseHocr(
            hocr,
            { width: page.width, height: page.height, dpi: page.dpi, scaleX: prepared.scaleX, scaleY: prepared.scaleY },
            langs,
            'tesseract',
          );
        },
        recognizeOptions?.signal,
      );
    },
    async detectOrientation(page: OcrInput, detectOptions?: { signal?: AbortSignal }): Promise<PageOrientation | null> {
      if (!findOrientationData()) return null;
      const worker = await (orientationWorker ??= languageFolder().then((folder) => startOrientationWorker(folder, startTimeoutMs)));
      // One page at a time on the one worker; a cancelled run stops before its page.
      const run = orientationQueue.then(async () => {
        if (detectOptions?.signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'OCR was cancelled.');
        const prepared = await preparePage(page);
        const thread = threadOf(worker);
        thread?.ref();
        try {
          const { data } = await worker.detect(prepared.png);
          if (data.orientation_degrees === null || data.orientation_confidence === null) return null;
          return orientationFromDegrees(data.orientation_degrees, data.orientation_confidence) ?? null;
        } catch {
          // Too little text to tell: tesseract gives up on the page.
          return null;
        } finally {
          thread?.unref();
        }
      });
      orientationQueue = run.catch(() => undefined);
      return run;
    },
    stats() {
      return pool.stats();
    },
    async close() {
      await pool.close();
      const osd = orientationWorker;
      orientationWorker = undefined;
      if (osd) await (await osd.catch(() => undefined))?.terminate();
      const made = folder;
      folder = undefined;
      if (made) await (await made).remove();
    },
  };
}
