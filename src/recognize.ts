import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ERROR_CODES, QuireError, describeError } from './errors.js';
import { detectDocumentLanguages, getOcrEngine, parseOcrSpec, type OcrInput, type OcrPage, type OcrSpec } from './ocr/index.js';
import { visiblePages, type ProjectManifest, type ProjectPage } from './project/index.js';

export interface RecognizeOptions {
  signal?: AbortSignal;
  onPage?: (pagesDone: number, pagesTotal: number) => void;
}

/**
 * OCR every visible page image of a project with one engine and one language set for the whole
 * document (`auto` is resolved once, on the first pages), writing `ocr/<page>.json` beside each
 * page image and recording it in the manifest. Pages run as fast as the engine's warm pool allows.
 * Pages kept from a source PDF keep the text they came with; when every page is one, no engine runs.
 */
export async function recognizeProject(dir: string, manifest: ProjectManifest, spec: OcrSpec, options: RecognizeOptions = {}): Promise<void> {
  const pages = visiblePages(manifest).filter((p) => p.kind !== 'pdf');
  if (pages.length === 0) return;
  const engine = getOcrEngine(spec.engine);
  const available = await engine.available();
  if (!available.ok) throw new QuireError(ERROR_CODES.USAGE, available.reason);
  const inputs = pages.map((p): OcrInput => ({ file: join(dir, p.file), width: p.width, height: p.height, dpi: p.dpi }));
  const signal = options.signal;

  const done = new Map<number, OcrPage>();
  let languages: string[];
  if (spec.languages === 'auto') {
    // Sample the start, middle and end: books quote and anthologies change language.
    const picks = samplePageIndexes(pages.length);
    const detection = await detectDocumentLanguages(engine, picks.map((i) => inputs[i]), signal ? { signal } : {});
    languages = detection.languages;
    // The first pass already read the sample pages with the right languages: keep those results.
    if (languages.join('+') === detection.firstGuess.join('+')) detection.samples.forEach((page, k) => done.set(picks[k], page));
  } else {
    languages = spec.languages;
  }

  await mkdir(join(dir, 'ocr'), { recursive: true });
  let pagesDone = 0;
  const save = async (i: number, result: OcrPage): Promise<void> => {
    const page = pages[i];
    const file = `ocr/${ocrFileStem(page)}.json`;
    await writeFile(join(dir, file), JSON.stringify(result));
    page.ocr = file;
    options.onPage?.(++pagesDone, pages.length);
  };
  // The engine queues pages on its warm workers; handing it a few at a time keeps memory flat.
  const inFlight = 4;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < pages.length) {
      if (signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
      const i = next++;
      const result = done.get(i) ?? (await recognizePage(engine.recognize.bind(engine), inputs[i], languages, signal, pages[i]));
      await save(i, result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, pages.length) }, lane));
  manifest.ocr = { engine: engine.name, languages };
}

async function recognizePage(
  recognize: (page: OcrInput, languages: string[], options?: { signal?: AbortSignal }) => Promise<OcrPage>,
  input: OcrInput,
  languages: string[],
  signal: AbortSignal | undefined,
  page: ProjectPage,
): Promise<OcrPage> {
  try {
    return await recognize(input, languages, signal ? { signal } : {});
  } catch (e) {
    if (e instanceof QuireError) throw e;
    throw new QuireError(ERROR_CODES.INTERNAL, `OCR of page ${page.index} failed.`, describeError(e));
  }
}

/** Up to three pages spread over the document: first, middle, last. */
export function samplePageIndexes(count: number): number[] {
  return [...new Set([0, Math.floor((count - 1) / 2), count - 1])].filter((i) => i >= 0 && i < count);
}

function ocrFileStem(page: ProjectPage): string {
  const name = page.file.split('/').pop() ?? `${page.index}`;
  return name.replace(/\.[^.]+$/, '');
}

/** The OCR results of the visible pages, in page order; pages without OCR are left out. */
export async function loadOcrPages(dir: string, manifest: ProjectManifest): Promise<Map<number, OcrPage>> {
  const out = new Map<number, OcrPage>();
  for (const page of visiblePages(manifest)) {
    if (!page.ocr) continue;
    try {
      out.set(page.index, JSON.parse(await readFile(join(dir, page.ocr), 'utf8')) as OcrPage);
    } catch (e) {
      throw new QuireError(ERROR_CODES.BAD_PROJECT, `The OCR result of page ${page.index} cannot be read.`, describeError(e));
    }
  }
  return out;
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
