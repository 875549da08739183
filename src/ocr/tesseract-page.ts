/**
 * The page image as tesseract should see it: one grey channel, encoded as PNG (tesseract.js's
 * Leptonica cannot read our tiled G4 TIFFs), at a resolution where tesseract reads best.
 */
import { ERROR_CODES, QuireError, describeError } from '../errors.js';
import { decodeGray, isBitonal, sharpFromGray, type GrayImage } from '../imaging/index.js';
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
