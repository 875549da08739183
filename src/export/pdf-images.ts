import { readFile } from 'node:fs/promises';
import { decodeGray, histogram, otsuThreshold, readImage, singleG4Segment, type G4Segment } from '../imaging/index.js';
import { encodeBitonalTiff, PAGE_JPEG_QUALITY, pdfReadyJpeg, type PageKind } from '../project/index.js';

/** A page image in the form a PDF image XObject stores it. */
export type PdfImageData = ({ encoding: 'ccitt' } & G4Segment) | { encoding: 'jpeg'; width: number; height: number; components: 1 | 3; data: Uint8Array };

/**
 * The page's G4 data: lifted byte for byte from a single-tile (or single-strip) G4 TIFF, else
 * made by thresholding the page (Otsu) and encoding it the way `writePageImage` does.
 */
export async function g4ImageOf(file: string, dpi: number): Promise<PdfImageData> {
  const bytes = await readFile(file);
  const lifted = singleG4Segment(bytes);
  if (lifted) return { encoding: 'ccitt', ...lifted };

  const page = await decodeGray(bytes);
  binarizeInPlace(page.data, otsuThreshold(histogram(page.data)));
  const tiff = await encodeBitonalTiff({ ...page, channels: 1 }, dpi);
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
  const ready = await pdfReadyJpeg(bytes);
  if (ready) return { encoding: 'jpeg', ...ready, data: bytes };

  const color = kind === 'color' && ((await readImage(bytes).metadata()).channels ?? 1) >= 3;
  const { data, info } = await readImage(bytes)
    .rotate()
    .flatten({ background: '#ffffff' })
    .toColourspace(color ? 'srgb' : 'b-w')
    .jpeg({ quality: PAGE_JPEG_QUALITY, mozjpeg: false })
    .toBuffer({ resolveWithObject: true });
  return { encoding: 'jpeg', width: info.width, height: info.height, components: color ? 3 : 1, data };
}

/** Ink (≤ threshold) becomes 0, paper 255. */
function binarizeInPlace(gray: Uint8Array, threshold: number): void {
  for (let i = 0; i < gray.length; i++) gray[i] = gray[i] <= threshold ? 0 : 255;
}
