import { deflateSync } from 'node:zlib';
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

export interface PageImageOptions {
  /**
   * A bitonal page from raw pixels is written as a draft (`encodeBitonalDraft`): a Deflate TIFF, quick to write, for a page
   * whose final size is not known yet. Whoever sets it on its page size encodes it as G4 then, once.
   */
  draft?: boolean;
}

/**
 * Write a page image and return its path: a CCITT G4 TIFF (`.tif`) for bitonal pages (or its draft, see
 * `PageImageOptions`), a JPEG (`.jpg`) for gray and colour pages. The file appears whole or not at all.
 */
export async function writePageImage(
  image: PageRaster | PagePipeline,
  kind: PageKind,
  dpi: number,
  pathNoExt: string,
  options: PageImageOptions = {},
): Promise<string> {
  const path = `${pathNoExt}${kind === 'bitonal' ? '.tif' : '.jpg'}`;
  let bytes: Uint8Array;
  if (kind !== 'bitonal') bytes = await encodePageJpeg(image, kind, dpi);
  else if (options.draft === true && !('pipeline' in image) && image.channels === 1) bytes = encodeBitonalDraft(image, dpi);
  else bytes = await encodeBitonalTiff(image, dpi);
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

/** Tags of a draft's image directory, in the ascending order TIFF asks for: [tag, type (3 short, 4 long, 5 rational)]. */
const DRAFT_TAGS = [
  [256, 4], // width
  [257, 4], // height
  [258, 3], // bits per sample: 1
  [259, 3], // compression: 8, Deflate
  [262, 3], // photometric: 0, white is zero (as the G4 pages)
  [273, 4], // strip offset
  [277, 3], // samples per pixel: 1
  [278, 4], // rows per strip: all of them
  [279, 4], // strip byte count
  [282, 5], // x resolution
  [283, 5], // y resolution
  [296, 3], // resolution unit: 2, inch
] as const;

/**
 * A bitonal page as a 1-bit TIFF in one Deflate strip (pixels below 128 are ink), written here without libvips:
 * packing the bits and zlib's fastest level take about 4 ms of a 4-megapixel page where libvips' G4 encoder takes 10–13.
 * Every reader of the pages reads it (sharp, the tesseract program, the G4 check of the PDF writer, which re-encodes
 * it). It is about twice the size of the G4 file (uncompressed, it was 8–15 times: half a megabyte a page, which a long
 * book would hold in its project until the page-size pass), so it is a draft for the time between the page's making
 * and its page size.
 */
export function encodeBitonalDraft(image: PageRaster, dpi: number): Uint8Array {
  const { width, height, data } = image;
  if (data.length !== width * height) throw new Error(`bitonal draft needs one channel: ${data.length} bytes for ${width}×${height}`);
  const strip = deflateSync(packBits(data, width, height), { level: 1 });
  const ifdAt = 8;
  const rationalAt = ifdAt + 2 + DRAFT_TAGS.length * 12 + 4;
  const dataAt = rationalAt + 16;
  const out = new Uint8Array(dataAt + strip.length);
  const view = new DataView(out.buffer);
  out.set([0x49, 0x49, 42, 0]);
  view.setUint32(4, ifdAt, true);
  view.setUint16(ifdAt, DRAFT_TAGS.length, true);
  const ppi = Math.round(dpi * 1000);
  const values: Record<number, number> = {
    256: width,
    257: height,
    258: 1,
    259: TIFF_DEFLATE,
    262: 0,
    273: dataAt,
    277: 1,
    278: height,
    279: strip.length,
    282: rationalAt,
    283: rationalAt + 8,
    296: 2,
  };
  DRAFT_TAGS.forEach(([tag, type], i) => {
    const at = ifdAt + 2 + i * 12;
    view.setUint16(at, tag, true);
    view.setUint16(at + 2, type, true);
    view.setUint32(at + 4, 1, true);
    if (type === 3) view.setUint16(at + 8, values[tag], true);
    else view.setUint32(at + 8, values[tag], true);
  });
  for (const at of [rationalAt, rationalAt + 8]) {
    view.setUint32(at, ppi, true);
    view.setUint32(at + 4, 1000, true);
  }
  out.set(strip, dataAt);
  return out;
}

/** TIFF's compression tag for Deflate (zlib), as libtiff writes it. */
export const TIFF_DEFLATE = 8;

/** One grey channel as 1-bit rows, eight pixels a byte, the first in the top bit, each row to a whole byte; ink (< 128) is 1. */
function packBits(data: Uint8Array, width: number, height: number): Uint8Array {
  const rowBytes = (width + 7) >> 3;
  const out = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let o = y * rowBytes;
    let x = 0;
    for (; x + 8 <= width; x += 8, o++) {
      const i = row + x;
      out[o] =
        ((data[i] >> 7) << 7) |
        ((data[i + 1] >> 7) << 6) |
        ((data[i + 2] >> 7) << 5) |
        ((data[i + 3] >> 7) << 4) |
        ((data[i + 4] >> 7) << 3) |
        ((data[i + 5] >> 7) << 2) |
        ((data[i + 6] >> 7) << 1) |
        (data[i + 7] >> 7);
      out[o] ^= 0xff;
    }
    if (x < width) {
      let byte = 0;
      for (let bit = 7; x < width; x++, bit--) if (data[row + x] < 128) byte |= 1 << bit;
      out[o] = byte;
    }
  }
  return out;
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
