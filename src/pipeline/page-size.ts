/**
 * One physical page size per document. Each page is cropped to its own printed matter, so the pages of one book come
 * out in many sizes (a chapter's last page is short, a page with a long footnote tall). Here every page of a group
 * is set on a canvas of the group's size: the printed area centred across and at the top, as a printer places the
 * text block. A group is every page made from camera frames, and for scans, every page whose input had the same
 * physical size, so a document that really mixes page sizes keeps them.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { readImage, readTiffLayout } from '../imaging/index.js';
import { type PagePipeline, writePageImage, type ProjectPage } from '../project/index.js';
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
function upperMedian(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Which pages share a size: camera pages all together, scans by their input's physical size. */
function groupKey(page: Page): string | undefined {
  const { preset, inputSize } = page.decisions;
  if ((page.kind !== 'bitonal' && page.kind !== 'gray') || preset === 'flat' || !page.decisions.crop) return undefined;
  if (preset === 'book' || !inputSize) return preset;
  return `${preset}:${Math.round(inputSize.widthMm / SAME_SIZE_MM)}x${Math.round(inputSize.heightMm / SAME_SIZE_MM)}`;
}

/**
 * Give the pages of each group one size (the largest, outliers aside), rewriting their image files (and reading
 * images) in the project; `decisions.pageSize` records the canvas and where the page was set on it. A bitonal page
 * the pipeline left as a draft (`FrameTask.draft`) is encoded as G4 here, once, placed or not. With `place: false`
 * (a frame made again alone) pages keep their size and only drafts are encoded.
 */
export async function matchPageSizes(projectDir: string, pages: Page[], options: { place?: boolean } = {}): Promise<void> {
  const placed = options.place === false ? new Set<Page>() : await placePages(projectDir, pages);
  const rest = pages.filter((page) => page.kind === 'bitonal' && !placed.has(page));
  await eachAtOnce(rest, PLACING_AT_ONCE, (page) => encodeDraft(projectDir, page));
}

/** The pages set on their group's canvas (their files rewritten). */
async function placePages(projectDir: string, pages: Page[]): Promise<Set<Page>> {
  const placed = new Set<Page>();
  const groups = new Map<string, Page[]>();
  for (const page of pages) {
    const key = groupKey(page);
    if (key !== undefined) groups.set(key, [...(groups.get(key) ?? []), page]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    // Sizes in inches: pages of one document normally share a resolution, but need not.
    const widths = group.map((p) => p.width / p.dpi);
    const heights = group.map((p) => p.height / p.dpi);
    const [mw, mh] = [upperMedian(widths), upperMedian(heights)];
    const fits = group.filter((_, i) => widths[i] <= OUTLIER * mw && heights[i] <= OUTLIER * mh);
    const targetW = Math.max(...fits.map((p) => p.width / p.dpi));
    const targetH = Math.max(...fits.map((p) => p.height / p.dpi));
    await eachAtOnce(fits, PLACING_AT_ONCE, async (page) => {
      if (await placePage(projectDir, page, targetW, targetH)) placed.add(page);
    });
  }
  return placed;
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

/** Set the page on its canvas; false when it already fills it (its file left as it is). */
async function placePage(projectDir: string, page: Page, widthIn: number, heightIn: number): Promise<boolean> {
  const bitonal = page.kind === 'bitonal';
  // The printed width, without the white a G4 page was padded with on the right.
  const used = bitonal && page.decisions.crop ? page.decisions.crop.width : page.width;
  const width = Math.round(widthIn * page.dpi);
  const height = Math.round(heightIn * page.dpi);
  if (width <= used && height <= page.height) return false;
  const x = Math.max(0, Math.round((width - used) / 2));
  const stem = (file: string): string => join(projectDir, file.replace(/\.[^.]+$/, ''));
  // A G4 page is padded to whole 16-pixel groups (see `padForG4`).
  const placedWidth = bitonal ? Math.ceil(width / 16) * 16 : width;
  const canvas = { page, canvasWidth: width, width: placedWidth, height, x };
  const placed = await placeFile(join(projectDir, page.file), canvas);
  await writePageImage(placed, page.kind as 'bitonal' | 'gray', page.dpi, stem(page.file));
  if (page.ocrImage) {
    // The reading image has the page image's size; it is set on the placed page's whole width.
    const reading = await placeFile(join(projectDir, page.ocrImage), { ...canvas, canvasWidth: placedWidth });
    await writePageImage(reading, 'gray', page.dpi, stem(page.ocrImage));
  }
  page.width = placed.width;
  page.height = placed.height;
  page.decisions.pageSize = { width: placed.width, height: placed.height, x, y: 0 };
  return true;
}

/**
 * The page image in `file` (of the page's size) set on white at `x` of a `canvasWidth`×`height` canvas (clipped to
 * it), widened with white to `width`: a libvips pipeline (decode, cut, extend) the page is encoded from at once, off
 * the main thread. The pages are placed while nothing else runs; a copy per pixel in JavaScript kept one core busy here
 * and the other idle, and handing the raw page out of libvips and back in to encode it cost 40 % more.
 */
async function placeFile(file: string, canvas: { page: Page; canvasWidth: number; width: number; height: number; x: number }): Promise<PagePipeline> {
  const { page, canvasWidth, width, height, x } = canvas;
  const visibleWidth = Math.max(1, Math.min(page.width, canvasWidth - x));
  const visibleHeight = Math.min(page.height, height);
  // Read as bytes: libvips caches decodes by file name, and this file is rewritten in place.
  let image = readImage(await readFile(file));
  if (visibleWidth < page.width || visibleHeight < page.height) image = image.extract({ left: 0, top: 0, width: visibleWidth, height: visibleHeight });
  const pipeline = image.extend({ left: x, top: 0, right: width - x - visibleWidth, bottom: height - visibleHeight, background: { r: 255, g: 255, b: 255 } });
  // The encoder turns it to one grey channel (the white background makes libvips go to three).
  return { pipeline, width, height, channels: 1 };
}
