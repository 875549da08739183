import { join } from 'node:path';
import { ERROR_CODES, QuireError, describeError } from '../errors.js';
// Types only from ingest: a pipeline thread must not load ingest's PDF readers (pdf-lib, a few hundred ms each start).
import { cropGray, decodeGray, frameSharp, givePageBytes, type GrayImage, type ImageBytes, isBitonal } from '../imaging/index.js';
import type { FrameKind } from '../ingest/index.js';
import {
  type DpiSource,
  fileSystemError,
  type HandSetPages,
  type PageKind,
  pdfReadyJpeg,
  type PresetName,
  type ProjectPage,
  writeFileAtomically,
  writePageImage,
} from '../project/index.js';
import { estimateDpi } from './dpi.js';
import { runExtraSteps, type ExtraStep, type ExtraStepRunner } from './extra-steps.js';
import { type FinishedPage, finishPage, holdsWholePage, type PageSizeSamples, speculativeCanvas } from './page-size.js';
import { PRESETS } from './presets.js';
import { padForG4 } from './resample.js';
import { handSetSplit } from './hand-set.js';
import { detectPages } from './split.js';
import { pageStep, type PageState } from './steps.js';

/** What a worker needs to turn one input frame into finished page images. */
export interface FrameTask {
  frame: ImageBytes;
  input: string;
  frameIndex: number;
  kind: FrameKind;
  preset: PresetName;
  /** The resolution the input states, if any. */
  knownDpi?: { value: number; source: DpiSource };
  /** `--dpi`: `force` overrides everything, otherwise it fills in where the input says nothing. */
  dpiOption?: { value: number; force: boolean };
  marginMm: number;
  /** Project folder; page files go to `pages/`. */
  projectDir: string;
  /**
   * Make and store the grey page OCR reads beside the bitonal one (`ocrImage`, default true). A run that reads no
   * text passes false: that image is then neither computed, nor encoded, nor set on the page size (about a quarter
   * of a camera page's CPU).
   */
  reading?: boolean;
  /**
   * Write the bitonal pages as drafts (uncompressed TIFFs, see `writePageImage`), for a run that sets every page on
   * its page size afterwards (`matchPageSizes` encodes each as G4 then, once): their G4 encode here would be thrown
   * away for every page that is placed.
   */
  draft?: boolean;
  /**
   * The sizes of the document's pages made so far (`addPageSizes`), in a run that sets every page on its page size: a
   * draft's page is also encoded as G4 on the canvas these pages and its own give (`speculativeCanvas`), which
   * `matchPageSizes` takes instead of encoding the draft itself when the whole document gives that canvas too.
   */
  pageSizes?: PageSizeSamples;
  /**
   * Nothing reads the page files before `matchPageSizes` (no OCR during the run): a page encoded on its guessed canvas
   * then needs no draft beside it where that file holds all its pixels (`holdsWholePage`).
   */
  unreadUntilPlaced?: boolean;
  /** Steps added to the preset's (processor plugins), each after a built-in step; run through the pool's runner. */
  extraSteps?: ExtraStep[];
  /** The frame's pages as a person set them, in its pixels: they replace the automatic split and crop. */
  handSet?: HandSetPages;
}

/** A finished page, before its position in the document is known. */
export type FramePage = Omit<ProjectPage, 'index'>;

export interface FrameResult {
  pages: FramePage[];
  /** For each page, its G4 file on the canvas guessed from `FrameTask.pageSizes`, if one was made. */
  finished?: Array<FinishedPage | null>;
  timings: Record<string, number>;
  /** One sentence per added step that failed on a page (the page went on without it). */
  warnings?: string[];
}

/** Resolution assumed for a camera frame with no readable text: a phone photo of a page at arm's length. */
const CAMERA_FALLBACK_DPI = 150;
const SCAN_FALLBACK_DPI = 300;

/** Run one frame through its preset: the whole pipeline for the pages it holds. */
export async function processFrame(task: FrameTask, runExtra?: ExtraStepRunner): Promise<FrameResult> {
  const timings: Record<string, number> = {};
  const timed = async <T>(step: string, work: () => T | Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      timings[step] = (timings[step] ?? 0) + performance.now() - t0;
    }
  };
  const preset = PRESETS[task.preset];
  if (preset.spread === null && preset.steps.length === 0) {
    if (task.handSet)
      throw new QuireError(ERROR_CODES.USAGE, `Pages set by hand need the book or sheet preset, and ${frameName(task)} is kept as it is (flat).`);
    return { pages: [await timed('flat', () => processFlat(task))], timings };
  }

  const gray = await timed('decode', () => decodeFrame(task));
  // When nothing states the resolution, the split estimates it for its margins, and each page is
  // measured on its own below: perspective makes the two pages of a spread differ in scale.
  const stated = statedDpi(task);
  const detect = { ...(stated ? { dpi: stated.value } : {}), marginMm: task.marginMm };
  const handSet = task.handSet;
  const split = await timed('split', () =>
    handSet ? handSetSplit(gray, handSet, frameName(task), detect) : detectPages(gray, { ...detect, spread: preset.spread === 'auto' ? 'auto' : 'single' }),
  );

  const pages: FramePage[] = [];
  const finished: Array<FinishedPage | null> = [];
  const warnings: string[] = [];
  const extra = runExtra ? (task.extraSteps ?? []) : [];
  for (const region of split.pages) {
    const page = cropGray(gray, region.box);
    let rhythm: ReturnType<typeof estimateDpi> = null;
    const dpi = stated ?? (await timed('dpi', () => resolveDpi(task, () => (rhythm = estimateDpi(page))?.dpi)));
    const decisions: FramePage['decisions'] = {
      preset: task.preset,
      inputDpi: { value: round2(dpi.value), source: dpi.source },
      ...(stated ? { inputSize: { widthMm: round2((gray.width / stated.value) * 25.4), heightMm: round2((gray.height / stated.value) * 25.4) } } : {}),
      split: {
        box: region.box,
        content: region.content,
        ...(split.gutterX !== undefined ? { gutterX: split.gutterX } : {}),
        ...(handSet ? { handSet: true as const } : {}),
      },
    };
    const state: PageState = {
      image: page,
      kind: 'gray',
      dpi: dpi.value,
      targetDpi: preset.targetDpi ?? dpi.value,
      marginMm: task.marginMm,
      makeReading: task.reading ?? true,
      decisions,
    };
    const measured = rhythm as ReturnType<typeof estimateDpi>;
    if (measured) state.measuredText = { xHeightPx: measured.xHeightPx, linePitchPx: measured.linePitchPx };
    for (const name of preset.steps) {
      const step = pageStep(name);
      const before = { image: state.image, reading: state.reading };
      await timed(step.name, () => step.run(state));
      if (extra.length > 0 && runExtra) {
        const failed = await runExtraSteps(state, name, extra, runExtra, timed);
        warnings.push(...failed.map((w) => `${task.input}${split.pages.length > 1 ? ` (${region.side} page)` : ''}: ${w}`));
      }
      giveBackReplaced(before, state);
    }
    const { image, kind } = state;
    const side = region.side;
    const stem = join(task.projectDir, 'pages', `${String(task.frameIndex).padStart(4, '0')}-${side}`);
    // The canvas the pages made so far give this page (see `FrameTask.pageSizes`), if it is not too early to guess.
    const sizes = task.draft === true && kind === 'bitonal' ? task.pageSizes : undefined;
    const guess = sizes ? speculativeCanvas({ kind, width: image.width, height: image.height, dpi: state.dpi, decisions }, sizes) : undefined;
    // No draft where nothing reads the page before its page size (no OCR during the run) and the G4 page on the guessed
    // canvas holds all its pixels: a wrong guess is made again from that file.
    const withoutDraft = guess !== undefined && task.unreadUntilPlaced === true && holdsWholePage(image, guess);
    const file = withoutDraft
      ? `${stem}.tif`
      : await timed('encode', () => writePageImage({ ...image, channels: 1 }, kind, state.dpi, stem, { draft: task.draft === true }));
    const reading = state.reading;
    const ocrImage = reading ? await timed('encode', () => writePageImage({ ...reading, channels: 1 }, 'gray', state.dpi, `${stem}.ocr`)) : undefined;
    const made: FramePage = {
      file: relativePageFile(file),
      ...(ocrImage ? { ocrImage: relativePageFile(ocrImage) } : {}),
      kind,
      width: image.width,
      height: image.height,
      dpi: state.dpi,
      source: { input: task.input, frame: task.frameIndex, side },
      decisions,
    };
    pages.push(made);
    finished.push(guess !== undefined ? await timed('page-size', () => finishPage(made, image, guess, task.projectDir, withoutDraft)) : null);
    // Written: the pixels' buffers serve the next page.
    givePageBytes(image, reading);
  }
  return { pages, timings, ...(finished.some((f) => f !== null) ? { finished } : {}), ...(warnings.length > 0 ? { warnings } : {}) };
}

/** The pages a step replaced (and nothing holds now) give their buffers back for the next to use. */
function giveBackReplaced(before: { image: GrayImage; reading?: GrayImage }, after: PageState): void {
  const held = new Set([after.image.data.buffer, after.reading?.data.buffer]);
  for (const old of [before.image, before.reading]) {
    if (old && !held.has(old.data.buffer)) givePageBytes(old);
  }
}

/** How a message names the frame: `frame 3 of book.aglbundle`. */
function frameName(task: FrameTask): string {
  return `frame ${task.frameIndex} of ${task.input}`;
}

/** The frame as one grey channel, EXIF orientation applied. */
async function decodeFrame(task: FrameTask): Promise<GrayImage> {
  try {
    return await decodeGray(frameSharp(task.frame));
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_IMAGE, `${task.input} is not an image Quire can read.`, describeError(e));
  }
}

type DpiTask = Pick<FrameTask, 'knownDpi' | 'dpiOption' | 'kind'>;

/** The resolution something states: `--dpi force:N`, then the input itself, then `--dpi N`. */
export function statedDpi(task: DpiTask): { value: number; source: DpiSource } | undefined {
  if (task.dpiOption?.force) return { value: task.dpiOption.value, source: 'forced' };
  if (task.knownDpi) return task.knownDpi;
  if (task.dpiOption) return { value: task.dpiOption.value, source: 'option' };
  return undefined;
}

/** The stated resolution, else an estimate from the text, else a default for the kind of input. */
export function resolveDpi(task: DpiTask, estimate: () => number | undefined): { value: number; source: DpiSource } {
  const stated = statedDpi(task);
  if (stated) return stated;
  const estimated = estimate();
  if (estimated !== undefined) return { value: estimated, source: 'estimate' };
  return { value: task.kind === 'camera' ? CAMERA_FALLBACK_DPI : SCAN_FALLBACK_DPI, source: 'default' };
}

/** `flat`: keep the page's pixels as they are; only decide how to store them. */
async function processFlat(task: FrameTask): Promise<FramePage> {
  const kept = await keepJpeg(task);
  if (kept) return kept;
  let image;
  try {
    image = await frameSharp(task.frame).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_IMAGE, `${task.input} is not an image Quire can read.`, describeError(e));
  }
  const { width, height } = image.info;
  let data: Uint8Array = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length);
  let channels: 1 | 3 = 1;
  if (image.info.channels >= 3) {
    if (isGrayish(data, image.info.channels)) data = firstChannel(data, image.info.channels);
    else channels = 3;
  }
  const dpi = resolveDpi(task, () => undefined);
  let kind: PageKind = channels === 3 ? 'color' : 'gray';
  let page: GrayImage = { width, height, data };
  if (channels === 1 && isBitonal(page)) {
    kind = 'bitonal';
    page = padForG4(page);
  }
  const stem = join(task.projectDir, 'pages', `${String(task.frameIndex).padStart(4, '0')}-single`);
  const file = await writePageImage({ ...page, channels }, kind, dpi.value, stem);
  return {
    file: relativePageFile(file),
    kind,
    width: page.width,
    height: page.height,
    dpi: round2(dpi.value),
    source: { input: task.input, frame: task.frameIndex, side: 'single' },
    decisions: { preset: 'flat', inputDpi: { value: round2(dpi.value), source: dpi.source } },
  };
}

/**
 * A frame that is a JPEG a PDF shows as it is (a scanned PDF page, a photo without EXIF rotation) is kept byte
 * for byte: the page image is the input's own JPEG, and the PDF carries it unchanged.
 */
async function keepJpeg(task: FrameTask): Promise<FramePage | null> {
  if (task.frame.raw || task.frame.page) return null;
  const jpeg = await pdfReadyJpeg(task.frame.data);
  if (!jpeg) return null;
  // Decoded once all the same: a truncated or damaged JPEG is refused here, as it would be when re-encoded.
  try {
    await frameSharp(task.frame).stats();
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_IMAGE, `${task.input} is not an image Quire can read.`, describeError(e));
  }
  const dpi = resolveDpi(task, () => undefined);
  const path = join(task.projectDir, 'pages', `${String(task.frameIndex).padStart(4, '0')}-single.jpg`);
  try {
    await writeFileAtomically(path, task.frame.data);
  } catch (e) {
    throw await fileSystemError(e, path);
  }
  return {
    file: relativePageFile(path),
    kind: jpeg.components === 3 ? 'color' : 'gray',
    width: jpeg.width,
    height: jpeg.height,
    dpi: round2(dpi.value),
    source: { input: task.input, frame: task.frameIndex, side: 'single' },
    decisions: { preset: 'flat', inputDpi: { value: round2(dpi.value), source: dpi.source } },
  };
}

/** A colour image whose channels never differ by more than a little is grey. */
function isGrayish(data: Uint8Array, channels: number): boolean {
  for (let i = 0; i < data.length; i += channels * 7) {
    const r = data[i],
      g = data[i + 1],
      b = data[i + 2];
    if (Math.abs(r - g) > 12 || Math.abs(g - b) > 12 || Math.abs(r - b) > 12) return false;
  }
  return true;
}

function firstChannel(data: Uint8Array, channels: number): Uint8Array {
  const out = new Uint8Array(data.length / channels);
  for (let i = 0, j = 0; j < out.length; i += channels, j++) out[j] = data[i];
  return out;
}

function relativePageFile(file: string): string {
  const i = file.lastIndexOf('/pages/');
  return i >= 0 ? file.slice(i + 1) : file;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
