/**
 * What the page shows of pixels: page images (G4 TIFF, JPEG) and source frames, made into JPEGs a
 * browser reads, at a size a screen needs, once per file.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import sharp from 'sharp';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { frameSharp, type SourceFrame } from '../convert/index.js';
import { replaceAtomically } from '../project/index.js';

/** Thumbnails for the grid and the larger image of the page view, in pixels wide. */
export const PREVIEW_WIDTHS = { thumb: 320, full: 1400 } as const;
export type PreviewSize = keyof typeof PREVIEW_WIDTHS;

/** Frames are shown beside the page, never wider than this. */
const FRAME_WIDTH = 1600;

/** Several requests for one preview share one rendering. */
const rendering = new Map<string, Promise<void>>();

async function once(dest: string, render: (temp: string) => Promise<void>): Promise<void> {
  if (existsSync(dest)) return;
  let pending = rendering.get(dest);
  if (!pending) {
    pending = (async () => {
      await mkdir(dirname(dest), { recursive: true });
      await replaceAtomically(dest, render);
    })().finally(() => rendering.delete(dest));
    rendering.set(dest, pending);
  }
  await pending;
}

/** A page image as a JPEG `width` pixels wide at most. */
export async function renderPagePreview(source: string, dest: string, size: PreviewSize): Promise<void> {
  await once(dest, async (temp) => {
    await sharp(source)
      .resize({ width: PREVIEW_WIDTHS[size], withoutEnlargement: true })
      .jpeg({ quality: size === 'thumb' ? 75 : 85 })
      .toFile(temp);
  });
}

/**
 * The frame as the pipeline saw it (EXIF orientation applied, as the pipeline decodes it), so the
 * page box and gutter recorded in frame pixels land where they belong. Returns the frame's size.
 */
export async function renderFramePreview(frame: SourceFrame, dest: string): Promise<{ width: number; height: number }> {
  try {
    const { data, info } = await frameSharp(await frame.load())
      .rotate()
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    await once(dest, async (temp) => {
      await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
        .resize({ width: FRAME_WIDTH, withoutEnlargement: true })
        .jpeg({ quality: 80 })
        .toFile(temp);
    });
    return { width: info.width, height: info.height };
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_IMAGE, `Frame ${frame.index} (${frame.input}) cannot be shown.`, describeError(e));
  }
}
