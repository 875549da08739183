/** Turning a finished page the right way up, once OCR's orientation detection has said how far. */
import { join } from 'node:path';
import { decodeGray, sharpFromGray, type GrayImage } from '../imaging/index.js';
import { writePageImage, type ProjectPage } from '../project/index.js';
import { padForG4 } from './resample.js';

async function turned(file: string, degrees: number): Promise<GrayImage> {
  const { data, info } = await sharpFromGray(await decodeGray(file))
    .rotate(degrees)
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/**
 * Turn a page's image (and its reading image) `degrees` clockwise in the project, rewriting the files, and record
 * the turn in `decisions.orientation`. A bitonal page keeps its G4-ready width (a multiple of 16).
 */
export async function turnPage(projectDir: string, page: ProjectPage, degrees: 90 | 180 | 270, confidence: number): Promise<void> {
  if (page.kind !== 'bitonal' && page.kind !== 'gray') return;
  const stem = (file: string): string => join(projectDir, file.replace(/\.[^.]+$/, ''));
  const image = await turned(join(projectDir, page.file), degrees);
  const placed = page.kind === 'bitonal' ? padForG4(image) : image;
  await writePageImage({ ...placed, channels: 1 }, page.kind, page.dpi, stem(page.file));
  if (page.ocrImage) {
    const reading = await turned(join(projectDir, page.ocrImage), degrees);
    const padded = { width: placed.width, height: placed.height, data: new Uint8Array(placed.width * placed.height).fill(255) };
    for (let y = 0; y < reading.height; y++) padded.data.set(reading.data.subarray(y * reading.width, (y + 1) * reading.width), y * placed.width);
    await writePageImage({ ...padded, channels: 1 }, 'gray', page.dpi, stem(page.ocrImage));
  }
  page.width = placed.width;
  page.height = placed.height;
  page.decisions.orientation = { rotated: degrees, confidence };
}
