/**
 * One document of the web app as the store holds it (its upload, its project folder, its task, its proofreading
 * counts), and the views the page is sent of it: its summary, its detail, each page.
 */
import { basename } from 'node:path';
import { type OpenedInput, outOfFocus, processPages, type ProgressEvent } from '../convert/index.js';
import { ERROR_CODES, QuireError } from '../errors.js';
import { type OcrWord, type ProjectManifest, type ProjectPage, visiblePages } from '../project/index.js';
import type { DocumentDetail, DocumentStatus, DocumentSummary, ExportResult, PageView, PresetChoice, TaskKind, TaskProgress, WordView } from './api-types.js';
import { markedWord } from './dictionary.js';
import { failureMessage } from './http-errors.js';
import { inInterfaceWords } from './interface-words.js';
import { curlFlattened, pluginSteps } from './page-facts.js';

/** The pipeline verb a document's pages are made with; a test stands in for it. */
export type ProcessPagesFn = typeof processPages;

export interface RunningTask {
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

export type WordCounts = { words: number; doubtful: number; checked: number };

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

export function userFailure(error: unknown, doc: { inputDir: string }): { code: string; message: string } {
  const failure = failureMessage(error);
  return { code: failure.code, message: inInterfaceWords(inUserWords(failure.message, doc)) };
}

export function wordView(word: OcrWord, n: number, known: (text: string) => boolean): WordView {
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

export function isCancel(error: unknown): boolean {
  return error instanceof QuireError && error.code === ERROR_CODES.CANCELLED;
}

/** What the list shows of a document, and the event stream sends. */
export function summaryOf(doc: GuiDocument): DocumentSummary {
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

/** A document with its pages. */
export function detailOf(doc: GuiDocument): DocumentDetail {
  const pages = doc.manifest?.pages ?? [];
  return { ...summaryOf(doc), pageList: pages.map((p) => pageViewOf(doc, p)) };
}

function pageViewOf(doc: GuiDocument, p: ProjectPage): PageView {
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
    ...(split
      ? {
          split: {
            box: split.box,
            content: split.content,
            ...(split.gutterX !== undefined ? { gutterX: split.gutterX } : {}),
            ...(split.handSet ? { handSet: true } : {}),
          },
        }
      : {}),
    ...(p.decisions.deskew ? { deskew: p.decisions.deskew.angle } : {}),
    ...(p.decisions.dewarp ? { dewarped: curlFlattened(p.decisions) } : {}),
    ...(p.decisions.plugins ? { pluginSteps: pluginSteps(p.decisions) } : {}),
    image: `${base}/image?size=full&v=${doc.imageRevision}`,
    thumb: `${base}/image?size=thumb&v=${doc.imageRevision}`,
    ...(doc.counts.has(p.index) ? { proofreading: doc.counts.get(p.index) } : {}),
    ...(outOfFocus(p.decisions.sharpen, p.decisions.scale) ? { outOfFocus: true as const } : {}),
  };
}
