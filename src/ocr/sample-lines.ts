/**
 * A few text lines of a page, cut out and stacked onto clean paper: what language detection reads instead of whole
 * pages. Reading a page costs the same whichever language it turns out to be in, so reading whole sample pages to
 * learn their language, then again in it, doubled the work of a short document. A few lines spread from the top
 * of the page to its foot (running head, body, notes) tell the languages as well, for a fraction of the reading.
 */
import { join } from 'node:path';
import { createGray, decodeGray, type GrayImage, sharpFromGray } from '../imaging/index.js';
import type { OcrInput } from './types.js';

/**
 * Lines taken from each sample page, spread evenly from its first to its last: 24 over three pages, a few hundred
 * words, plenty for trigrams and for a quotation in another script.
 */
export const SAMPLE_LINES = 8;
/** A pixel darker than this is ink. */
const INK = 128;
/** A row is part of a line when this share of its pixels, at least, is ink. */
const ROW_INK_SHARE = 0.002;
/** Bands much shorter (a rule, a speck) or much taller (a picture, lines run together) than the usual line are left out. */
const MIN_LINE_SHARE = 0.4;
const MAX_LINE_SHARE = 2.5;

interface Band {
  top: number;
  bottom: number;
}

/** Runs of rows with ink: the page's text lines, roughly (the page is upright and straight after the pipeline). */
export function inkBands(image: GrayImage): Band[] {
  const { width, height, data } = image;
  const least = Math.max(2, Math.round(width * ROW_INK_SHARE));
  const bands: Band[] = [];
  let start = -1;
  for (let y = 0; y < height; y++) {
    let ink = 0;
    const row = y * width;
    for (let x = 0; x < width; x++) if (data[row + x] < INK) ink++;
    if (ink >= least) {
      if (start < 0) start = y;
    } else if (start >= 0) {
      bands.push({ top: start, bottom: y });
      start = -1;
    }
  }
  if (start >= 0) bands.push({ top: start, bottom: height });
  return bands;
}

/** Up to `count` lines of the page, evenly spread from the first to the last; none when no line-like band is found. */
export function sampleBands(image: GrayImage, count = SAMPLE_LINES): Band[] {
  const bands = inkBands(image);
  if (bands.length === 0) return [];
  const heights = bands.map((b) => b.bottom - b.top).sort((a, b) => a - b);
  const usual = heights[Math.floor(heights.length / 2)];
  const lines = bands.filter((b) => b.bottom - b.top >= usual * MIN_LINE_SHARE && b.bottom - b.top <= usual * MAX_LINE_SHARE);
  if (lines.length <= count) return lines;
  const picked = new Set<number>();
  for (let k = 0; k < count; k++) picked.add(Math.round((k * (lines.length - 1)) / (count - 1)));
  return [...picked].sort((a, b) => a - b).map((i) => lines[i]);
}

/** A page's lines to stack: the page and which of its bands. */
export interface PageBands {
  image: GrayImage;
  bands: readonly Band[];
}

/** The bands stacked one under the other on white paper, a line's height apart, with a margin around them. */
export function stackBands(image: GrayImage, bands: readonly Band[]): GrayImage {
  return stackPageBands([{ image, bands }]);
}

/** The bands of several pages stacked, page after page, on one sheet as wide as the widest page. */
function stackPageBands(pages: readonly PageBands[]): GrayImage {
  const heights = pages.flatMap((p) => p.bands.map((b) => b.bottom - b.top));
  const gap = Math.max(8, Math.round(Math.max(...heights) * 0.8));
  const margin = gap;
  const height = heights.reduce((a, b) => a + b, 0) + gap * (heights.length - 1) + 2 * margin;
  const out = createGray(Math.max(...pages.map((p) => p.image.width)) + 2 * margin, height);
  let y = margin;
  for (const { image, bands } of pages) {
    for (const band of bands) {
      for (let row = band.top; row < band.bottom; row++, y++) {
        out.data.set(image.data.subarray(row * image.width, (row + 1) * image.width), y * out.width + margin);
      }
      y += gap;
    }
  }
  return out;
}

/**
 * A sample of the page's lines written as a PNG in `folder` (named after `name`), with what an engine must know to
 * read it; undefined when the page shows no line-like band (a picture, a blank page): read the whole page then.
 */
export async function writeLineSample(page: OcrInput, folder: string, name: string, count = SAMPLE_LINES): Promise<OcrInput | undefined> {
  return writePagesLineSample([page], folder, name, count);
}

/**
 * `count` lines of each page, stacked onto one sheet (one reading, one model load, for several pages); undefined
 * when none of the pages shows a line-like band.
 */
export async function writePagesLineSample(pages: readonly OcrInput[], folder: string, name: string, count: number): Promise<OcrInput | undefined> {
  const found: PageBands[] = [];
  for (const page of pages) found.push(await pageLines(page, count));
  return writeSampleSheet(found, folder, name, pages[0].dpi);
}

/**
 * A page's sample lines: its image and up to `count` of its bands (none when it shows no line-like band). Found as
 * soon as the page is made, so a sheet of several pages waits only for its last one.
 */
export async function pageLines(page: OcrInput, count: number): Promise<PageBands> {
  const image = await decodeGray(page.file);
  return { image, bands: sampleBands(image, count) };
}

/** The lines found on pages (`pageLines`), stacked onto one sheet written as a PNG in `folder`; undefined when there are none. */
export async function writeSampleSheet(pages: readonly PageBands[], folder: string, name: string, dpi: number): Promise<OcrInput | undefined> {
  const found = pages.filter((p) => p.bands.length > 0);
  if (found.length === 0) return undefined;
  const stacked = stackPageBands(found);
  const file = join(folder, `${name}.png`);
  await sharpFromGray(stacked).png().toFile(file);
  return { file, width: stacked.width, height: stacked.height, dpi };
}
