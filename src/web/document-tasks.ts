/**
 * A document's task (open, rerun, OCR, export): at most one at a time, its progress kept stage by stage as the
 * snapshot the event stream sends, and its outcome landing in the document's state all at once when it ends.
 */
import { languageName, type ProgressEvent } from '../convert/index.js';
import type { StageProgress, TaskKind, TaskProgress } from './api-types.js';
import { type GuiDocument, isCancel, type TaskReporter, userFailure } from './document-model.js';
import { busy } from './http-errors.js';
import { countStage, doingStage, endStages, finishStage, noteStage, pageInLanguage, rereadStage, startStage } from './stages.js';

/** Frames listed one by one in the progress panel up to this many; a longer book shows counts. */
const LISTED_FRAMES = 60;

/** A task's work: it stops when `signal` aborts, and tells of its stages through `report`. */
export type TaskWork<T> = (signal: AbortSignal, report: TaskReporter) => Promise<T>;

/** What a task tells the store it runs in. */
export interface TaskHooks {
  /** The document changed: the pages hear of it. */
  changed: (doc: GuiDocument) => void;
  /** Count the words to check again (the task's new text). */
  countWords: (doc: GuiDocument) => Promise<void>;
  /** Write the document's record in the library. */
  keep: (doc: GuiDocument) => Promise<void>;
}

/** The progress snapshot a task starts from, with the stages it plans. */
function startProgress(doc: GuiDocument, kind: TaskKind, stages: StageProgress[]): TaskProgress {
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

function onProgress(doc: GuiDocument, progress: TaskProgress, event: ProgressEvent, changed: (doc: GuiDocument) => void): void {
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
      countStage(progress, 'ocr', event.pagesDone, event.pagesTotal, Date.now(), event.read);
      break;
    case 'ocr-again':
      rereadStage(progress, 'ocr', event.read);
      break;
    case 'ocr-page-language':
      noteStage(progress, 'ocr', pageInLanguage(progress, event.page, event.languages.map(languageName).join(' and ')));
      break;
    case 'ocr-languages':
      doingStage(progress, 'ocr', event.languages ? `in ${event.languages.map(languageName).join(' and ')}` : 'finding the languages on the first pages');
      break;
    case 'ocr-check':
      doingStage(progress, 'ocr', 'checking the words');
      break;
    case 'export':
      progress.stage = 'export';
      finishStage(progress, `write:${event.format}`);
      break;
    default:
      break;
  }
  changed(doc);
}

function reporter(doc: GuiDocument, progress: TaskProgress, changed: (doc: GuiDocument) => void): TaskReporter {
  return {
    onProgress: (e) => onProgress(doc, progress, e, changed),
    start: (key, total) => {
      // New text makes the document unsaved (and its proofreading counts stale, until the task ends).
      if (key === 'ocr') doc.textRevision++;
      startStage(progress, key);
      if (total !== undefined) countStage(progress, key, 0, total);
      progress.stage = key === 'ocr' ? 'ocr' : key.startsWith('send:') ? 'send' : key.startsWith('write:') ? 'export' : 'pipeline';
      changed(doc);
    },
    finish: (key) => {
      finishStage(progress, key);
      changed(doc);
    },
  };
}

/** Run one task on a document, at most one at a time; its outcome lands in the document's state. */
export async function runTask<T>(doc: GuiDocument, kind: TaskKind, stages: StageProgress[], work: TaskWork<T>, hooks: TaskHooks): Promise<T> {
  if (doc.task) throw busy();
  const controller = new AbortController();
  const progress = startProgress(doc, kind, stages);
  doc.task = { kind, controller, progress };
  doc.status = 'working';
  delete doc.error;
  hooks.changed(doc);
  // The outcome lands all at once, when the task is gone: a document never reads as ready while its task still holds it.
  let ended: Pick<GuiDocument, 'status' | 'lastTask' | 'error'> = { status: 'failed', lastTask: { kind, outcome: 'failed' } };
  try {
    const result = await work(controller.signal, reporter(doc, progress, hooks.changed));
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
    await hooks.countWords(doc).catch(() => undefined);
    delete doc.task;
    doc.status = ended.status;
    doc.lastTask = ended.lastTask;
    if (ended.error) doc.error = ended.error;
    doc.revision++;
    hooks.changed(doc);
    await hooks.keep(doc);
  }
}

/** Start a task without waiting for it: its outcome reaches the page through the event stream. */
export function startTask(doc: GuiDocument, kind: TaskKind, stages: StageProgress[], work: TaskWork<unknown>, hooks: TaskHooks): void {
  if (doc.task) throw busy();
  runTask(doc, kind, stages, work, hooks).catch(() => undefined);
}
