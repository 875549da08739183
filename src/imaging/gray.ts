import { readFile } from 'node:fs/promises';
import sharp, { type Sharp } from 'sharp';
import { ERROR_CODES, QuireError } from '../errors.js';
import type { Box } from '../project/index.js';

export type { Box };

/**
 * The most pixels Quire decodes from one image: a 50-megapixel camera frame or a 600-dpi A4 page (35 MP) fits;
 * past this lies a decompression bomb, not a page (a 1.5 KB JPEG can declare 16000×9000 and take gigabytes to decode).
 */
export const MAX_IMAGE_PIXELS = 60_000_000;

/**
 * Refuse an image whose header declares more than {@link MAX_IMAGE_PIXELS}, before a pixel is decoded. `what`
 * names it as the user knows it ("book.aglbundle: page 3 (images/0003.jpg)").
 */
export function checkImagePixels(what: string, width: number | undefined, height: number | undefined): void {
  if (width === undefined || height === undefined || width * height <= MAX_IMAGE_PIXELS) return;
  throw new QuireError(
    ERROR_CODES.BAD_IMAGE,
    `${what} is ${width}×${height} pixels, more than the ${MAX_IMAGE_PIXELS / 1_000_000} megapixels Quire accepts.`,
    `declared ${width * height} pixels; limit ${MAX_IMAGE_PIXELS}`,
  );
}

/** An 8-bit, one-channel image, row-major. 0 is black, 255 is white. */
export interface GrayImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

export function createGray(width: number, height: number, fill = 255): GrayImage {
  return { width, height, data: new Uint8Array(width * height).fill(fill) };
}

/** An image as a frame arrives: encoded bytes sharp reads (one page of a multi-page TIFF), or raw pixels. */
export interface ImageBytes {
  data: Buffer;
  page?: number;
  raw?: { width: number; height: number; channels: 1 | 3 | 4 };
}

/** A sharp pipeline reading a loaded frame: its raw pixels, or its encoded image within the pixel limit. */
export function frameSharp(frame: ImageBytes): Sharp {
  if (frame.raw) return sharp(frame.data, { raw: frame.raw });
  return readImage(frame.data, { page: frame.page ?? 0 });
}

/** A sharp pipeline reading an image file or its bytes (one page of a multi-page TIFF), within the pixel limit. */
export function readImage(input: Buffer | string, options: { page?: number } = {}): Sharp {
  return sharp(input, { page: options.page ?? 0, limitInputPixels: MAX_IMAGE_PIXELS });
}

/**
 * Decode any image sharp reads to one grey channel. A path is read into memory first: libvips caches images by
 * file name, and page images are rewritten in place (a page set on the document's page size, a page turned the
 * right way up) — a cached decode would hand back the old pixels.
 */
export async function decodeGray(input: Buffer | string | Sharp, options: { page?: number } = {}): Promise<GrayImage> {
  if (typeof input === 'string') return grayOf(readImage(await readFile(input), options));
  return grayOf(Buffer.isBuffer(input) ? readImage(input, options) : input);
}

/** Run a sharp pipeline to one grey channel: EXIF orientation applied, transparency laid on white paper. */
async function grayOf(image: Sharp): Promise<GrayImage> {
  const { data, info } = await image
    .rotate()
    // A transparent background would otherwise turn black.
    .flatten({ background: '#ffffff' })
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`expected 1 channel, got ${info.channels}`);
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** A sharp pipeline reading this grey image. */
export function sharpFromGray(image: GrayImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 1 } });
}

/** Copy the part of `image` inside `box` (clamped to the image). */
export function cropGray(image: GrayImage, box: Box): GrayImage {
  const x0 = Math.max(0, Math.round(box.x));
  const y0 = Math.max(0, Math.round(box.y));
  const x1 = Math.min(image.width, Math.round(box.x + box.width));
  const y1 = Math.min(image.height, Math.round(box.y + box.height));
  const w = Math.max(1, x1 - x0);
  const h = Math.max(1, y1 - y0);
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const src = (y0 + y) * image.width + x0;
    out.set(image.data.subarray(src, src + Math.min(w, image.width - x0)), y * w);
  }
  return { width: w, height: h, data: out };
}
