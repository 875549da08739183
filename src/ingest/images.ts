import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import sharp, { type Metadata } from 'sharp';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { checkImagePixels } from '../imaging/index.js';
import { hasCameraExif } from './exif.js';
import { declaredImageSize, readHead, sniffImage } from './sniff.js';
import type { FrameKind, OpenedInput, SourceFrame } from './types.js';

/** A resolution outside this range is not a page scan (or is a placeholder). */
const MIN_DPI = 50;
const MAX_DPI = 4800;
/** 72 is what cameras, phones and image editors write when they do not know: it means "unknown", never a scan. */
const UNKNOWN_DPI = 72;
/** Below this, a page image is too coarse to be a scan, whatever it says. */
const SCAN_MIN_DPI = 150;

/**
 * Several image files as one document, in the given order. `paths` are as the user typed them; `label` names a
 * single image as the user knows it, in messages and for the document name.
 */
export async function openImageFiles(paths: string[], label?: string): Promise<OpenedInput> {
  if (paths.length === 0) throw new QuireError(ERROR_CODES.USAGE, 'No image files were given.');
  const frames: SourceFrame[] = [];
  for (const path of paths) {
    for (const frame of await describeImageFile(path, paths.length === 1 && label ? label : path)) frames.push({ ...frame, index: frames.length + 1 });
  }
  return { name: documentName(paths.length === 1 && label ? [label] : paths), kind: 'images', frames, close: async () => undefined };
}

/** Enough of a file for its header's size: a JPEG's frame header comes after its EXIF (at most 64 KiB). */
const IMAGE_HEAD_BYTES = 128 * 1024;

async function describeImageFile(path: string, label: string): Promise<SourceFrame[]> {
  const notImage = (detail?: string) => new QuireError(ERROR_CODES.BAD_IMAGE, `${label} is not an image Quire can read (JPEG, PNG, TIFF or WebP).`, detail);
  let info;
  try {
    info = await stat(path);
  } catch (e) {
    throw new QuireError(ERROR_CODES.INPUT_NOT_FOUND, `${label} was not found.`, describeError(e));
  }
  if (!info.isFile()) throw notImage('not a regular file');
  const head = await readHead(path, IMAGE_HEAD_BYTES);
  const format = sniffImage(head);
  if (!format) throw notImage();
  const name = basename(label);
  // The header's size, checked before anything decodes it, and before a decoder refuses a size it cannot hold.
  const declared = declaredImageSize(head);
  if (declared) checkImagePixels(name, declared.width, declared.height);
  let meta: Metadata;
  try {
    // Metadata reads no pixel: no limit here, the size is checked just below.
    meta = await sharp(path, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw notImage(describeError(e));
  }
  checkImagePixels(name, meta.width, meta.pageHeight ?? meta.height);
  const pages = format === 'tiff' ? Math.max(1, meta.pages ?? 1) : 1;
  if (pages === 1) {
    return [frameOf(path, name, meta, undefined)];
  }
  const frames: SourceFrame[] = [];
  for (let page = 0; page < pages; page++) {
    // Each page of a TIFF has its own resolution tags.
    const pageMeta =
      page === 0
        ? meta
        : await sharp(path, { page })
            .metadata()
            .catch(() => meta);
    checkImagePixels(`${name} page ${page + 1}`, pageMeta.width, pageMeta.height);
    frames.push(frameOf(path, `${name}#${page + 1}`, pageMeta, page));
  }
  return frames;
}

function frameOf(path: string, input: string, meta: Metadata, page: number | undefined): SourceFrame {
  const camera = hasCameraExif(meta.exif);
  const dpi = camera ? undefined : plausibleDpi(meta.density);
  return {
    index: 0,
    input,
    kind: imageKind(dpi, camera),
    ...(dpi === undefined ? {} : { dpi: { value: dpi, source: 'image' as const } }),
    load: async () => ({ data: await readAgain(path), ...(page === undefined ? {} : { page }) }),
  };
}

async function readAgain(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (e) {
    throw new QuireError(ERROR_CODES.INPUT_NOT_FOUND, `${path} can no longer be read: it was moved or removed after Quire opened it.`, describeError(e));
  }
}

/**
 * The resolution an image states, when it is believable. A camera does not know how far the page was, so a
 * photo with camera EXIF has no resolution whatever it says (the caller skips this for those).
 */
export function plausibleDpi(density: number | undefined): number | undefined {
  if (density === undefined || !Number.isFinite(density)) return undefined;
  // PNG stores pixels per metre: 300 dpi comes back as 299.9994.
  const dpi = Math.round(density);
  if (dpi < MIN_DPI || dpi > MAX_DPI || dpi === UNKNOWN_DPI) return undefined;
  return dpi;
}

export function imageKind(dpi: number | undefined, cameraExif: boolean): FrameKind {
  // A page image with a real resolution of scanner quality and no camera EXIF came from a scanner or a scanning app.
  return !cameraExif && dpi !== undefined && dpi >= SCAN_MIN_DPI ? 'scan' : 'camera';
}

/** One file: its stem. Several from one folder: the folder's name (`scans/p1.png`, `scans/p2.png` → "scans"). */
function documentName(paths: string[]): string {
  const stem = (p: string) => basename(p, extname(p));
  if (paths.length === 1) return stem(paths[0]);
  const folders = new Set(paths.map((p) => dirname(resolve(p))));
  const folder = folders.size === 1 ? basename([...folders][0]) : '';
  return folder || stem(paths[0]);
}
