/**
 * Opening a document: its uploaded files read as one input (or a kept document's read again), and its pages made
 * in a fresh project folder, by the pipeline from its frames or by unpacking a slim project, then read by OCR.
 */
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { inputType, openDocument, openImages, openInput, type OpenedInput, readyOcr, recognize } from '../convert/index.js';
import { ERROR_CODES, QuireError } from '../errors.js';
import { HttpError, httpError } from '../http/index.js';
import { type ProjectManifest, visiblePages } from '../project/index.js';
import type { GuiSettings, StageProgress } from './api-types.js';
import { type GuiDocument, type ProcessPagesFn, type TaskReporter, type UploadedFile, userFailure } from './document-model.js';
import { readPageBoxes } from './page-box-file.js';
import { ocrStage, pagesStage, unpackStage } from './stages.js';

/** What making the pages needs of the store. */
export interface ConvertDeps {
  processPages: ProcessPagesFn;
  /** The person's dictionary as it stands: the correction step leaves its words alone. */
  userWords: () => readonly string[];
  /** The project's pages are the document's from now on. */
  showPages: (doc: GuiDocument, project: { dir: string; manifest: ProjectManifest }) => void;
}

/**
 * The uploaded files opened as one input: refused at once, in a sentence, when Quire cannot read them (their folder
 * is removed then). Null for a slim project, which the open task unpacks.
 */
export async function openUploads(dir: string, inputDir: string, files: UploadedFile[]): Promise<OpenedInput | null> {
  const paths = files.map((f) => f.path);
  const where = { inputDir };
  let opened: OpenedInput | null;
  try {
    if (paths.length === 0) throw httpError('missing_file', 'No file was given: choose a scan bundle, a PDF or images.');
    if (paths.length === 1 && inputType(paths[0]) === 'project') {
      // A slim project: unpacked by the open task, which says so if it cannot be.
      opened = null;
    } else if (paths.length > 1) {
      const other = files.find((f) => inputType(f.path) !== 'image');
      if (other) throw new QuireError(ERROR_CODES.USAGE, `Only image files can be opened together as one document, and ${other.name} is not one.`);
      opened = await openImages(paths);
    } else {
      opened = await openInput(paths[0], files[0].name);
    }
    if (opened && opened.frames.length === 0) {
      await opened.close();
      throw new QuireError(ERROR_CODES.UNSUPPORTED_INPUT, `${files[0].name} holds no page.`);
    }
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    if (e instanceof HttpError) throw e;
    const failure = userFailure(e, where);
    throw new HttpError(failure.code === 'internal' ? 500 : 400, failure.code, failure.message);
  }
  return opened;
}

/** The captures of a kept document, opened again (null for a slim project, which has none). */
export async function reopenInputs(inputs: string[]): Promise<OpenedInput | null> {
  if (inputs.length === 1 && inputType(inputs[0]) === 'project') return null;
  return inputs.length > 1 ? openImages(inputs) : openInput(inputs[0], basename(inputs[0]));
}

/** The stages of making a document's pages: from its frames (or unpacking a project), then OCR when an engine is chosen. */
export function convertPlan(doc: GuiDocument, ocrEngine: string): StageProgress[] {
  const first = doc.opened ? pagesStage(doc.opened.frames.length) : unpackStage();
  return ocrEngine !== 'none' ? [first, ocrStage()] : [first];
}

/** Make the pages in a fresh project folder (the pipeline on the input, or a slim project unpacked); the old folder goes once the new one is whole. */
export async function convertInput(
  doc: GuiDocument,
  settings: GuiSettings,
  signal: AbortSignal,
  report: TaskReporter,
  ocrEngine: string,
  deps: ConvertDeps,
): Promise<void> {
  const projectDir = join(doc.dir, `project-${doc.imageRevision + 1}`);
  const onProgress = report.onProgress;
  try {
    // An engine that cannot run is said before the pipeline's minutes, not after.
    const ocr = ocrEngine !== 'none' ? await readyOcr(ocrEngine, settings.ocrLanguages) : undefined;
    report.start(doc.opened ? 'pages' : 'unpack');
    // A PDF page with a text layer (Quire's own corrected PDF, a born-digital page) keeps it, as `quire ocr` does,
    // unless a preset was chosen by hand: then every page is made again from its pixels.
    const keepTextPages = doc.preset === 'auto';
    // The document's own opened input is lent, not opened a second time: closing a second pdfjs copy of a PDF
    // stalls the pages the first one has yet to render (the page view's capture, a kept page's picture).
    const lent = doc.opened ? { opened: { ...doc.opened, close: async () => undefined } } : {};
    const project = await openDocument(doc.inputs.length === 1 ? doc.inputs[0] : doc.inputs, {
      projectDir,
      label: basename(doc.inputs[0]),
      keepTextPages,
      ...lent,
    });
    try {
      // Pages set by hand stay set (`page-boxes.ts`).
      if (doc.opened)
        await deps.processPages(project, {
          ...(doc.preset !== 'auto' ? { pipeline: doc.preset } : {}),
          pageBoxes: await readPageBoxes(doc.dir),
          signal,
          onProgress,
        });
      else report.finish('unpack');
      // A reopened project keeps the text it has.
      if (ocr && !(doc.opened === null && project.manifest.ocr)) {
        // A document opened for the first time shows its pages now, not after the OCR's minutes.
        if (!doc.projectDir) deps.showPages(doc, project);
        report.start('ocr', visiblePages(project.manifest).filter((p) => p.kind !== 'pdf').length);
        await recognize(project, ocr, { signal, onProgress, timeLeft: true, userWords: deps.userWords() });
      }
    } finally {
      await project.close();
    }
    const old = doc.projectDir === project.dir ? undefined : doc.projectDir;
    deps.showPages(doc, project);
    if (old) await rm(old, { recursive: true, force: true });
  } catch (e) {
    // Pages already shown stay (a cancelled OCR leaves them without text); others go.
    if (doc.projectDir !== projectDir) await rm(projectDir, { recursive: true, force: true });
    throw e;
  }
}
