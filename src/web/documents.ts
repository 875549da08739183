/**
 * The documents opened in this session. Each keeps its upload, its project folder (the engine's
 * kept folder, so pages, decisions and OCR stay on disk), and at most one running task: open,
 * rerun with another preset, OCR, or export. Tasks run the conversion verbs the CLI runs
 * (`openDocument`, `processPages`, `recognize`, `writeExports`); their progress is kept as a
 * snapshot the event stream sends to the page.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { openDocument, processPages, readyOcr, recognize, type ProgressEvent } from '../convert/index.js';
import { ERROR_CODES, QuireError } from '../errors.js';
import { inputType, type OpenedInput, openImages, openInput } from '../ingest/index.js';
import { HttpError } from '../http/index.js';
import { ocrPageText } from '../ocr/index.js';
import { type OcrPage, type ProjectManifest, type ProjectPage, saveManifest, visiblePages } from '../project/index.js';
import type {
  DocumentDetail,
  DocumentStatus,
  DocumentSummary,
  FrameView,
  GuiSettings,
  PageText,
  PageView,
  PresetChoice,
  TaskKind,
  TaskProgress,
} from './api-types.js';
import { busy, failureMessage, notFound } from './http-errors.js';
import { type PreviewSize, renderFramePreview, renderPagePreview } from './previews.js';

/** Frames listed one by one in the progress panel up to this many; a longer book shows counts. */
const LISTED_FRAMES = 60;

/** The pipeline verb a document's pages are made with; a test stands in for it. */
export type ProcessPagesFn = typeof processPages;

export interface DocumentStoreOptions {
  /** This session's private folder. */
  sessionDir: string;
  /** The app's defaults, read when a task starts. */
  settings: () => Promise<GuiSettings>;
  /** Hears every change of a document (the event stream). */
  onChange: (summary: DocumentSummary) => void;
  processPages?: ProcessPagesFn;
}

interface RunningTask {
  kind: TaskKind;
  controller: AbortController;
  progress: TaskProgress;
}

/** One opened document. */
export interface GuiDocument {
  id: string;
  name: string;
  dir: string;
  inputs: string[];
  inputDir: string;
  opened: OpenedInput;
  preset: PresetChoice;
  status: DocumentStatus;
  revision: number;
  /** Bumped when the page images change (a rerun), so browsers fetch them again. */
  imageRevision: number;
  projectDir?: string;
  manifest?: ProjectManifest;
  task?: RunningTask;
  error?: { code: string; message: string };
  lastTask?: DocumentSummary['lastTask'];
  frames: Map<number, { width: number; height: number }>;
}

/** A file a person gave, saved in the session. */
export interface UploadedFile {
  path: string;
  name: string;
}

/** Upload paths in messages: the file's own name, not the session folder it sits in. */
function inUserWords(message: string, doc: { inputDir: string }): string {
  return message.split(`${doc.inputDir}/`).join('');
}

function userFailure(error: unknown, doc: { inputDir: string }): { code: string; message: string } {
  const failure = failureMessage(error);
  return { code: failure.code, message: inUserWords(failure.message, doc) };
}

function isCancel(error: unknown): boolean {
  return error instanceof QuireError && error.code === ERROR_CODES.CANCELLED;
}

export class DocumentStore {
  readonly #docs = new Map<string, GuiDocument>();
  readonly #options: DocumentStoreOptions;
  readonly #processPages: ProcessPagesFn;

  constructor(options: DocumentStoreOptions) {
    this.#options = options;
    this.#processPages = options.processPages ?? processPages;
  }

  /** A fresh folder for a document's upload, before the document exists. */
  newDocumentDir(): { id: string; dir: string; inputDir: string } {
    const id = randomBytes(6).toString('hex');
    const dir = join(this.#options.sessionDir, 'docs', id);
    return { id, dir, inputDir: join(dir, 'input') };
  }

  /**
   * Open uploaded files as one document: refused at once, in a sentence, when Quire cannot read
   * them (nothing is kept then); else the pipeline starts in the background.
   */
  async open(id: string, dir: string, inputDir: string, files: UploadedFile[]): Promise<DocumentSummary> {
    const paths = files.map((f) => f.path);
    const where = { inputDir };
    let opened: OpenedInput;
    try {
      if (paths.length === 0) throw new HttpError(400, 'missing_file', 'No file was given: choose a scan bundle, a PDF or images.');
      if (paths.length > 1) {
        const other = files.find((f) => inputType(f.path) !== 'image');
        if (other) throw new QuireError(ERROR_CODES.USAGE, `Only image files can be opened together as one document, and ${other.name} is not one.`);
        opened = await openImages(paths);
      } else {
        opened = await openInput(paths[0], files[0].name);
      }
      if (opened.frames.length === 0) {
        await opened.close();
        throw new QuireError(ERROR_CODES.UNSUPPORTED_INPUT, `${files[0].name} holds no page.`);
      }
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      if (e instanceof HttpError) throw e;
      const failure = userFailure(e, where);
      throw new HttpError(failure.code === 'internal' ? 500 : 400, failure.code, failure.message);
    }
    const settings = await this.#options.settings();
    const doc: GuiDocument = {
      id,
      name: opened.name,
      dir,
      inputs: paths,
      inputDir,
      opened,
      preset: settings.preset,
      status: 'working',
      revision: 0,
      imageRevision: 0,
      frames: new Map(),
    };
    this.#docs.set(id, doc);
    this.#background(doc, 'open', (signal, onProgress) => this.#convertInput(doc, settings, signal, onProgress, settings.ocrEngine));
    return this.summary(doc);
  }

  list(): DocumentSummary[] {
    return [...this.#docs.values()].map((d) => this.summary(d));
  }

  get(id: string): GuiDocument {
    const doc = this.#docs.get(id);
    if (!doc) throw notFound('document');
    return doc;
  }

  summary(doc: GuiDocument): DocumentSummary {
    const pages = doc.manifest?.pages ?? [];
    const presets = new Set(pages.map((p) => p.decisions.preset));
    return {
      id: doc.id,
      name: doc.name,
      status: doc.status,
      revision: doc.revision,
      inputs: doc.inputs.map((p) => basename(p)),
      pages: pages.length,
      hiddenPages: pages.filter((p) => p.hidden).length,
      preset: doc.preset,
      ...(presets.size === 1 ? { usedPreset: [...presets][0] } : {}),
      ...(doc.manifest?.ocr ? { ocr: doc.manifest.ocr } : {}),
      ...(doc.task ? { task: doc.task.progress } : {}),
      ...(doc.error ? { error: doc.error } : {}),
      ...(doc.lastTask ? { lastTask: doc.lastTask } : {}),
    };
  }

  detail(doc: GuiDocument): DocumentDetail {
    const pages = doc.manifest?.pages ?? [];
    return { ...this.summary(doc), pageList: pages.map((p) => this.#pageView(doc, p)) };
  }

  #pageView(doc: GuiDocument, p: ProjectPage): PageView {
    const base = `/api/documents/${doc.id}/pages/${p.index}`;
    const split = p.decisions.split;
    return {
      index: p.index,
      width: p.width,
      height: p.height,
      dpi: p.dpi,
      kind: p.kind,
      hidden: p.hidden === true,
      hasText: p.ocr !== undefined,
      source: p.source,
      preset: p.decisions.preset,
      ...(split ? { split: { box: split.box, content: split.content, ...(split.gutterX !== undefined ? { gutterX: split.gutterX } : {}) } } : {}),
      ...(p.decisions.deskew ? { deskew: p.decisions.deskew.angle } : {}),
      ...(p.decisions.dewarp ? { dewarped: p.decisions.dewarp.applied } : {}),
      image: `${base}/image?size=full&v=${doc.imageRevision}`,
      thumb: `${base}/image?size=thumb&v=${doc.imageRevision}`,
    };
  }

  #changed(doc: GuiDocument): void {
    this.#options.onChange(this.summary(doc));
  }

  /** The progress snapshot a task starts from. */
  #startProgress(doc: GuiDocument, kind: TaskKind): TaskProgress {
    const listFrames = (kind === 'open' || kind === 'rerun') && doc.opened.frames.length <= LISTED_FRAMES;
    return {
      kind,
      stage: kind === 'ocr' ? 'ocr' : kind === 'export' ? 'export' : 'pipeline',
      framesTotal: kind === 'open' || kind === 'rerun' ? doc.opened.frames.length : 0,
      ...(listFrames ? { frames: doc.opened.frames.map((f) => ({ index: f.index, input: f.input, done: false })) } : {}),
      framesDone: 0,
      pagesDone: 0,
      started: Date.now(),
    };
  }

  #onProgress(doc: GuiDocument, progress: TaskProgress, event: ProgressEvent): void {
    switch (event.type) {
      case 'frame': {
        progress.stage = 'pipeline';
        progress.framesDone = event.framesDone;
        progress.pagesDone = event.pagesDone;
        const frame = progress.frames?.find((f) => f.input === event.input && !f.done);
        if (frame) frame.done = true;
        break;
      }
      case 'ocr':
        progress.stage = 'ocr';
        progress.ocr = { pagesDone: event.pagesDone, pagesTotal: event.pagesTotal };
        break;
      case 'export':
        progress.stage = 'export';
        break;
      case 'done':
        progress.stage = 'done';
        break;
      default:
        break;
    }
    this.#changed(doc);
  }

  /** Run one task on a document, at most one at a time; its outcome lands in the document's state. */
  async #task<T>(doc: GuiDocument, kind: TaskKind, work: (signal: AbortSignal, onProgress: (e: ProgressEvent) => void) => Promise<T>): Promise<T> {
    if (doc.task) throw busy();
    const controller = new AbortController();
    const progress = this.#startProgress(doc, kind);
    doc.task = { kind, controller, progress };
    doc.status = 'working';
    delete doc.error;
    this.#changed(doc);
    try {
      const result = await work(controller.signal, (e) => this.#onProgress(doc, progress, e));
      doc.status = 'ready';
      doc.lastTask = { kind, outcome: 'done' };
      return result;
    } catch (e) {
      const failure = userFailure(e, doc);
      const cancelled = isCancel(e) || controller.signal.aborted;
      doc.lastTask = { kind, outcome: cancelled ? 'cancelled' : 'failed', message: failure.message };
      // Pages already there stay usable; a document whose first run did not finish has none.
      doc.status = doc.manifest ? 'ready' : cancelled ? 'cancelled' : 'failed';
      if (!cancelled) doc.error = failure;
      throw e;
    } finally {
      delete doc.task;
      doc.revision++;
      this.#changed(doc);
    }
  }

  /** Start a task without waiting for it: its outcome reaches the page through the event stream. */
  #background(doc: GuiDocument, kind: TaskKind, work: (signal: AbortSignal, onProgress: (e: ProgressEvent) => void) => Promise<void>): void {
    if (doc.task) throw busy();
    this.#task(doc, kind, work).catch(() => undefined);
  }

  /** Run the pipeline on the input into a fresh project folder; the old one goes once the new one is whole. */
  async #convertInput(doc: GuiDocument, settings: GuiSettings, signal: AbortSignal, onProgress: (e: ProgressEvent) => void, ocrEngine: string): Promise<void> {
    const projectDir = join(doc.dir, `project-${doc.imageRevision + 1}`);
    try {
      // An engine that cannot run is said before the pipeline's minutes, not after.
      const ocr = ocrEngine !== 'none' ? await readyOcr(ocrEngine, settings.ocrLanguages) : undefined;
      const project = await openDocument(doc.inputs.length === 1 ? doc.inputs[0] : doc.inputs, { projectDir, label: basename(doc.inputs[0]) });
      try {
        await this.#processPages(project, { ...(doc.preset !== 'auto' ? { pipeline: doc.preset } : {}), signal, onProgress });
        if (ocr) await recognize(project, ocr, { signal, onProgress });
      } finally {
        await project.close();
      }
      const old = doc.projectDir;
      doc.projectDir = projectDir;
      doc.manifest = project.manifest;
      doc.imageRevision++;
      if (old) await rm(old, { recursive: true, force: true });
    } catch (e) {
      await rm(projectDir, { recursive: true, force: true });
      throw e;
    }
  }

  /** Make the pages again with another preset (`auto`: the one that fits each input). */
  async rerun(id: string, preset: PresetChoice): Promise<DocumentSummary> {
    const doc = this.get(id);
    if (doc.task) throw busy();
    const settings = await this.#options.settings();
    doc.preset = preset;
    // OCR again only if the pages had it: new pages make the old text wrong.
    const engine = doc.manifest?.ocr ? doc.manifest.ocr.engine : 'none';
    const ocrSettings = doc.manifest?.ocr ? { ...settings, ocrLanguages: doc.manifest.ocr.languages.join('+') } : settings;
    this.#background(doc, 'rerun', (signal, onProgress) => this.#convertInput(doc, ocrSettings, signal, onProgress, engine));
    return this.summary(doc);
  }

  /** Recognise the text of every visible page with this engine and these languages. */
  async recognize(id: string, engine: string, languages: string): Promise<DocumentSummary> {
    const doc = this.get(id);
    const projectDir = this.#projectOf(doc);
    if (engine === 'none') throw new HttpError(400, 'bad_setting', 'Choose an OCR engine to run.');
    const manifest = doc.manifest as ProjectManifest;
    this.#background(doc, 'ocr', async (signal, onProgress) => {
      await recognize({ dir: projectDir, manifest }, await readyOcr(engine, languages), { signal, onProgress });
    });
    return this.summary(doc);
  }

  /** Run `work` as the document's export task, waiting for it (exports answer the request that asked). */
  async exportTask<T>(id: string, work: (doc: GuiDocument, projectDir: string, signal: AbortSignal, onProgress: (e: ProgressEvent) => void) => Promise<T>): Promise<T> {
    const doc = this.get(id);
    const projectDir = this.#projectOf(doc);
    // An export that needs text runs OCR into the document's own manifest first.
    return this.#task(doc, 'export', (signal, onProgress) => work(doc, projectDir, signal, onProgress));
  }

  cancel(id: string): DocumentSummary {
    const doc = this.get(id);
    doc.task?.controller.abort();
    return this.summary(doc);
  }

  #projectOf(doc: GuiDocument): string {
    if (doc.task) throw busy();
    if (!doc.projectDir || !doc.manifest) throw new HttpError(409, 'no_pages', 'This document has no pages yet.');
    return doc.projectDir;
  }

  #page(doc: GuiDocument, index: number): ProjectPage {
    const page = doc.manifest?.pages.find((p) => p.index === index);
    if (!page) throw notFound('page');
    return page;
  }

  /** Hide a page from exports, or show it again; the choice is kept in project.json. */
  async setHidden(id: string, index: number, hidden: boolean): Promise<DocumentSummary> {
    const doc = this.get(id);
    const projectDir = this.#projectOf(doc);
    const manifest = doc.manifest as ProjectManifest;
    const page = this.#page(doc, index);
    if (hidden && !page.hidden && visiblePages(manifest).length === 1) {
      throw new HttpError(409, 'last_page', 'This is the only page left in the exports, so it cannot be hidden too.');
    }
    if (hidden) page.hidden = true;
    else delete page.hidden;
    await saveManifest(projectDir, manifest);
    doc.revision++;
    this.#changed(doc);
    return this.summary(doc);
  }

  /** The path of a page's preview JPEG, rendered on first use. */
  async pagePreview(id: string, index: number, size: PreviewSize): Promise<string> {
    const doc = this.get(id);
    const page = this.#page(doc, index);
    if (!doc.projectDir) throw notFound('page');
    if (page.kind === 'pdf') throw new HttpError(404, 'no_image', 'This page is kept from its PDF as it is and has no page image.');
    const dest = join(doc.dir, 'previews', `r${doc.imageRevision}-p${index}-${size}.jpg`);
    await renderPagePreview(join(doc.projectDir, page.file), dest, size);
    return dest;
  }

  /** A frame of the input: its size in pixels (the space of the page boxes) and where its image is. */
  async frame(id: string, index: number): Promise<FrameView & { path: string }> {
    const doc = this.get(id);
    const frame = doc.opened.frames.find((f) => f.index === index);
    if (!frame) throw notFound('frame');
    const path = join(doc.dir, 'previews', `frame-${index}.jpg`);
    let size = doc.frames.get(index);
    if (!size) {
      size = await renderFramePreview(frame, path);
      doc.frames.set(index, size);
    }
    return { index, input: frame.input, ...size, image: `/api/documents/${doc.id}/frames/${index}/image`, path };
  }

  /** The recognised text of a page, or empty text when OCR has not run on it. */
  async pageText(id: string, index: number): Promise<PageText> {
    const doc = this.get(id);
    const page = this.#page(doc, index);
    if (!page.ocr || !doc.projectDir) return { index, text: '' };
    const ocr = JSON.parse(await readFile(join(doc.projectDir, page.ocr), 'utf8')) as OcrPage;
    return { index, text: ocrPageText(ocr), engine: ocr.engine, languages: ocr.languages };
  }

  /** Close a document: stop its task, release its input, remove its files. */
  async remove(id: string): Promise<void> {
    const doc = this.get(id);
    doc.task?.controller.abort();
    this.#docs.delete(id);
    await doc.opened.close().catch(() => undefined);
    await rm(doc.dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    for (const doc of this.#docs.values()) doc.task?.controller.abort();
    await Promise.all([...this.#docs.values()].map((d) => d.opened.close().catch(() => undefined)));
    this.#docs.clear();
  }
}
