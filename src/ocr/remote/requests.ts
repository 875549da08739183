/** What goes to `/v1/ocr` (a PDF or an image, as a data URL) and how a reply's page is found again. */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import sharp from 'sharp';
import type { OcrReply } from './protocol.js';

export function dataUrl(type: string, bytes: Uint8Array): string {
  return `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
}

/** A page image as the service takes images: JPEG and PNG as they are, anything else (G4 TIFF) as PNG. */
export async function imageDataUrl(file: string): Promise<string> {
  const ext = extname(file).toLowerCase();
  const bytes = await readFile(file);
  if (ext === '.jpg' || ext === '.jpeg') return dataUrl('image/jpeg', bytes);
  if (ext === '.png') return dataUrl('image/png', bytes);
  return dataUrl('image/png', await sharp(bytes).png().toBuffer());
}

/** The reply's page for position `k` of a request: by its index, which the service counts from 0 in the document sent. */
export function replyPage(reply: OcrReply, k: number): OcrReply['pages'][number] | undefined {
  return reply.pages.find((p) => p.index === k);
}
