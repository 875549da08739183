/**
 * The documents opened in this session. Each keeps its upload, its project folder (the engine's
 * kept folder, so pages, decisions and OCR stay on disk), and at most one running task: open,
 * rerun with another preset, OCR, or export. Tasks run the conversion verbs the CLI runs
 * (`openDocument`, `processPages`, `recognize`, `writeExports`); their progress, stage by stage, is
 * kept as a snapshot the event stream sends to the page. A slim project opens again as a document
 * whose pages are made (no captures to show beside them). Proofreading edits are written into the
 * pages' OCR results, one page at a time. This file is the registry of open documents; what happens to one lives
 * beside it: `document-model.ts` (its shape and views), `document-open.ts` (opening, making pages),
 * `document-tasks.ts` (a task and its progress), `document-pages.ts` (previews, text, proofreading edits),
 * `document-records.ts` (its record in the library).
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { processPages, readyOcr, recognize } from '../convert/index.js';
import { httpError } from '../http/index.js';
import { type ProjectManifest, saveManifest, visiblePages } from '../project/index.js';
import type {
  DocumentDetail,
  DocumentSummary,
  ExportResult,
  FrameView,
  GuiSettings,
  PageText,
  PageWords,
  PresetChoice,
  StageProgress,
  TaskKind,
  WordEditResult,
} from './api-types.js';
import { detailOf, type GuiDocument, type ProcessPagesFn, summaryOf, type TaskReporter, type UploadedFile } from './document-model.js';
import { type ConvertDeps, convertInput, convertPlan, openUploads } from './document-open.js';
import { countWords, editWordOf, frameOf, pageOf, pagePreviewOf, pageTextOf, pageWordsOf, projectOf, type WordChange } from './document-pages.js';
import { recordOf, restoredDocument } from './document-records.js';
import { startTask, type TaskHooks, type TaskWork } from './document-tasks.js';
import { busy, notFound } from './http-errors.js';
import { readLibrary, saveRecord } from './library.js';
import type { PreviewSize } from './previews.js';
import { endStages, ocrStage } from './stages.js';

export type { GuiDocument, ProcessPagesFn, TaskReporter, UploadedFile } from './document-model.js';

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

export class DocumentStore {
  readonly #docs = new Map<string, GuiDocument>();
  readonly #options: DocumentStoreOptions;
  readonly #processPages: ProcessPagesFn;
  readonly #known: (text: string) => boolean;
  readonly #hooks: TaskHooks;
  readonly #convertDeps: ConvertDeps;

  constructor(options: DocumentStoreOptions) {
    this.#options = options;
    this.#processPages = options.processPages ?? processPages;
    this.#known = options.knownWord ?? (() => false);
    this.#hooks = { changed: (doc) => this.#changed(doc), countWords: (doc) => countWords(doc, this.#known), keep: (doc) => this.#keep(doc) };
    this.#convertDeps = {
      processPages: this.#processPages,
      userWords: () => this.#options.userWords?.() ?? [],
      showPages: (doc, project) => this.#showPages(doc, project),
    };
  }

  /** The person's dictionary changed: every document counts its words to check again, and the pages hear of it. */
  async recount(): Promise<void> {
    for (const doc of this.#docs.values()) {
      if (doc.task) continue; // its counts are made when the task ends
      await countWords(doc, this.#known);
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
    const opened = await openUploads(dir, inputDir, files);
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
    this.#background(doc, 'open', convertPlan(doc, settings.ocrEngine), (signal, report) =>
      convertInput(doc, settings, signal, report, settings.ocrEngine, this.#convertDeps),
    );
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
    return summaryOf(doc);
  }

  detail(doc: GuiDocument): DocumentDetail {
    return detailOf(doc);
  }

  /** An export finished: what it wrote or sent is the document's last export, and its text counts as saved. */
  exported(doc: GuiDocument, result: ExportResult, textRevision: number): void {
    doc.lastExport = result;
    const delivered = result.kind === 'files' ? (result.files ?? []).length > 0 : (result.sends ?? []).some((s) => s.ok);
    if (delivered) doc.exportedTextRevision = textRevision;
    void this.#keep(doc);
  }

  #changed(doc: GuiDocument): void {
    this.#options.onChange(this.summary(doc));
  }

  /** Write the document's record in the library (after the ones asked before): what a restart lists again. */
  #keep(doc: GuiDocument): Promise<void> {
    const record = recordOf(doc);
    // A document closed meanwhile is not written back. A record that cannot be written (a full disk) leaves the
    // previous one: the pages and corrections themselves are in the project folder already.
    doc.keeping = doc.keeping.then(() => (this.#docs.get(doc.id) === doc ? saveRecord(doc.dir, record) : undefined)).catch(() => undefined);
    return doc.keeping as Promise<void>;
  }

  /** List again the documents kept from earlier sessions, each as it was (see `restoredDocument`). */
  async restore(offer: (path: string, fileName: string) => string): Promise<{ restored: number; skipped: string[] }> {
    const { kept, skipped } = await readLibrary(this.#options.libraryDir);
    for (const entry of kept) {
      const doc = await restoredDocument(entry, offer);
      await countWords(doc, this.#known).catch(() => undefined);
      this.#docs.set(doc.id, doc);
    }
    return { restored: kept.length, skipped };
  }

  /** The documents with corrections (words checked or changed by a person) made since their last export. */
  unexported(): DocumentSummary[] {
    return this.list().filter((d) => d.unsaved && (d.proofreading?.checked ?? 0) > 0);
  }

  /** Start a task without waiting for it: its outcome reaches the page through the event stream. */
  #background(doc: GuiDocument, kind: TaskKind, stages: StageProgress[], work: TaskWork<unknown>): void {
    startTask(doc, kind, stages, work, this.#hooks);
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
    if (!doc.opened && doc.manifest) throw httpError('slim_project');
    const settings = await this.#options.settings();
    doc.preset = preset;
    // OCR again only if the pages had it: new pages make the old text wrong.
    const engine = doc.manifest?.ocr ? doc.manifest.ocr.engine : 'none';
    const ocrSettings = doc.manifest?.ocr ? { ...settings, ocrLanguages: doc.manifest.ocr.languages.join('+') } : settings;
    this.#background(doc, 'rerun', convertPlan(doc, engine), (signal, report) => convertInput(doc, ocrSettings, signal, report, engine, this.#convertDeps));
    return this.summary(doc);
  }

  /** Run `work` as the document's task of this kind, in the background (a frame set by hand, made again: `page-boxes.ts`). */
  startTask(
    id: string,
    kind: TaskKind,
    stages: StageProgress[],
    work: (doc: GuiDocument, signal: AbortSignal, report: TaskReporter) => Promise<void>,
  ): DocumentSummary {
    const doc = this.get(id);
    this.#background(doc, kind, stages, (signal, report) => work(doc, signal, report));
    return this.summary(doc);
  }

  /** Recognise the text of every visible page with this engine and these languages. */
  async recognize(id: string, engine: string, languages: string): Promise<DocumentSummary> {
    const doc = this.get(id);
    const projectDir = projectOf(doc);
    if (engine === 'none') throw httpError('bad_setting', 'Choose an OCR engine to run.');
    const manifest = doc.manifest as ProjectManifest;
    this.#background(doc, 'ocr', [ocrStage()], async (signal, report) => {
      const spec = await readyOcr(engine, languages);
      report.start('ocr', visiblePages(manifest).filter((p) => p.kind !== 'pdf').length);
      await recognize({ dir: projectDir, manifest }, spec, {
        signal,
        onProgress: report.onProgress,
        timeLeft: true,
        userWords: this.#options.userWords?.() ?? [],
      });
    });
    return this.summary(doc);
  }

  /**
   * Start `work` as the document's export task, with the stages it plans; what it wrote or sent becomes the
   * document's last export, and the page hears of it through the event stream.
   */
  exportTask(
    id: string,
    stages: StageProgress[],
    work: (doc: GuiDocument, projectDir: string, signal: AbortSignal, report: TaskReporter) => Promise<ExportResult>,
  ): DocumentSummary {
    const doc = this.get(id);
    const projectDir = projectOf(doc);
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

  /** Hide a page from exports, or show it again; the choice is kept in project.json. */
  async setHidden(id: string, index: number, hidden: boolean): Promise<DocumentSummary> {
    const doc = this.get(id);
    const projectDir = projectOf(doc);
    const manifest = doc.manifest as ProjectManifest;
    const page = pageOf(doc, index);
    if (hidden && !page.hidden && visiblePages(manifest).length === 1) {
      throw httpError('last_page', 'This is the only page left in the exports, so it cannot be hidden too.');
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
    return pageWordsOf(this.get(id), index, this.#known);
  }

  /** A person's reading of word `n` on a page, written into the page's OCR result (see `editWordOf`). */
  async editWord(id: string, index: number, n: number, change: WordChange): Promise<WordEditResult> {
    return editWordOf(this.get(id), index, n, change, { known: this.#known, changed: (d) => this.#changed(d), keep: (d) => this.#keep(d) });
  }

  /** The path of a page's preview JPEG, rendered on first use. */
  async pagePreview(id: string, index: number, size: PreviewSize): Promise<string> {
    return pagePreviewOf(this.get(id), index, size);
  }

  /** A frame of the input: its size in pixels (the space of the page boxes) and where its image is. */
  async frame(id: string, index: number): Promise<FrameView & { path: string }> {
    return frameOf(this.get(id), index);
  }

  /** The recognised text of a page, or empty text when OCR has not run on it. */
  async pageText(id: string, index: number): Promise<PageText> {
    return pageTextOf(this.get(id), index);
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
