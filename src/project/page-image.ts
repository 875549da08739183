import sharp, { type Sharp } from 'sharp';
import type { PageKind } from './types.js';
import { fileSystemError } from './file-errors.js';
import { writeFileAtomically } from './files.js';

/** Raw page pixels as the pipeline hands them over. 0 is black, 255 is white. */
export interface PageRaster {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 3;
}

/**
 * A page whose pixels a sharp pipeline makes (`width`×`height`, one grey or three colour channels), encoded straight
 * from it: no raw copy of the page is handed out of libvips and back in.
 */
export interface PagePipeline {
  pipeline: Sharp;
  width: number;
  height: number;
  channels: 1 | 3;
}

/** Gray and colour pages: a good look at text and photos at a fraction of the raw size. */
export const PAGE_JPEG_QUALITY = 85;

const MM_PER_INCH = 25.4;

/** A JPEG a PDF can show exactly as it is (`DCTDecode`): its size and number of colour components. */
export interface PdfReadyJpeg {
  width: number;
  height: number;
  components: 1 | 3;
}

/**
 * Whether `bytes` is a JPEG that a PDF shows unchanged: grey or sRGB (not CMYK, whose Adobe inversion PDFs read
 * differently), upright (PDF viewers ignore EXIF orientation). Such a page is carried into the output byte for
 * byte; anything else is re-encoded.
 */
export async function pdfReadyJpeg(bytes: Uint8Array): Promise<PdfReadyJpeg | null> {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let meta;
  try {
    meta = await sharp(bytes).metadata();
  } catch {
    return null;
  }
  const { format, width, height, channels, space, orientation } = meta;
  if (format !== 'jpeg' || (orientation ?? 1) !== 1 || !(width > 0 && height > 0)) return null;
  if (!((channels === 1 && space === 'b-w') || (channels === 3 && space === 'srgb'))) return null;
  return { width, height, components: channels };
}

/**
 * Write a final page image and return its path: a CCITT G4 TIFF (`.tif`) for bitonal pages,
 * a JPEG (`.jpg`) for gray and colour pages. The file appears whole or not at all.
 */
export async function writePageImage(image: PageRaster | PagePipeline, kind: PageKind, dpi: number, pathNoExt: string): Promise<string> {
  const path = `${pathNoExt}${kind === 'bitonal' ? '.tif' : '.jpg'}`;
  const bytes = kind === 'bitonal' ? await encodeBitonalTiff(image, dpi) : await encodePageJpeg(image, kind, dpi);
  try {
    await writeFileAtomically(path, bytes);
  } catch (e) {
    throw await fileSystemError(e, path);
  }
  return path;
}

/**
 * Encode a page as a CCITT G4 TIFF holding ONE strip that covers the whole page. A single strip is
 * one G4 stream the PDF writer can copy byte for byte (libvips's default strips restart every 256
 * rows and cannot be joined), and the tesseract program reads the file as it is (its leptonica
 * reads no tiled TIFF, which pages were before). Pixels below 128 become black. Min-is-white is the fax convention: the
 * data then decodes with PDF's default `/BlackIs1 false`.
 */
export async function encodeBitonalTiff(image: PageRaster | PagePipeline, dpi: number): Promise<Buffer> {
  const pixelsPerMm = dpi / MM_PER_INCH;
  return rasterToSharp(image)
    .toColourspace('b-w')
    .tiff({
      compression: 'ccittfax4',
      bitdepth: 1,
      miniswhite: true,
      // Not tiled, libvips takes the tile height as the rows per strip.
      tileHeight: image.height,
      xres: pixelsPerMm,
      yres: pixelsPerMm,
      resolutionUnit: 'inch',
    })
    .toBuffer();
}

/** Encode a gray or colour page as a baseline JPEG carrying its resolution. */
export async function encodePageJpeg(image: PageRaster | PagePipeline, kind: PageKind, dpi: number): Promise<Buffer> {
  const pipeline = rasterToSharp(image);
  // A gray page is stored with one component, a third of the size of an RGB JPEG of the same page.
  const shaped = kind === 'color' && image.channels === 3 ? pipeline.toColourspace('srgb') : pipeline.toColourspace('b-w');
  return shaped.jpeg({ quality: PAGE_JPEG_QUALITY, mozjpeg: false }).withDensity(dpi).toBuffer();
}

function rasterToSharp(image: PageRaster | PagePipeline): Sharp {
  if ('pipeline' in image) return image.pipeline;
  const expected = image.width * image.height * image.channels;
  if (image.data.length !== expected) {
    throw new Error(`page raster holds ${image.data.length} bytes, expected ${expected} for ${image.width}×${image.height}×${image.channels}`);
  }
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
}
