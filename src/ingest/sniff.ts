import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** What a file's first bytes say it is. */
export type Magic = 'pdf' | 'zip' | 'jpeg' | 'png' | 'tiff' | 'webp';

export type ImageFormat = 'jpeg' | 'png' | 'tiff' | 'webp';

/** How many leading bytes `sniff` needs: PDF readers accept up to 1 KiB of junk before `%PDF-`. */
export const SNIFF_BYTES = 1024;

export function sniffImage(head: Uint8Array): ImageFormat | null {
  const b = head;
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) {
    return 'png';
  }
  // Classic TIFF (42) and BigTIFF (43), little- and big-endian.
  if (b.length >= 4 && b[0] === 0x49 && b[1] === 0x49 && (b[2] === 0x2a || b[2] === 0x2b) && b[3] === 0x00) return 'tiff';
  if (b.length >= 4 && b[0] === 0x4d && b[1] === 0x4d && b[2] === 0x00 && (b[3] === 0x2a || b[3] === 0x2b)) return 'tiff';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return 'webp';
  return null;
}

export function sniff(head: Uint8Array): Magic | null {
  const image = sniffImage(head);
  if (image) return image;
  // Local file header, or the end record of an empty archive.
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) return 'zip';
  if (Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, SNIFF_BYTES)).includes('%PDF-')) return 'pdf';
  return null;
}

function ascii(b: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...b.subarray(start, start + length));
}

/** The first `length` bytes of a file (fewer when it is shorter). */
export async function readHead(path: string, length = SNIFF_BYTES): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Synchronous `readHead`, for `inputType`, which answers without awaiting. */
export function readHeadSync(path: string, length = SNIFF_BYTES): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const bytesRead = readSync(fd, buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    closeSync(fd);
  }
}

/**
 * Width and height as a PNG's IHDR or a JPEG's frame header declares them, read from the bytes themselves: the
 * decoders refuse some sizes outright (libjpeg past 65500 pixels, sharp past its own pixel limit) before saying
 * them, and a size too large must still be told as one. Undefined for other formats, or a header not within `head`.
 */
export function declaredImageSize(head: Buffer): { width: number; height: number } | undefined {
  const format = sniffImage(head);
  if (format === 'png') return head.length >= 24 && ascii(head, 12, 4) === 'IHDR' ? { width: head.readUInt32BE(16), height: head.readUInt32BE(20) } : undefined;
  if (format !== 'jpeg') return undefined;
  let at = 2;
  while (at + 9 <= head.length && head[at] === 0xff) {
    const marker = head[at + 1];
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    // SOF0–SOF15, less DHT (C4), JPG (C8) and DAC (CC): precision, then height and width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: head.readUInt16BE(at + 7), height: head.readUInt16BE(at + 5) };
    }
    if (marker === 0xd9 || marker === 0xda) return undefined;
    at += 2 + head.readUInt16BE(at + 2);
  }
  return undefined;
}
