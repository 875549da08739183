import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { PageKind } from '../project/types.js';
import { encodeBitonalTiff, PAGE_JPEG_QUALITY } from './page-image.js';
import { singleG4Segment, type G4Segment } from './tiff.js';

/** A page image in the form a PDF image XObject stores it. */
export type PdfImageData =
  | ({ encoding: 'ccitt' } & G4Segment)
  | { encoding: 'jpeg'; width: number; height: number; components: 1 | 3; data: Uint8Array };

/** Pixels limit for page images we decode: a 600-dpi A3 page is ~70 MP. */
const MAX_PAGE_PIXELS = 268_402_689;

/**
 * The page's G4 data: lifted byte for byte from a single-tile (or single-strip) G4 TIFF, else
 * made by thresholding the page (Otsu) and encoding it the way `writePageImage` does.
 */
export async function g4ImageOf(file: string, dpi: number): Promise<PdfImageData> {
  const bytes = await readFile(file);
  const lifted = singleG4Segment(bytes);
  if (lifted) return { encoding: 'ccitt', ...lifted };

  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_PAGE_PIXELS })
    .rotate()
    .flatten({ background: '#ffffff' })
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const gray = new Uint8Array(data.buffer, data.byteOffset, data.length);
  binarizeInPlace(gray, otsuThreshold(histogramOf(gray)));
  const tiff = await encodeBitonalTiff({ data: gray, width: info.width, height: info.height, channels: 1 }, dpi);
  const encoded = singleG4Segment(tiff);
  if (!encoded) throw new Error('sharp did not write a single-tile G4 TIFF');
  return { encoding: 'ccitt', ...encoded };
}

/**
 * The page as a JPEG: an existing baseline or progressive JPEG with one or three components is
 * embedded unchanged; anything else (a G4 TIFF, a PNG, CMYK, a rotated EXIF JPEG) is encoded
 * once, gray unless the page is colour.
 */
export async function jpegImageOf(file: string, kind: PageKind): Promise<PdfImageData> {
  const bytes = await readFile(file);
  const meta = await sharp(bytes).metadata();
  const channels = meta.channels;
  const upright = (meta.orientation ?? 1) === 1;
  if (meta.format === 'jpeg' && upright && (channels === 1 || channels === 3) && (meta.space === 'b-w' || meta.space === 'srgb')) {
    return { encoding: 'jpeg', width: meta.width, height: meta.height, components: channels, data: bytes };
  }

  const color = kind === 'color' && channels >= 3;
  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_PAGE_PIXELS })
    .rotate()
    .flatten({ background: '#ffffff' })
    .toColourspace(color ? 'srgb' : 'b-w')
    .jpeg({ quality: PAGE_JPEG_QUALITY, mozjpeg: false })
    .toBuffer({ resolveWithObject: true });
  return { encoding: 'jpeg', width: info.width, height: info.height, components: color ? 3 : 1, data };
}

export function histogramOf(gray: Uint8Array): Uint32Array {
  const histogram = new Uint32Array(256);
  for (let i = 0; i < gray.length; i++) histogram[gray[i]]++;
  return histogram;
}

/**
 * Otsu's threshold: the level that best separates ink from paper. Pixels at or below it are ink.
 * A page of one single value has nothing to separate: it is cut at mid-gray.
 */
export function otsuThreshold(histogram: Uint32Array): number {
  let total = 0;
  let sumAll = 0;
  for (let v = 0; v < 256; v++) {
    total += histogram[v];
    sumAll += v * histogram[v];
  }
  let best = 127;
  let bestVariance = -1;
  let countBelow = 0;
  let sumBelow = 0;
  for (let t = 0; t < 255; t++) {
    countBelow += histogram[t];
    sumBelow += t * histogram[t];
    const countAbove = total - countBelow;
    if (countBelow === 0 || countAbove === 0) continue;
    const meanBelow = sumBelow / countBelow;
    const meanAbove = (sumAll - sumBelow) / countAbove;
    const variance = countBelow * countAbove * (meanBelow - meanAbove) ** 2;
    if (variance > bestVariance) {
      bestVariance = variance;
      best = t;
    }
  }
  return best;
}

/** Ink (≤ threshold) becomes 0, paper 255. */
export function binarizeInPlace(gray: Uint8Array, threshold: number): void {
  for (let i = 0; i < gray.length; i++) gray[i] = gray[i] <= threshold ? 0 : 255;
}
