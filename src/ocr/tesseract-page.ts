/**
 * The page image as tesseract should see it: one grey channel, encoded as PNG (tesseract.js's
 * Leptonica cannot read tiled G4 TIFFs, which pages were once), at a resolution where tesseract reads
 * best; or, for the tesseract program, the page's own file when it can read that as it is.
 */
import { readFile } from 'node:fs/promises';
import { ERROR_CODES, QuireError, describeError } from '../errors.js';
import type { Metadata } from 'sharp';
import { decodeGray, isBitonal, readImage, readTiffLayout, sharpFromGray, type GrayImage } from '../imaging/index.js';
import type { OcrInput } from './types.js';

/** Below this, text is too small for tesseract's LSTM; such pages are upsampled to `TARGET_DPI`. */
export const MIN_DPI = 250;
export const TARGET_DPI = 300;
/** Assumed when a page does not know its resolution: what the pipeline normally produces. */
const DEFAULT_DPI = 300;

export interface PreparedPage {
  png: Buffer;
  /** Resolution of the PNG, told to tesseract (it guesses badly otherwise). */
  dpi: number;
  /** Page pixel = PNG pixel × scale. */
  scaleX: number;
  scaleY: number;
  /** Already black and white: tesseract's own Otsu is then enough, Sauvola only costs time. */
  bitonal: boolean;
}

/** A page the tesseract program reads from its own file: nothing is decoded or encoded for it here. */
export interface StoredPage {
  file: string;
  dpi: number;
  scaleX: 1;
  scaleY: 1;
  bitonal: boolean;
}

/**
 * TIFF compressions the tesseract program's libtiff decodes: none, CCITT G3, CCITT G4, and Deflate (the pipeline's
 * drafts, read by the language sample before the page-size pass encodes them as G4; Debian's libtiff links zlib).
 */
const PLAIN_BITONAL = new Set([1, 3, 4, 8]);

/**
 * The page as stored, when the tesseract program can read it just so: a grey JPEG (see `storedGreyPage`) or a bitonal TIFF in strips (the pipeline's
 * pages; leptonica reads no tiles), as large as the page, at a resolution tesseract reads well. Decoding it to
 * PNG here cost 40 ms of CPU a page, taken from the two tesseract processes on a two-core machine. Undefined
 * when anything differs: `preparePage` then makes the PNG (and says what is wrong with a file it cannot read).
 */
export async function storedPage(page: OcrInput): Promise<StoredPage | undefined> {
  const dpi = page.dpi > 0 ? page.dpi : DEFAULT_DPI;
  if (dpi < MIN_DPI) return undefined;
  if (/\.jpe?g$/i.test(page.file)) return storedGreyPage(page, dpi);
  if (!/\.tiff?$/i.test(page.file)) return undefined;
  let bytes: Buffer;
  try {
    bytes = await readFile(page.file);
  } catch {
    return undefined;
  }
  const layout = readTiffLayout(bytes);
  if (!layout || layout.tile || layout.bitsPerSample !== 1 || layout.samplesPerPixel !== 1) return undefined;
  if (!PLAIN_BITONAL.has(layout.compression) || layout.orientation !== 1 || layout.fillOrder !== 1) return undefined;
  if (layout.width !== page.width || layout.height !== page.height) return undefined;
  return { file: page.file, dpi, scaleX: 1, scaleY: 1, bitonal: true };
}

/**
 * A grey JPEG the tesseract program reads as it is: the pipeline's reading image, one channel, as large as the page,
 * upright, and not to be read smaller. Decoding it and encoding a PNG for tesseract's stdin cost about 100 ms of CPU
 * a 300-dpi page, for the same pixels (libjpeg decodes it in both). Only the header is read here.
 */
async function storedGreyPage(page: OcrInput, dpi: number): Promise<StoredPage | undefined> {
  if (page.readScale !== undefined && page.readScale > 0 && page.readScale < 1) return undefined;
  let meta: Metadata;
  try {
    meta = await readImage(page.file).metadata();
  } catch {
    return undefined;
  }
  if (meta.format !== 'jpeg' || meta.channels !== 1 || (meta.orientation ?? 1) !== 1) return undefined;
  if (meta.width !== page.width || meta.height !== page.height) return undefined;
  return { file: page.file, dpi, scaleX: 1, scaleY: 1, bitonal: false };
}

/** The width and height tesseract should read the page at, and that resolution. */
export function ocrResolution(width: number, height: number, dpi: number): { width: number; height: number; dpi: number } {
  const known = dpi > 0 ? dpi : DEFAULT_DPI;
  if (known >= MIN_DPI) return { width, height, dpi: known };
  const factor = TARGET_DPI / known;
  return { width: Math.round(width * factor), height: Math.round(height * factor), dpi: TARGET_DPI };
}

export async function preparePage(page: OcrInput): Promise<PreparedPage> {
  let decoded: GrayImage;
  try {
    decoded = await decodeGray(page.file);
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_IMAGE, `The page image ${page.file} could not be read for OCR.`, describeError(e));
  }
  // The file's resolution is in page pixels; if the file is not the page's size, scale accordingly.
  const fileDpi = (page.dpi > 0 ? page.dpi : DEFAULT_DPI) * (decoded.width / page.width);
  const bitonal = isBitonal(decoded);
  // A blurred grey page the pipeline asked to be read smaller is read so, below the usual minimum resolution.
  const smaller = !bitonal && page.readScale !== undefined && page.readScale > 0 && page.readScale < 1 ? page.readScale : undefined;
  const target = smaller
    ? { width: Math.round(decoded.width * smaller), height: Math.round(decoded.height * smaller), dpi: fileDpi * smaller }
    : ocrResolution(decoded.width, decoded.height, fileDpi);
  let pipeline = sharpFromGray(decoded);
  if (target.width !== decoded.width || target.height !== decoded.height) {
    pipeline = pipeline.resize(target.width, target.height, { kernel: 'lanczos3', fit: 'fill' });
  }
  // Level 1: the PNG only crosses to a worker thread, speed matters more than size.
  // One channel: sharp widens a resized grey image to RGB unless told otherwise.
  const png = await pipeline.toColourspace('b-w').png({ compressionLevel: 1 }).toBuffer();
  return {
    png,
    dpi: Math.round(target.dpi),
    scaleX: page.width / target.width,
    scaleY: page.height / target.height,
    bitonal,
  };
}
