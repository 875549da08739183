/**
 * The documents opened in this session. Each keeps its upload, its project folder (the engine's
 * kept folder, so pages, decisions and OCR stay on disk), and at most one running task: open,
 * rerun with another preset, OCR, or export. Tasks run the conversion verbs the CLI runs
 * (`openDocument`, `processPages`, `recognize`, `writeExports`); their progress, stage by stage, is
 * kept as a snapshot the event stream sends to the page. A slim project opens again as a document
 * whose pages are made (no captures to show beside them). Proofreading edits are written into the
 * pages' OCR results, one page at a time.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { inputType, ocrPageText, openDocument, openImages, openInput, outOfFocus, processPages, readyOcr, recognize, type OpenedInput, type ProgressEvent } from '../convert/index.js';
import { ERROR_CODES, QuireError } from '../errors.js';
import { HttpError } from '../http/index.js';
import { type DocumentRecord, readLibrary, removeStaleProjects, saveRecord } from './library.js';
import {
  editWord,
  loadManifest,
  type OcrPage,
  type OcrWord,
  pageWords,
  readOcrPage,
  type ProjectManifest,
  type ProjectPage,
  restoreWord,
  saveManifest,
  visiblePages,
  writeOcrPage,
} from '../project/index.js';
import type {
  DocumentDetail,
  DocumentStatus,
  DocumentSummary,
  ExportResult,
  FrameView,
  GuiSettings,
  PageText,
  PageView,
  PageWords,
  PresetChoice,
  StageProgress,
  TaskKind,
  TaskProgress,
  WordEditResult,
  WordView,
} from './api-types.js';
import { busy, failureMessage, notFound } from './http-errors.js';
import { inInterfaceWords } from './interface-words.js';
import { countsWith, markedWord } from './dictionary.js';
import { curlFlattened, pluginSteps } from './page-facts.js';
import { readPageBoxes } from './page-box-file.js';
import { type PreviewSize, renderFramePreview, renderPagePreview } from './previews.js';
import { countStage, endStages, finishStage, ocrStage, pagesStage, startStage, unpackStage } from './stages.js';

/** Frames listed one by one in the progress panel up to this many; a longer book shows counts. */
const LISTED_FRAMES = 60;

/** The pipeline verb a document's pages are made with; a test stands in for it. */
export type ProcessPagesFn = typeof processPages;

export interface DocumentStoreOptions {
  /** Where documents are kept, between sessions too (`libraryFolder(appData)`): one folder each. */
  libraryDir: string;
  /** The app's defaults, read when a task starts. */
  settings: () => Promise<GuiSettings>;
  /** Hears every change of a document (the event stream). */
  onChange: (summary: DocumentSummary) => void;
  /** Hears that a document was closed. */
  onRemove?: (id: string) => void;
  processPages?: ProcessPagesFn;
  /** Words of the person's dictionary: proofreading does not mark them. */
  knownWord?: (text: string) => boolean;
  /** The person's dictionary as it stands: the correction step leaves its words alone. */
  userWords?: () => readonly string[];
}

interface RunningTask {
  kind: TaskKind;
  controller: AbortController;
  progress: TaskProgress;
}

/** What a task's work reports as it goes: the conversion verbs' events, and the stages it starts and finishes itself. */
export interface TaskReporter {
  onProgress: (event: ProgressEvent) => void;
  /** Stage `key` runs now (the stages before it are done); a counted one may say its `total` from the start. */
  start: (key: string, total?: number) => void;
  finish: (key: string) => void;
}

type WordCounts = { words: number; doubtful: number; checked: number };

/** One opened document. */
export interface GuiDocument {
  id: string;
  name: string;
  dir: string;
  inputs: string[];
  inputDir: string;
  /** The input's frames; null for a slim project opened again (its pages are made, its captures are not in it). */
  opened: OpenedInput | null;
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
  openedAt: number;
  /** Bumped when the text changes (OCR, an edit); an export that succeeds records the one it took. */
  textRevision: number;
  exportedTextRevision: number;
  lastExport?: ExportResult;
  /** Files this document wrote into the export folder: exporting again replaces them, and never another document's. */
  written: Set<string>;
  /** Proofreading counts of each page with text, by page index; filled when a task ends, kept by each edit. */
  counts: Map<number, WordCounts>;
  /** Edits of one document's OCR files run one after another. */
  editing: Promise<unknown>;
  /** Its record in the library is written one write after another. */
  keeping: Promise<unknown>;
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
  return { code: failure.code, message: inInterfaceWords(inUserWords(failure.message, doc)) };
}

function wordView(word: OcrWord, n: number, known: (text: string) => boolean): WordView {
  return {
    n,
    text: word.text,
    box: word.box,
    confidence: word.confidence,
    doubtful: markedWord(word, known),
    ...(word.correction ? { correction: word.correction } : {}),
    ...(word.edit ? { edit: word.edit } : {}),
  };
}

function sumCounts(counts: Iterable<WordCounts>): WordCounts {
  const total = { words: 0, doubtful: 0, checked: 0 };
  for (const c of counts) {
    total.words += c.words;
    total.doubtful += c.doubtful;
    total.checked += c.checked;
  }
  return total;
}

function isCancel(error: unknown): boolean {
  return error instanceof QuireError && error.code === ERROR_CODES.CANCELLED;
}

export class DocumentStore {
  readonly #docs = new Map<string, GuiDocument>();
  readonly #options: DocumentStoreOptions;
  readonly #processPages: ProcessPagesFn;
  readonly #known: (text: string) => boolean;

  constructor(options: DocumentStoreOptions) {
    this.#options = options;
    this.#processPages = options.processPages ?? processPages;
    this.#known = options.knownWord ?? (() => false);
  }

  /** The person's dictionary changed: every document counts its words to check again, and the pages hear of it. */
  async recount(): Promise<void> {
    for (const doc of this.#docs.values()) {
      if (doc.task) continue; // its counts are made when the task ends
      await this.#countWords(doc);
      doc.revision++;
      this.#changed(doc);
    }
  }

  /** A fresh folder for a document's upload, before the document exists. */
  newDocumentDir(): { id: string; dir: string; inputDir: string } {
    const id = randomBytes(6).toString('hex');
    const dir = join(this.#options.libraryDir, id);
    return { id, dir, inputDir: join(dir, 'input') };
  }

  /**
   * Open uploaded files as one document: refused at once, in a sentence, when Quire cannot read
   * them (nothing is kept then); else the pipeline starts in the background.
   */
  async open(id: string, dir: string, inputDir: string, files: UploadedFile[]): Promise<DocumentSummary> {
    const paths = files.map((f) => f.path);
    const where = { inputDir };
    let opened: OpenedInput | null;
    try {
      if (paths.length === 0) throw new HttpError(400, 'missing_file', 'No file was given: choose a scan bundle, a PDF or images.');
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
    const settings = await this.#options.settings();
    const doc: GuiDocument = {
      id,
      name: opened?.name ?? files[0].name.replace(/\.quire$/i, ''),
      dir,
      inputs: paths,
      inputDir,
      opened,
      preset: settings.preset,
      status: 'working',
      revision: 0,
      imageRevision: 0,
      frames: new Map(),
      openedAt: Date.now(),
      textRevision: 0,
      exportedTextRevision: 0,
      written: new Set(),
      counts: new Map(),
      editing: Promise.resolve(),
      keeping: Promise.resolve(),
    };
    this.#docs.set(id, doc);
    await this.#keep(doc);
    this.#background(doc, 'open', this.#convertPlan(doc, settings.ocrEngine), (signal, report) => this.#convertInput(doc, settings, signal, report, settings.ocrEngine));
    return this.summary(doc);
  }

  /** The stages of making a document's pages: from its frames (or unpacking a project), then OCR when an engine is chosen. */
  #convertPlan(doc: GuiDocument, ocrEngine: string): StageProgress[] {
    const first = doc.opened ? pagesStage(doc.opened.frames.length) : unpackStage();
    return ocrEngine !== 'none' ? [first, ocrStage()] : [first];
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
    const counted = (doc.manifest ? visiblePages(doc.manifest) : []).flatMap((p) => doc.counts.get(p.index) ?? []);
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
      openedAt: doc.openedAt,
      hasCaptures: doc.opened !== null,
      unsaved: doc.manifest?.ocr !== undefined && doc.textRevision !== doc.exportedTextRevision,
      ...(counted.length > 0 ? { proofreading: sumCounts(counted) } : {}),
      ...(doc.lastExport ? { lastExport: doc.lastExport } : {}),
    };
  }

  detail(doc: GuiDocument): DocumentDetail {
    const pages = doc.manifest?.pages ?? [];
    return { ...this.summary(doc), pageList: pages.map((p) => this.#pageView(doc, p)) };
  }

  /** An export finished: what it wrote or sent is the document's last export, and its text counts as saved. */
  exported(doc: GuiDocument, result: ExportResult, textRevision: number): void {
    doc.lastExport = result;
    const delivered = result.kind === 'files' ? (result.files ?? []).length > 0 : (result.sends ?? []).some((s) => s.ok);
    if (delivered) doc.exportedTextRevision = textRevision;
    void this.#keep(doc);
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
      ...(split ? { split: { box: split.box, content: split.content, ...(split.gutterX !== undefined ? { gutterX: split.gutterX } : {}), ...(split.handSet ? { handSet: true } : {}) } } : {}),
      ...(p.decisions.deskew ? { deskew: p.decisions.deskew.angle } : {}),
      ...(p.decisions.dewarp ? { dewarped: curlFlattened(p.decisions) } : {}),
      ...(p.decisions.plugins ? { pluginSteps: pluginSteps(p.decisions) } : {}),
      image: `${base}/image?size=full&v=${doc.imageRevision}`,
      thumb: `${base}/image?size=thumb&v=${doc.imageRevision}`,
      ...(doc.counts.has(p.index) ? { proofreading: doc.counts.get(p.index) } : {}),
      ...(outOfFocus(p.decisions.sharpen, p.decisions.scale) ? { outOfFocus: true as const } : {}),
    };
  }

  #changed(doc: GuiDocument): void {
    this.#options.onChange(this.summary(doc));
  }

  /** Write the document's record in the library (after the ones asked before): what a restart lists again. */
  #keep(doc: GuiDocument): Promise<void> {
    const record: DocumentRecord = {
      format: 'quire-gui-document',
      version: 1,
      id: doc.id,
      name: doc.name,
      inputs: doc.inputs.map((p) => basename(p)),
      preset: doc.preset,
      openedAt: doc.openedAt,
      ...(doc.projectDir ? { project: relative(doc.dir, doc.projectDir).split(sep).join('/') } : {}),
      imageRevision: doc.imageRevision,
      textRevision: doc.textRevision,
      exportedTextRevision: doc.exportedTextRevision,
      written: [...doc.written],
      ...(doc.lastExport ? { lastExport: doc.lastExport } : {}),
    };
    // A document closed meanwhile is not written back. A record that cannot be written (a full disk) leaves the
    // previous one: the pages and corrections themselves are in the project folder already.
    doc.keeping = doc.keeping.then(() => (this.#docs.get(doc.id) === doc ? saveRecord(doc.dir, record) : undefined)).catch(() => undefined);
    return doc.keeping as Promise<void>;
  }

  /**
   * List again the documents kept from earlier sessions: each with its pages, hidden pages, corrections and
   * preset as they were. A document whose first pages were never made (Quire stopped while opening it) comes back
   * as cancelled, ready to be made with Rerun. `offer` makes the last export's files downloadable again.
   */
  async restore(offer: (path: string, fileName: string) => string): Promise<{ restored: number; skipped: string[] }> {
    const { kept, skipped } = await readLibrary(this.#options.libraryDir);
    for (const { record, dir } of kept) {
      const inputDir = join(dir, 'input');
      const inputs = record.inputs.map((name) => join(inputDir, name));
      const projectDir = record.project ? join(dir, record.project) : undefined;
      await removeStaleProjects(dir, record.project);
      const manifest = projectDir ? await loadManifest(projectDir).catch(() => undefined) : undefined;
      const opened = await this.#reopen(inputs).catch(() => null);
      const lastExport = record.lastExport?.files && record.lastExport.folder ? { ...record.lastExport, files: record.lastExport.files.map((f) => ({ ...f, url: offer(join(record.lastExport?.folder ?? '', f.fileName), f.fileName) })) } : record.lastExport;
      const doc: GuiDocument = {
        id: record.id,
        name: record.name,
        dir,
        inputs,
        inputDir,
        opened,
        preset: record.preset,
        status: manifest ? 'ready' : 'cancelled',
        revision: 0,
        imageRevision: record.imageRevision,
        frames: new Map(),
        openedAt: record.openedAt,
        textRevision: record.textRevision,
        exportedTextRevision: record.exportedTextRevision,
        written: new Set(record.written),
        counts: new Map(),
        editing: Promise.resolve(),
        keeping: Promise.resolve(),
        ...(lastExport ? { lastExport } : {}),
        ...(manifest && projectDir ? { manifest, projectDir } : { lastTask: { kind: 'open' as const, outcome: 'cancelled' as const, message: 'Quire was stopped before its pages were made.' } }),
      };
      await this.#countWords(doc).catch(() => undefined);
      this.#docs.set(doc.id, doc);
    }
    return { restored: kept.length, skipped };
  }

  /** The captures of a kept document, opened again (null for a slim project, which has none). */
  async #reopen(inputs: string[]): Promise<OpenedInput | null> {
    if (inputs.length === 1 && inputType(inputs[0]) === 'project') return null;
    return inputs.length > 1 ? openImages(inputs) : openInput(inputs[0], basename(inputs[0]));
  }

  /** The documents with corrections (words checked or changed by a person) made since their last export. */
  unexported(): DocumentSummary[] {
    return this.list().filter((d) => d.unsaved && (d.proofreading?.checked ?? 0) > 0);
  }

  /** The progress snapshot a task starts from, with the stages it plans. */
  #startProgress(doc: GuiDocument, kind: TaskKind, stages: StageProgress[]): TaskProgress {
    const frames = (kind === 'open' || kind === 'rerun') && doc.opened ? doc.opened.frames : [];
    return {
      kind,
      stages,
      stage: kind === 'ocr' ? 'ocr' : kind === 'export' ? 'export' : 'pipeline',
      framesTotal: frames.length,
      ...(frames.length > 0 && frames.length <= LISTED_FRAMES ? { frames: frames.map((f) => ({ index: f.index, input: f.input, done: false })) } : {}),
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
        countStage(progress, 'pages', event.framesDone, event.framesTotal);
        break;
      }
      case 'ocr':
        progress.stage = 'ocr';
        progress.ocr = { pagesDone: event.pagesDone, pagesTotal: event.pagesTotal };
        countStage(progress, 'ocr', event.pagesDone, event.pagesTotal);
        break;
      case 'export':
        progress.stage = 'export';
        finishStage(progress, `write:${event.format}`);
        break;
      default:
        break;
    }
    this.#changed(doc);
  }

  #reporter(doc: GuiDocument, progress: TaskProgress): TaskReporter {
    return {
      onProgress: (e) => this.#onProgress(doc, progress, e),
      start: (key, total) => {
        // New text makes the document unsaved (and its proofreading counts stale, until the task ends).
        if (key === 'ocr') doc.textRevision++;
        startStage(progress, key);
        if (total !== undefined) countStage(progress, key, 0, total);
        progress.stage = key === 'ocr' ? 'ocr' : key.startsWith('send:') ? 'send' : key.startsWith('write:') ? 'export' : 'pipeline';
        this.#changed(doc);
      },
      finish: (key) => {
        finishStage(progress, key);
        this.#changed(doc);
      },
    };
  }

  /** Run one task on a document, at most one at a time; its outcome lands in the document's state. */
  async #task<T>(doc: GuiDocument, kind: TaskKind, stages: StageProgress[], work: (signal: AbortSignal, report: TaskReporter) => Promise<T>): Promise<T> {
    if (doc.task) throw busy();
    const controller = new AbortController();
    const progress = this.#startProgress(doc, kind, stages);
    doc.task = { kind, controller, progress };
    doc.status = 'working';
    delete doc.error;
    this.#changed(doc);
    // The outcome lands all at once, when the task is gone: a document never reads as ready while its task still holds it.
    let ended: Pick<GuiDocument, 'status' | 'lastTask' | 'error'> = { status: 'failed', lastTask: { kind, outcome: 'failed' } };
    try {
      const result = await work(controller.signal, this.#reporter(doc, progress));
      endStages(progress, true);
      ended = { status: 'ready', lastTask: { kind, outcome: 'done' } };
      return result;
    } catch (e) {
      endStages(progress, false);
      const failure = userFailure(e, doc);
      const cancelled = isCancel(e) || controller.signal.aborted;
      // Pages already there stay usable; a document whose first run did not finish has none.
      ended = {
        status: doc.manifest ? 'ready' : cancelled ? 'cancelled' : 'failed',
        lastTask: { kind, outcome: cancelled ? 'cancelled' : 'failed', message: failure.message },
        ...(cancelled ? {} : { error: failure }),
      };
      throw e;
    } finally {
      await this.#countWords(doc).catch(() => undefined);
      delete doc.task;
      doc.status = ended.status;
      doc.lastTask = ended.lastTask;
      if (ended.error) doc.error = ended.error;
      doc.revision++;
      this.#changed(doc);
      await this.#keep(doc);
    }
  }

  /** Start a task without waiting for it: its outcome reaches the page through the event stream. */
  #background(doc: GuiDocument, kind: TaskKind, stages: StageProgress[], work: (signal: AbortSignal, report: TaskReporter) => Promise<unknown>): void {
    if (doc.task) throw busy();
    this.#task(doc, kind, stages, work).catch(() => undefined);
  }

  /** Count the words of every page with text again (after OCR, a rerun, a reopened project). */
  async #countWords(doc: GuiDocument): Promise<void> {
    doc.counts.clear();
    if (!doc.projectDir || !doc.manifest) return;
    for (const page of doc.manifest.pages) {
      if (!page.ocr || page.kind === 'pdf') continue;
      doc.counts.set(page.index, countsWith(await this.#readOcr(doc.projectDir, page), this.#known));
    }
  }

  #readOcr(projectDir: string, page: ProjectPage): Promise<OcrPage> {
    return readOcrPage(projectDir, page.ocr as string, page.index);
  }

  /** Make the pages in a fresh project folder (the pipeline on the input, or a slim project unpacked); the old folder goes once the new one is whole. */
  async #convertInput(doc: GuiDocument, settings: GuiSettings, signal: AbortSignal, report: TaskReporter, ocrEngine: string): Promise<void> {
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
      const project = await openDocument(doc.inputs.length === 1 ? doc.inputs[0] : doc.inputs, { projectDir, label: basename(doc.inputs[0]), keepTextPages, ...lent });
      try {
        // Pages set by hand stay set (`page-boxes.ts`).
        if (doc.opened) await this.#processPages(project, { ...(doc.preset !== 'auto' ? { pipeline: doc.preset } : {}), pageBoxes: await readPageBoxes(doc.dir), signal, onProgress });
        else report.finish('unpack');
        // A reopened project keeps the text it has.
        if (ocr && !(doc.opened === null && project.manifest.ocr)) {
          // A document opened for the first time shows its pages now, not after the OCR's minutes.
          if (!doc.projectDir) this.#showPages(doc, project);
          report.start('ocr', visiblePages(project.manifest).filter((p) => p.kind !== 'pdf').length);
          await recognize(project, ocr, { signal, onProgress, userWords: this.#options.userWords?.() ?? [] });
        }
      } finally {
        await project.close();
      }
      const old = doc.projectDir === project.dir ? undefined : doc.projectDir;
      this.#showPages(doc, project);
      if (old) await rm(old, { recursive: true, force: true });
    } catch (e) {
      // Pages already shown stay (a cancelled OCR leaves them without text); others go.
      if (doc.projectDir !== projectDir) await rm(projectDir, { recursive: true, force: true });
      throw e;
    }
  }

  /** The project's pages are the document's from now on (once per project folder). */
  #showPages(doc: GuiDocument, project: { dir: string; manifest: ProjectManifest }): void {
    if (doc.projectDir === project.dir) return;
    doc.projectDir = project.dir;
    doc.manifest = project.manifest;
    if (!doc.opened) doc.name = project.manifest.name;
    doc.imageRevision++;
    doc.revision++;
    this.#changed(doc);
    // Pages shown are pages kept: Quire stopped during the OCR lists them again.
    void this.#keep(doc);
  }

  /** Make the pages again with another preset (`auto`: the one that fits each input). */
  async rerun(id: string, preset: PresetChoice): Promise<DocumentSummary> {
    const doc = this.get(id);
    if (doc.task) throw busy();
    if (!doc.opened && doc.manifest) throw new HttpError(409, 'no_captures', 'This document was opened from a slim project: its pages are made, and the captures they came from are not in it.');
    const settings = await this.#options.settings();
    doc.preset = preset;
    // OCR again only if the pages had it: new pages make the old text wrong.
    const engine = doc.manifest?.ocr ? doc.manifest.ocr.engine : 'none';
    const ocrSettings = doc.manifest?.ocr ? { ...settings, ocrLanguages: doc.manifest.ocr.languages.join('+') } : settings;
    this.#background(doc, 'rerun', this.#convertPlan(doc, engine), (signal, report) => this.#convertInput(doc, ocrSettings, signal, report, engine));
    return this.summary(doc);
  }

  /** Run `work` as the document's task of this kind, in the background (a frame set by hand, made again: `page-boxes.ts`). */
  startTask(id: string, kind: TaskKind, stages: StageProgress[], work: (doc: GuiDocument, signal: AbortSignal, report: TaskReporter) => Promise<void>): DocumentSummary {
    const doc = this.get(id);
    this.#background(doc, kind, stages, (signal, report) => work(doc, signal, report));
    return this.summary(doc);
  }

  /** Recognise the text of every visible page with this engine and these languages. */
  async recognize(id: string, engine: string, languages: string): Promise<DocumentSummary> {
    const doc = this.get(id);
    const projectDir = this.#projectOf(doc);
    if (engine === 'none') throw new HttpError(400, 'bad_setting', 'Choose an OCR engine to run.');
    const manifest = doc.manifest as ProjectManifest;
    this.#background(doc, 'ocr', [ocrStage()], async (signal, report) => {
      const spec = await readyOcr(engine, languages);
      report.start('ocr', visiblePages(manifest).filter((p) => p.kind !== 'pdf').length);
      await recognize({ dir: projectDir, manifest }, spec, { signal, onProgress: report.onProgress, userWords: this.#options.userWords?.() ?? [] });
    });
    return this.summary(doc);
  }

  /**
   * Start `work` as the document's export task, with the stages it plans; what it wrote or sent becomes the
   * document's last export, and the page hears of it through the event stream.
   */
  exportTask(id: string, stages: StageProgress[], work: (doc: GuiDocument, projectDir: string, signal: AbortSignal, report: TaskReporter) => Promise<ExportResult>): DocumentSummary {
    const doc = this.get(id);
    const projectDir = this.#projectOf(doc);
    this.#background(doc, 'export', stages, async (signal, report) => {
      const result = await work(doc, projectDir, signal, report);
      const progress = doc.task?.progress;
      if (progress) endStages(progress, true);
      // Edits wait while a task runs, so the text exported is the document's text now (OCR run first included).
      this.exported(doc, { ...result, stages: progress ? progress.stages.map((s) => ({ ...s })) : result.stages }, doc.textRevision);
    });
    return this.summary(doc);
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
    await this.#keep(doc);
    return this.summary(doc);
  }

  /** A page's recognised words, line by line, with what proofreading needs to know of each. */
  async pageWords(id: string, index: number): Promise<PageWords> {
    const doc = this.get(id);
    const page = this.#page(doc, index);
    if (!page.ocr || !doc.projectDir) throw new HttpError(404, 'no_text', `Page ${index} has no recognised text yet; run OCR from the OCR panel first.`);
    if (page.kind === 'pdf') throw new HttpError(409, 'kept_page', `Page ${index} is kept from its PDF with the text it had, so there is nothing to proofread.`);
    const ocr = await this.#readOcr(doc.projectDir, page);
    const lines: PageWords['lines'] = [];
    let n = 0;
    let paragraph = 0;
    for (const block of ocr.blocks) {
      for (const para of block.paragraphs) {
        for (const line of para.lines) lines.push({ paragraph, words: line.words.map((w) => wordView(w, n++, this.#known)) });
        paragraph++;
      }
    }
    return { index, width: ocr.width, height: ocr.height, engine: ocr.engine, languages: ocr.languages, lines, ...countsWith(ocr, this.#known) };
  }

  /**
   * A person's reading of word `n` on a page (`restore`: back to the text before their edit), written into the
   * page's OCR result, where every export reads it. `was` is the text they saw: if the word reads otherwise now
   * (OCR ran again meanwhile), nothing is written.
   */
  async editWord(id: string, index: number, n: number, change: { text?: string; was: string; restore?: boolean }): Promise<WordEditResult> {
    const doc = this.get(id);
    const projectDir = this.#projectOf(doc);
    const page = this.#page(doc, index);
    if (!page.ocr) throw new HttpError(404, 'no_text', `Page ${index} has no recognised text yet; run OCR from the OCR panel first.`);
    if (page.kind === 'pdf') throw new HttpError(409, 'kept_page', `Page ${index} is kept from its PDF with the text it had, so there is nothing to proofread.`);
    const run = doc.editing.then(async (): Promise<WordEditResult> => {
      const ocr = await this.#readOcr(projectDir, page);
      const current = pageWords(ocr)[n];
      if (!current) throw new HttpError(404, 'not_found', `Page ${index} has no word number ${n}.`);
      if (current.text !== change.was) throw new HttpError(409, 'changed', `This word now reads "${current.text}", not "${change.was}"; look at it again before changing it.`);
      if (change.restore) restoreWord(ocr, n);
      else if (change.text !== undefined) editWord(ocr, n, change.text);
      else throw new HttpError(400, 'bad_request', 'Give the new text of the word, or ask to restore it.');
      await writeOcrPage(projectDir, page.ocr as string, ocr);
      const counts = countsWith(ocr, this.#known);
      doc.counts.set(index, counts);
      doc.textRevision++;
      doc.revision++;
      this.#changed(doc);
      await this.#keep(doc);
      return { word: wordView(pageWords(ocr)[n], n, this.#known), page: counts };
    });
    doc.editing = run.catch(() => undefined);
    return run;
  }

  /** The path of a page's preview JPEG, rendered on first use. */
  async pagePreview(id: string, index: number, size: PreviewSize): Promise<string> {
    const doc = this.get(id);
    const page = this.#page(doc, index);
    if (!doc.projectDir) throw notFound('page');
    // A page kept from its PDF is shown as the PDF page it is.
    if (page.kind === 'pdf' && !doc.opened) throw new HttpError(404, 'no_image', 'This page is kept from its PDF as it is and has no page image.');
    const source = page.kind === 'pdf' ? (await this.frame(id, page.source.frame)).path : join(doc.projectDir, page.file);
    const dest = join(doc.dir, 'previews', `r${doc.imageRevision}-p${index}-${size}.jpg`);
    await renderPagePreview(source, dest, size);
    return dest;
  }

  /** A frame of the input: its size in pixels (the space of the page boxes) and where its image is. */
  async frame(id: string, index: number): Promise<FrameView & { path: string }> {
    const doc = this.get(id);
    if (!doc.opened) throw new HttpError(404, 'no_captures', 'This document was opened from a slim project, which keeps the pages but not the captures they came from.');
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
    const ocr = await readOcrPage(doc.projectDir, page.ocr, index);
    return { index, text: ocrPageText(ocr), engine: ocr.engine, languages: ocr.languages };
  }

  /** Close a document: stop its task, release its input, remove its files. */
  async remove(id: string): Promise<void> {
    const doc = this.get(id);
    doc.task?.controller.abort();
    this.#docs.delete(id);
    this.#options.onRemove?.(id);
    await doc.keeping;
    await doc.opened?.close().catch(() => undefined);
    await rm(doc.dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    for (const doc of this.#docs.values()) doc.task?.controller.abort();
    await Promise.all([...this.#docs.values()].map((d) => d.opened?.close().catch(() => undefined)));
    this.#docs.clear();
  }
}
