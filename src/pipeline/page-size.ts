/**
 * One physical page size per document. Each page is cropped to its own printed matter, so the pages of one book come
 * out in many sizes (a chapter's last page is short, a page with a long footnote tall). Here every page of a group
 * is set on a canvas of the group's size: the printed area centred across and at the top, as a printer places the
 * text block. A group is every page made from camera frames, and for scans, every page whose input had the same
 * physical size, so a document that really mixes page sizes keeps them.
 */
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Sharp } from 'sharp';
import { type GrayImage, isBitonal, readImage, readTiffLayout, sharpFromGray } from '../imaging/index.js';
import { fileSystemError, type PagePipeline, writePageImage, type ProjectPage } from '../project/index.js';
import { eachAtOnce } from '../util/index.js';

type Page = Omit<ProjectPage, 'index'>;

/** A page far larger than most (a crop that kept part of the desk) keeps its size rather than enlarging every page. */
const OUTLIER = 1.15;
/** Scanned inputs within this many millimetres of each other count as one page size. */
const SAME_SIZE_MM = 5;

/**
 * The middle value, or the upper of the two middle ones: of two pages, the larger is the size the other is checked
 * against (a mean of the two could make the larger page an outlier of its own document).
 */
function upperMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Which pages share a size: camera pages all together, scans by their input's physical size. */
function groupKey(page: Sized): string | undefined {
  const { preset, inputSize } = page.decisions;
  if ((page.kind !== 'bitonal' && page.kind !== 'gray') || preset === 'flat' || !page.decisions.crop) return undefined;
  if (preset === 'book' || !inputSize) return preset;
  return `${preset}:${Math.round(inputSize.widthMm / SAME_SIZE_MM)}x${Math.round(inputSize.heightMm / SAME_SIZE_MM)}`;
}

/**
 * Where a page is set on its group's canvas: the canvas (`canvasWidth`×`height`, in the page's pixels), the page's
 * printed area at `x`, and the width the placed file has (`width`: a G4 page is widened to whole 16-pixel groups).
 */
export interface PageCanvas {
  canvasWidth: number;
  width: number;
  height: number;
  x: number;
}

/** What the page-size decision reads of a page. */
type Sized = Pick<Page, 'kind' | 'width' | 'height' | 'dpi' | 'decisions'>;

/**
 * The page sizes of the pages made so far, by group (see `groupKey`): each page's width and height in inches, in
 * pairs. A frame's task carries them so its thread can set its pages on the canvas these pages and its own would give
 * (`speculativeCanvas`); `matchPageSizes` checks that guess against the canvas of the whole document.
 */
export type PageSizeSamples = Record<string, number[]>;

/** Add the pages' sizes to `samples` (pages that are not set on a page size are left out). */
export function addPageSizes(samples: PageSizeSamples, pages: readonly Sized[]): void {
  for (const page of pages) {
    const key = groupKey(page);
    if (key !== undefined) (samples[key] ??= []).push(page.width / page.dpi, page.height / page.dpi);
  }
}

/**
 * The canvas `page` would be set on if the document were the pages of `samples` and this one; null when it would keep
 * its size; undefined when it is in no group, or its group has fewer than `MIN_SAMPLES` other pages (too early to
 * guess: the thread then leaves the page to `matchPageSizes`).
 */
export function speculativeCanvas(page: Sized, samples: PageSizeSamples): PageCanvas | null | undefined {
  const key = groupKey(page);
  const others = key === undefined ? undefined : samples[key];
  if (!others || others.length / 2 < MIN_SAMPLES) return undefined;
  const widths: number[] = [];
  const heights: number[] = [];
  for (let i = 0; i < others.length; i += 2) {
    widths.push(others[i]);
    heights.push(others[i + 1]);
  }
  widths.push(page.width / page.dpi);
  heights.push(page.height / page.dpi);
  const target = groupTarget(widths, heights);
  return target.fits[target.fits.length - 1] ? canvasOn(page, target.widthIn, target.heightIn) : null;
}

/** A guess from fewer pages than this is mostly wrong (the first frames' pages): not worth its encode. */
const MIN_SAMPLES = 2;

/**
 * The size of a group whose pages measure `widths`×`heights` inches: the largest page among those that are no outlier
 * (`fits`, one flag a page). The same whatever the order of the pages.
 */
function groupTarget(widths: readonly number[], heights: readonly number[]): { widthIn: number; heightIn: number; fits: boolean[] } {
  const [mw, mh] = [upperMedian(widths), upperMedian(heights)];
  const fits = widths.map((w, i) => w <= OUTLIER * mw && heights[i] <= OUTLIER * mh);
  let widthIn = -Infinity;
  let heightIn = -Infinity;
  fits.forEach((fit, i) => {
    if (!fit) return;
    widthIn = Math.max(widthIn, widths[i]);
    heightIn = Math.max(heightIn, heights[i]);
  });
  return { widthIn, heightIn, fits };
}

/** The canvas of `widthIn`×`heightIn` inches the page is set on; null when it already fills it. */
function canvasOn(page: Sized, widthIn: number, heightIn: number): PageCanvas | null {
  const bitonal = page.kind === 'bitonal';
  // The printed width, without the white a G4 page was padded with on the right.
  const used = bitonal && page.decisions.crop ? page.decisions.crop.width : page.width;
  const canvasWidth = Math.round(widthIn * page.dpi);
  const height = Math.round(heightIn * page.dpi);
  if (canvasWidth <= used && height <= page.height) return null;
  const x = Math.max(0, Math.round((canvasWidth - used) / 2));
  // A G4 page is padded to whole 16-pixel groups (see `padForG4`).
  const width = bitonal ? Math.ceil(canvasWidth / 16) * 16 : canvasWidth;
  return { canvasWidth, width, height, x };
}

/** The canvas of each page that is set on one (the others keep their size). */
function pageCanvases(pages: readonly Page[]): Map<Page, PageCanvas> {
  const canvases = new Map<Page, PageCanvas>();
  const groups = new Map<string, Page[]>();
  for (const page of pages) {
    const key = groupKey(page);
    if (key !== undefined) groups.set(key, [...(groups.get(key) ?? []), page]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    // Sizes in inches: pages of one document normally share a resolution, but need not.
    const target = groupTarget(
      group.map((p) => p.width / p.dpi),
      group.map((p) => p.height / p.dpi),
    );
    group.forEach((page, i) => {
      const canvas = target.fits[i] ? canvasOn(page, target.widthIn, target.heightIn) : null;
      if (canvas) canvases.set(page, canvas);
    });
  }
  return canvases;
}

/**
 * A page a pipeline thread already encoded as G4 beside its draft, set on the canvas it guessed (`speculativeCanvas`;
 * null: at its own size): `file` is that G4 file, relative to the project.
 */
export interface FinishedPage {
  file: string;
  canvas: PageCanvas | null;
  /**
   * No draft was written (nothing reads the page during the run, and `file` holds all of its pixels, see
   * `holdsWholePage`): a wrong guess is made again from `file`.
   */
  withoutDraft?: boolean;
}

/** Whether the page set on `canvas` (null: kept at its size) keeps every one of its pixels, none cut off by the canvas. */
export function holdsWholePage(page: { width: number; height: number }, canvas: PageCanvas | null): boolean {
  if (canvas === null) return true;
  return Math.min(page.width, canvas.canvasWidth - canvas.x) === page.width && canvas.height >= page.height;
}

/**
 * A pipeline thread's bitonal page (`page`, its draft written, with `image` its pixels) encoded as G4 on the canvas the
 * pages made so far give it (`speculativeCanvas`), beside its draft (`<name>.g4.tif`): `matchPageSizes` need then not
 * decode the draft and encode it after the last frame, in series with nothing else. Null when it is too early to guess.
 */
export async function finishPage(page: Page, image: GrayImage, canvas: PageCanvas | null, projectDir: string, withoutDraft = false): Promise<FinishedPage> {
  // Ink below 128, as the draft stores it (a page from the built-in steps is 0 and 255 already).
  const pixels = isBitonal(image) ? image : { ...image, data: image.data.map((v) => (v < 128 ? 0 : 255)) };
  const placed = canvas ? placeOn(sharpFromGray(pixels), page, canvas) : { ...pixels, channels: 1 as const };
  await writePageImage(placed, 'bitonal', page.dpi, `${stem(projectDir, page.file)}.g4`);
  return { file: page.file.replace(/\.[^.]+$/, '.g4.tif'), canvas, ...(withoutDraft ? { withoutDraft } : {}) };
}

/**
 * Give the pages of each group one size (the largest, outliers aside), rewriting their image files (and reading
 * images) in the project; `decisions.pageSize` records the canvas and where the page was set on it. A bitonal page
 * the pipeline left as a draft (`FrameTask.draft`) is encoded as G4 here, once, placed or not — unless its thread
 * already did (`finished`, by page) on the canvas the whole document gives it, whose file then takes the draft's
 * place (a guess that turned out wrong is thrown away and the page made here, so the files never depend on which
 * pages were done first). With `place: false` (a frame made again alone) pages keep their size and only drafts are
 * encoded.
 */
export async function matchPageSizes(
  projectDir: string,
  pages: Page[],
  options: { place?: boolean; finished?: ReadonlyMap<Page, FinishedPage> } = {},
): Promise<void> {
  const canvases = options.place === false ? new Map<Page, PageCanvas>() : pageCanvases(pages);
  const finished = options.finished ?? new Map<Page, FinishedPage>();
  await eachAtOnce(pages, PLACING_AT_ONCE, async (page) => {
    const canvas = canvases.get(page);
    const guess = finished.get(page);
    if (guess && sameCanvas(guess.canvas, canvas ?? null)) await takeFinished(projectDir, page, guess.file, canvas);
    else if (guess?.withoutDraft) await remakeFromGuess(projectDir, page, guess, canvas);
    else {
      if (guess) await rm(join(projectDir, guess.file), { force: true });
      if (canvas) await placePage(projectDir, page, canvas);
      else if (page.kind === 'bitonal') await encodeDraft(projectDir, page);
    }
  });
}

/**
 * Remove the pages the threads encoded on a guessed canvas (`finishPage`) that no `matchPageSizes` took: a run that
 * failed or was stopped leaves only the files of a page made, never these. Nothing here throws.
 */
export async function dropPageGuesses(projectDir: string): Promise<void> {
  const folder = join(projectDir, 'pages');
  const names = await readdir(folder).catch(() => [] as string[]);
  await Promise.all(names.filter((name) => name.endsWith(GUESS_SUFFIX)).map((name) => rm(join(folder, name), { force: true }).catch(() => undefined)));
}

const GUESS_SUFFIX = '.g4.tif';

function sameCanvas(a: PageCanvas | null, b: PageCanvas | null): boolean {
  if (a === null || b === null) return a === b;
  return a.canvasWidth === b.canvasWidth && a.width === b.width && a.height === b.height && a.x === b.x;
}

/** The thread's G4 file in the draft's place; the page's size and reading image follow its canvas. */
async function takeFinished(projectDir: string, page: Page, file: string, canvas: PageCanvas | undefined): Promise<void> {
  const target = join(projectDir, page.file);
  try {
    await rename(join(projectDir, file), target);
  } catch (e) {
    throw await fileSystemError(e, target);
  }
  if (!canvas) return;
  if (page.ocrImage) await placeReading(projectDir, page, canvas);
  setOnCanvas(page, canvas);
}

/** A bitonal page file that is a draft (a Deflate TIFF, see `writePageImage`) rewritten as the G4 TIFF it is kept as. */
async function encodeDraft(projectDir: string, page: Page): Promise<void> {
  const file = join(projectDir, page.file);
  const bytes = await readFile(file);
  if (readTiffLayout(bytes)?.compression === TIFF_G4) return;
  const pipeline = readImage(bytes).toColourspace('b-w');
  await writePageImage({ pipeline, width: page.width, height: page.height, channels: 1 }, 'bitonal', page.dpi, file.replace(/\.[^.]+$/, ''));
}

const TIFF_G4 = 4;

/**
 * Pages placed side by side: decoding and encoding run on libvips' threads, so two pages at a time keep both cores
 * busy where one at a time left one idle (this step runs after the frame workers are done).
 */
const PLACING_AT_ONCE = Math.max(1, availableParallelism());

/** Set the page on its canvas (its file, and its reading image, rewritten). */
async function placePage(projectDir: string, page: Page, canvas: PageCanvas, source?: Sharp): Promise<void> {
  const placed = source ? placeOn(source, page, canvas) : await placeFile(join(projectDir, page.file), page, canvas);
  await writePageImage(placed, page.kind as 'bitonal' | 'gray', page.dpi, stem(projectDir, page.file));
  if (page.ocrImage) await placeReading(projectDir, page, canvas);
  setOnCanvas(page, canvas);
}

/**
 * A page whose thread wrote no draft and guessed another canvas than the document's: its pixels cut back out of the
 * thread's G4 file (which holds them all), then set on the right canvas or encoded at their own size.
 */
async function remakeFromGuess(projectDir: string, page: Page, guess: FinishedPage, canvas: PageCanvas | undefined): Promise<void> {
  const file = join(projectDir, guess.file);
  if (guess.canvas === null) {
    // The thread's file is the page at its own size: the draft's pixels, already G4.
    await takeFinished(projectDir, page, guess.file, undefined);
    if (canvas) await placePage(projectDir, page, canvas);
    return;
  }
  const source = readImage(await readFile(file)).extract({ left: guess.canvas.x, top: 0, width: page.width, height: page.height });
  if (canvas) await placePage(projectDir, page, canvas, source);
  else await writePageImage({ pipeline: source, width: page.width, height: page.height, channels: 1 }, 'bitonal', page.dpi, stem(projectDir, page.file));
  await rm(file, { force: true });
}

/** The reading image has the page image's size; it is set on the placed page's whole width. */
async function placeReading(projectDir: string, page: Page, canvas: PageCanvas): Promise<void> {
  if (!page.ocrImage) return;
  const reading = await placeFile(join(projectDir, page.ocrImage), page, { ...canvas, canvasWidth: canvas.width });
  await writePageImage(reading, 'gray', page.dpi, stem(projectDir, page.ocrImage));
}

function setOnCanvas(page: Page, canvas: PageCanvas): void {
  page.width = canvas.width;
  page.height = canvas.height;
  page.decisions.pageSize = { width: canvas.width, height: canvas.height, x: canvas.x, y: 0 };
}

function stem(projectDir: string, file: string): string {
  return join(projectDir, file.replace(/\.[^.]+$/, ''));
}

/**
 * The page image in `file` (of the page's size) set on white at `x` of a `canvasWidth`×`height` canvas (clipped to
 * it), widened with white to `width`: a libvips pipeline (decode, cut, extend) the page is encoded from at once, off
 * the main thread. The pages are placed while nothing else runs; a copy per pixel in JavaScript kept one core busy here
 * and the other idle, and handing the raw page out of libvips and back in to encode it cost 40 % more.
 */
async function placeFile(file: string, page: Page, canvas: PageCanvas): Promise<PagePipeline> {
  // Read as bytes: libvips caches decodes by file name, and this file is rewritten in place.
  return placeOn(readImage(await readFile(file)), page, canvas);
}

/** The page's image (of the page's size, in libvips) set on its canvas: see `placeFile`. */
function placeOn(source: Sharp, page: Sized, canvas: PageCanvas): PagePipeline {
  const { canvasWidth, width, height, x } = canvas;
  const visibleWidth = Math.max(1, Math.min(page.width, canvasWidth - x));
  const visibleHeight = Math.min(page.height, height);
  let image = source;
  if (visibleWidth < page.width || visibleHeight < page.height) image = image.extract({ left: 0, top: 0, width: visibleWidth, height: visibleHeight });
  const pipeline = image.extend({ left: x, top: 0, right: width - x - visibleWidth, bottom: height - visibleHeight, background: { r: 255, g: 255, b: 255 } });
  // The encoder turns it to one grey channel (the white background makes libvips go to three).
  return { pipeline, width, height, channels: 1 };
}
