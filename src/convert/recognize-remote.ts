/**
 * Engines that read whole documents (the remote one): the pages sent as PDFs, the results aligned onto local
 * layouts, and batches submitted now and polled later.
 */
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ERROR_CODES, QuireError } from '../errors.js';
import { type PdfPageInput, writePdf } from '../export/index.js';
import {
  alignOntoLayout,
  detectLanguages,
  findOcrEngine,
  getOcrEngine,
  type OcrDocument,
  type OcrEngine,
  ocrPageText,
  type OcrSpec,
  parseOcrSpec,
} from '../ocr/index.js';
import { assertAvailable, imageOf, LOCAL_LAYOUT_SUFFIX, ocrFileStem, pageRead, recognizePages, type RecognizeOptions } from './recognize-pages.js';
import { type OcrPage, type PageKind, type ProjectManifest, type ProjectOcrBatch, type ProjectPage, readOcrPage, writeOcrPage } from '../project/index.js';

/** The code of a remote result that cannot be used (see `src/ocr/remote/client.ts`). */
const REMOTE_FAILED = ERROR_CODES.REMOTE_OCR_FAILED;

/**
 * The pages as a document a whole-document engine can cut into PDFs: each PDF is written with the PDF exporter (page
 * image data copied as it is), read back and removed.
 */
async function projectDocument(dir: string, pages: ProjectPage[]): Promise<OcrDocument> {
  const inputs = pages.map((p) => imageOf(dir, p));
  const pageBytes = await Promise.all(inputs.map(async (p) => (await stat(p.file)).size));
  return {
    pages: inputs,
    pageBytes,
    async pdf(from, to) {
      const path = join(dir, 'ocr', `.chunk-${process.pid}-${from + 1}-${to}.pdf`);
      const images = pages.slice(from, to).map((p, k): PdfPageInput => ({ ...inputs[from + k], kind: p.kind as PageKind }));
      try {
        await writePdf(images, path, { profile: 'auto', title: `pages ${from + 1}–${to}` });
        return new Uint8Array(await readFile(path));
      } finally {
        await rm(path, { force: true });
      }
    },
  };
}

/** A local layout is kept as a cache: missing or damaged, it is made again (or done without). */
function readLayout(dir: string, file: string, page: ProjectPage): Promise<OcrPage | undefined> {
  return readOcrPage(dir, file, page.index).catch(() => undefined);
}

const hasWords = (page: OcrPage | undefined): page is OcrPage =>
  page !== undefined && page.blocks.some((b) => b.paragraphs.some((p) => p.lines.some((l) => l.words.length > 0)));

/**
 * The local layout of each page, when one exists: `ocr/<page>.local.json`, else the page's current result when a
 * local engine made it (copied to `.local.json`, since the remote result takes its place). With the spec
 * option `layout=<engine>`, that engine reads the pages that have none first.
 */
async function localLayouts(
  dir: string,
  pages: ProjectPage[],
  remote: string,
  spec: Pick<OcrSpec, 'options' | 'languages'>,
  options: RecognizeOptions,
): Promise<Array<OcrPage | undefined>> {
  const layouts: Array<OcrPage | undefined> = [];
  for (const page of pages) {
    const localFile = `ocr/${ocrFileStem(page)}${LOCAL_LAYOUT_SUFFIX}`;
    let layout = await readLayout(dir, localFile, page);
    if (!hasWords(layout) && page.ocr && !page.ocr.endsWith(LOCAL_LAYOUT_SUFFIX)) {
      const current = await readLayout(dir, page.ocr, page);
      if (hasWords(current) && current.engine !== remote) {
        // A copy: the page keeps its text until the remote result replaces it, even if the remote call fails.
        await writeOcrPage(dir, localFile, current);
        layout = current;
      }
    }
    layouts.push(hasWords(layout) ? layout : undefined);
  }
  const layoutEngine = spec.options.layout;
  const missing = pages.filter((_, i) => layouts[i] === undefined);
  if (layoutEngine && missing.length > 0) {
    const local = getOcrEngine(layoutEngine);
    if (local.recognizeDocument || local.name === remote)
      throw new QuireError(ERROR_CODES.USAGE, `The OCR option layout=${layoutEngine} needs a local engine such as tesseract.`);
    await assertAvailable(local);
    const languages = spec.languages === 'auto' ? 'auto' : parseOcrSpec(layoutEngine, spec.languages.join('+')).languages;
    // A layout is not the text: nothing of it is corrected, so no dictionary is loaded for it.
    await recognizePages(
      local,
      async () => local,
      dir,
      missing,
      languages,
      { ...(options.signal ? { signal: options.signal } : {}), correct: false },
      (p) => `ocr/${ocrFileStem(p)}${LOCAL_LAYOUT_SUFFIX}`,
    );
    for (const [i, page] of pages.entries()) layouts[i] ??= await readLayout(dir, `ocr/${ocrFileStem(page)}${LOCAL_LAYOUT_SUFFIX}`, page);
  }
  return layouts;
}

/**
 * Remote pages saved as the project's OCR: each aligned onto its local layout when there is one (see
 * `src/ocr/remote/align.ts`), the document's languages read off the text unless the spec named them.
 */
async function saveRemotePages(
  dir: string,
  manifest: ProjectManifest,
  engine: string,
  pages: ProjectPage[],
  results: OcrPage[],
  layouts: Array<OcrPage | undefined>,
  wanted: string[] | 'auto',
): Promise<void> {
  const languages = wanted === 'auto' ? detectLanguages(results.map(ocrPageText).join('\n\n')) : wanted;
  for (const [i, page] of pages.entries()) {
    const remote = { ...results[i], languages };
    const local = layouts[i];
    const placed = (local && alignOntoLayout(remote, local)) || remote;
    const file = `ocr/${ocrFileStem(page)}.json`;
    await writeOcrPage(dir, file, placed);
    page.ocr = file;
  }
  manifest.ocr = { engine, languages };
}

export async function recognizeAsDocument(
  dir: string,
  manifest: ProjectManifest,
  engine: OcrEngine,
  spec: OcrSpec,
  pages: ProjectPage[],
  options: RecognizeOptions,
): Promise<void> {
  const layouts = await localLayouts(dir, pages, engine.name, spec, options);
  const document = await projectDocument(dir, pages);
  const languages = spec.languages === 'auto' ? [] : spec.languages;
  const results = await engine.recognizeDocument!(document, languages, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onPage: (pagesDone: number, pagesTotal: number) => pageRead(options, pagesDone, pagesTotal) } : {}),
    label: manifest.name,
    engineOptions: spec.options,
  });
  await saveRemotePages(dir, manifest, engine.name, pages, results, layouts, spec.languages);
}

export async function submitProjectBatch(
  dir: string,
  manifest: ProjectManifest,
  engine: OcrEngine,
  spec: OcrSpec,
  pages: ProjectPage[],
  options: RecognizeOptions,
): Promise<ProjectOcrBatch> {
  if (!engine.submitBatch || !engine.poll) throw new QuireError(ERROR_CODES.USAGE, `The OCR engine "${engine.name}" cannot run as a batch.`);
  // A layout engine runs now, while the batch is away, so finishing it later needs only the network.
  await localLayouts(dir, pages, engine.name, spec, options);
  const document = await projectDocument(dir, pages);
  const ticket = await engine.submitBatch(document, spec.languages === 'auto' ? [] : spec.languages, {
    ...(options.signal ? { signal: options.signal } : {}),
    label: manifest.name,
    engineOptions: spec.options,
  });
  const batch: ProjectOcrBatch = { engine: engine.name, options: spec.options, languages: spec.languages, pages: pages.map((p) => p.index), ticket };
  manifest.ocrBatch = batch;
  return batch;
}

function batchPages(manifest: ProjectManifest, batch: ProjectOcrBatch): ProjectPage[] {
  return batch.pages.map((index) => {
    const page = manifest.pages.find((p) => p.index === index);
    if (!page) throw new QuireError(ERROR_CODES.BAD_PROJECT, `Page ${index} of the OCR batch is no longer in the project.`);
    return page;
  });
}

function batchEngine(batch: ProjectOcrBatch): OcrEngine {
  const engine = findOcrEngine(batch.engine);
  if (!engine?.poll) throw new QuireError(ERROR_CODES.USAGE, `The OCR engine "${batch.engine}" of this project's batch is not available here.`);
  return engine;
}

/** Where a project's batch stands after a poll. */
export type ProjectOcrPoll = { state: 'pending'; status: string } | { state: 'done' } | { state: 'failed'; message: string; detail?: string };

/**
 * Ask the engine where the project's batch stands. Done: the pages are saved as the project's OCR (aligned onto
 * local layouts as in streaming mode) and `manifest.ocr` is set — the caller saves the manifest and removes
 * `ocrBatch` once the exports are written. Failed on the service's side (for good: failed, timed out, cancelled, a
 * page it could not read): its sentence, the batch's errors in `detail`. A poll that could not ask (network, key)
 * throws instead: the batch may still be fine.
 */
export async function pollProjectOcr(dir: string, manifest: ProjectManifest, options: { signal?: AbortSignal } = {}): Promise<ProjectOcrPoll> {
  const batch = manifest.ocrBatch;
  if (!batch) throw new QuireError(ERROR_CODES.USAGE, `The project in ${dir} has no OCR batch waiting.`);
  const engine = batchEngine(batch);
  const pages = batchPages(manifest, batch);
  const document = await projectDocument(dir, pages);
  const polled = await engine.poll!(batch.ticket, document, options.signal ? { signal: options.signal } : {});
  if (polled.state !== 'done') return polled;
  if (polled.pages.length !== pages.length)
    throw new QuireError(
      REMOTE_FAILED,
      'The OCR batch came back with a different number of pages than were sent.',
      `${polled.pages.length} of ${pages.length}`,
    );
  const layouts = await localLayouts(dir, pages, engine.name, { options: {}, languages: batch.languages }, {});
  await saveRemotePages(dir, manifest, engine.name, pages, polled.pages, layouts, batch.languages);
  return { state: 'done' };
}

/** Cancel the project's batch on the service's side (a job deleted or given up on); nothing when there is none. */
export async function cancelProjectBatch(manifest: ProjectManifest): Promise<void> {
  const batch = manifest.ocrBatch;
  if (!batch) return;
  await batchEngine(batch).cancel?.(batch.ticket);
}
