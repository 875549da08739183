/**
 * A task's stages as the progress panel shows them: planned when the task starts (making the pages, OCR, writing
 * each format, sending to each destination), then started, counted and finished as the work reports; the time
 * left is estimated from the running stage's own pace, measured between units done (see `secondsLeft`).
 */
import type { OcrPagesRead } from '../convert/index.js';
import type { StageProgress, TaskProgress } from './api-types.js';
import { type PagesRead, recordAgain, recordRead, timeLeftByWork } from './time-left.js';

/** Per counted stage, the pages read with their work (OCR with the engine's per-page reports): see `time-left.ts`. */
const pagesRead = new WeakMap<StageProgress, PagesRead>();

/** Titles of the formats, as a person names them. */
export const FORMAT_TITLES: Record<string, string> = { pdf: 'PDF', md: 'Markdown', epub: 'EPUB', textpack: 'OCR textpack', slim: 'Slim project' };

export function pagesStage(frames: number): StageProgress {
  return { key: 'pages', label: 'Making the pages', state: 'waiting', done: 0, total: frames, unit: 'frame' };
}

export function unpackStage(): StageProgress {
  return { key: 'unpack', label: 'Opening the project', state: 'waiting' };
}

export function ocrStage(): StageProgress {
  return { key: 'ocr', label: 'Recognising the text', state: 'waiting', unit: 'page' };
}

export function writeStage(format: string): StageProgress {
  return { key: `write:${format}`, label: `Writing the ${FORMAT_TITLES[format] ?? format}`, state: 'waiting' };
}

export function sendStage(slug: string, display: string): StageProgress {
  return { key: `send:${slug}`, label: `Sending to ${display}`, state: 'waiting' };
}

/** The stage with `key`; one the plan did not foresee (OCR an export found it needed) is added before the first waiting one. */
function stageOf(progress: TaskProgress, key: string, make: () => StageProgress): StageProgress {
  let stage = progress.stages.find((s) => s.key === key);
  if (!stage) {
    stage = make();
    const at = progress.stages.findIndex((s) => s.state === 'waiting');
    progress.stages.splice(at < 0 ? progress.stages.length : at, 0, stage);
  }
  return stage;
}

function unplanned(key: string): () => StageProgress {
  return () => (key === 'ocr' ? ocrStage() : key.startsWith('write:') ? writeStage(key.slice(6)) : { key, label: key, state: 'waiting' });
}

/** The stage `key` runs now; every stage before it is done. */
export function startStage(progress: TaskProgress, key: string, now = Date.now()): void {
  const stage = stageOf(progress, key, unplanned(key));
  for (const s of progress.stages) {
    if (s === stage) break;
    if (s.state === 'running') finish(s, now);
  }
  if (stage.state !== 'running') {
    stage.state = 'running';
    stage.started = now;
    pagesRead.delete(stage);
    delete stage.ended;
    delete stage.doing;
  }
  forgetEstimate(progress);
}

/**
 * `done` of `total` units of stage `key` are done: its count and the time it still needs. With `read` (which page was
 * read, and the work of each), the time is the pages' work at the pace measured per unit of work (`timeLeftByWork`);
 * else the units are counted as equal (`secondsLeft`).
 */
export function countStage(progress: TaskProgress, key: string, done: number, total: number, now = Date.now(), read?: OcrPagesRead): void {
  const stage = stageOf(progress, key, unplanned(key));
  if (stage.state !== 'running') startStage(progress, key, now);
  if (done > 0 && stage.firstDone === undefined) stage.firstDone = { at: now, done };
  stage.done = done;
  stage.total = total;
  if (read) pagesRead.set(stage, recordRead(pagesRead.get(stage), read, now));
  estimate(progress, stage, now);
}

/** A page of stage `key` is read again (turned, or in its own language): the time left grows by its work. */
export function rereadStage(progress: TaskProgress, key: string, read: OcrPagesRead, now = Date.now()): void {
  const stage = stageOf(progress, key, unplanned(key));
  if (stage.state !== 'running') startStage(progress, key, now);
  pagesRead.set(stage, recordAgain(pagesRead.get(stage), read, now));
  estimate(progress, stage, now);
}

/**
 * Stage `key` does what no count measures (OCR finding the document's languages before any page is read, or its
 * correction once every page is read): the line says what, and no time is shown, as nothing has timed it.
 */
export function doingStage(progress: TaskProgress, key: string, doing: string, now = Date.now()): void {
  const stage = stageOf(progress, key, unplanned(key));
  if (stage.state !== 'running') startStage(progress, key, now);
  stage.doing = doing;
  forgetEstimate(progress);
}

/**
 * Stage `key` says what it does beside its count, and its time left stands: "page 5 is in French: read a second time",
 * as that page's second reading is counted in the time already.
 */
export function noteStage(progress: TaskProgress, key: string, note: string, now = Date.now()): void {
  const stage = stageOf(progress, key, unplanned(key));
  if (stage.state !== 'running') startStage(progress, key, now);
  stage.doing = note;
}

/** Pages read in their own language, per OCR stage (in the order told), for the line that says so. */
const pagesInLanguage = new WeakMap<StageProgress, Array<{ page: number; language: string }>>();

/**
 * The note for OCR when page `page` is plainly in `language` (its name: "French"), not the document's: "page 5 is in French: read a second
 * time"; with more such pages, "pages 5 and 6 are in French: …", or "page 5 is in French, page 9 in German: …".
 */
export function pageInLanguage(progress: TaskProgress, page: number, language: string): string {
  const stage = stageOf(progress, 'ocr', ocrStage);
  const told = [...(pagesInLanguage.get(stage) ?? []).filter((p) => p.page !== page), { page, language }];
  pagesInLanguage.set(stage, told);
  const byLanguage = new Map<string, number[]>();
  for (const p of told) byLanguage.set(p.language, [...(byLanguage.get(p.language) ?? []), p.page]);
  const parts = [...byLanguage].map(([name, pages], n) => {
    const listed = pages.length === 1 ? `page ${pages[0]}` : `pages ${pages.slice(0, -1).join(', ')} and ${pages[pages.length - 1]}`;
    const verb = n > 0 ? '' : pages.length === 1 ? ' is' : ' are';
    return `${listed}${verb} in ${name}`;
  });
  return `${parts.join(', ')}: read a second time`;
}

function estimate(progress: TaskProgress, stage: StageProgress, now: number): void {
  const total = stage.total ?? 0;
  const log = pagesRead.get(stage);
  const byWork = log ? timeLeftByWork(log, total, now) : undefined;
  const pace = log ? byWork?.floor : unitSeconds(stage, now);
  const left = log ? byWork?.left : secondsLeft(stage, now);
  const most = byWork && byWork.most > byWork.left ? byWork.most : undefined;
  if (left === undefined || pace === undefined) return forgetEstimate(progress);
  // Pages that may yet be read again make the time a range; one too wide says too little to show.
  if (most !== undefined && most - left > left * WIDEST_RANGE) return forgetEstimate(progress);
  progress.unitSeconds = pace;
  // The figure on screen counts down from the last estimate: a new one that agrees with it within the pace's noise
  // leaves it be (no figure that jumps a few seconds up and down at each page); one that disagrees (a page read again)
  // is news, and replaces it at once.
  const since = progress.estimatedAt !== undefined ? (now - progress.estimatedAt) / 1000 : 0;
  const shown = progress.secondsLeft !== undefined && progress.estimatedAt !== undefined ? progress.secondsLeft - since : undefined;
  const shownMost = progress.secondsLeftMost !== undefined ? progress.secondsLeftMost - since : shown;
  if (shown !== undefined && shown > 0 && agrees(left, shown) && agrees(most ?? left, shownMost!)) return;
  progress.secondsLeft = left;
  if (most !== undefined) progress.secondsLeftMost = most;
  else delete progress.secondsLeftMost;
  progress.estimatedAt = now;
}

/** A new estimate `next` within the pace's noise of the figure counting down. */
function agrees(next: number, shown: number): boolean {
  return Math.abs(next - shown) <= Math.max(STEADY_SECONDS, shown * STEADY_SHARE);
}

/**
 * The widest range of time left shown, as a share of its near end: 60 %, so that its middle is within 30 % of the
 * truth wherever in the range the truth falls (at the near end, the middle is 30 % above it; at the far end, less).
 */
const WIDEST_RANGE = 0.6;

/** A new estimate within this many seconds, or this share, of the figure counting down leaves the figure as it is. */
const STEADY_SECONDS = 3;
const STEADY_SHARE = 0.1;

function forgetEstimate(progress: TaskProgress): void {
  delete progress.secondsLeft;
  delete progress.secondsLeftMost;
  delete progress.estimatedAt;
  delete progress.unitSeconds;
}

export function finishStage(progress: TaskProgress, key: string, now = Date.now()): void {
  const stage = stageOf(progress, key, unplanned(key));
  if (stage.state !== 'running') startStage(progress, key, now);
  finish(stage, now);
  forgetEstimate(progress);
}

/** The task ended: a running stage ends as `failed` (or `done`, when the task succeeded). */
export function endStages(progress: TaskProgress, ok: boolean, now = Date.now()): void {
  for (const s of progress.stages) {
    if (s.state !== 'running') continue;
    if (ok) finish(s, now);
    else {
      s.state = 'failed';
      s.ended = now;
    }
  }
  forgetEstimate(progress);
}

function finish(stage: StageProgress, now: number): void {
  stage.state = 'done';
  stage.ended = now;
  delete stage.doing;
  if (stage.total !== undefined) stage.done = stage.total;
}

/**
 * Seconds one unit takes at the pace measured since the first units were done. The wait for those is left out: it
 * holds the engine's start-up (and, for OCR with languages detected, the reading of sample pages), and units run
 * side by side, so the first one's time says little of the others' (on the sample, 65 s before the first OCR page,
 * 11 s each after). Two units past the first ones are needed, as units finish in pairs on two workers.
 */
export function unitSeconds(stage: StageProgress, now: number): number | undefined {
  const first = stage.firstDone;
  if (!first || stage.done === undefined || stage.done - first.done < 2) return undefined;
  return (now - first.at) / 1000 / (stage.done - first.done);
}

/** The last units run side by side (two workers on two cores) and end nearly together: no pace times them. */
const LAST_UNITS = 2;

/**
 * The time a counted stage still needs at its measured pace (`unitSeconds`), less half a unit: when one unit ends,
 * the others running beside it are about half done. None before that pace is measured, nor for the last units, which
 * started alongside the others and cannot be timed by their pace.
 */
export function secondsLeft(stage: StageProgress, now: number): number | undefined {
  const pace = unitSeconds(stage, now);
  if (pace === undefined || stage.done === undefined || stage.total === undefined || stage.total - stage.done <= LAST_UNITS) return undefined;
  return Math.max(1, Math.round(pace * (stage.total - stage.done - 0.5)));
}
