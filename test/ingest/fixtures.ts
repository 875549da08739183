import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import sharp from 'sharp';
import yazl from 'yazl';

/** A flat grey JPEG of a known size (and a known first byte pattern). */
export async function jpeg(width: number, height: number, grey = 128): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: grey, g: grey, b: grey } } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/**
 * A decompression bomb: a JPEG of a few hundred bytes whose frame header declares `width`×`height`. Decoding it
 * would allocate the whole declared image; its header alone gives it away.
 */
export async function declaredJpeg(width: number, height: number): Promise<Buffer> {
  const small = Buffer.from(
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#888' } })
      .jpeg({ quality: 50 })
      .toBuffer(),
  );
  // The baseline frame header: FF C0, length, precision, then height and width, big-endian.
  const sof = small.indexOf(Buffer.from([0xff, 0xc0]));
  if (sof < 0) throw new Error('no baseline frame header');
  small.writeUInt16BE(height, sof + 5);
  small.writeUInt16BE(width, sof + 7);
  return small;
}

export interface ZipItem {
  name: string;
  data?: Buffer | string;
  /** A stream of this many zero bytes instead of `data` (a zip bomb's payload, never held in memory). */
  zeros?: number;
  /** Unix mode with type bits, e.g. 0o120777 for a symbolic link. */
  mode?: number;
  compress?: boolean;
}

export async function writeZip(path: string, items: ZipItem[]): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const item of items) {
    const options = { ...(item.mode === undefined ? {} : { mode: item.mode }), compress: item.compress ?? false };
    if (item.zeros !== undefined) zip.addReadStream(zeroStream(item.zeros), item.name, { ...options, compress: true, compressionLevel: 9 });
    else zip.addBuffer(Buffer.from(item.data ?? ''), item.name, options);
  }
  zip.end();
  const out = createWriteStream(path);
  (zip.outputStream as Readable).pipe(out);
  await finished(out);
}

function zeroStream(total: number): Readable {
  const chunk = Buffer.alloc(1 << 20);
  let left = total;
  return new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const n = Math.min(left, chunk.length);
      left -= n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}

/**
 * yazl refuses unsafe names (rightly), so a hostile archive is made with a harmless placeholder name of the same
 * length, then the name is swapped in the local header and the central directory.
 */
export async function renameInZip(path: string, from: string, to: string): Promise<void> {
  if (from.length !== to.length) throw new Error('names must have the same length');
  const bytes = await readFile(path);
  const needle = Buffer.from(from);
  let at = bytes.indexOf(needle);
  let count = 0;
  while (at >= 0) {
    Buffer.from(to).copy(bytes, at);
    count++;
    at = bytes.indexOf(needle, at + needle.length);
  }
  if (count !== 2) throw new Error(`expected the name twice, found it ${count} times`);
  await writeFile(path, bytes);
}

export interface BundleOptions {
  manifest?: Record<string, unknown> | string;
  /** pages.jsonl content; by default one line per image, in the order given. */
  pages?: string;
  images?: Array<{ index: number; file: string; data: Buffer }>;
}

/** The files of a scan bundle, by their path inside it. */
export function bundleFiles(options: BundleOptions): Record<string, Buffer | string> {
  const images = options.images ?? [];
  const manifest = options.manifest ?? { format_version: 1, project: 'Test book', created: '2026-01-01T00:00:00Z', device: 'test', page_count: images.length };
  const pages =
    options.pages ?? images.map((i) => JSON.stringify({ index: i.index, file: i.file, captured: '2026-01-01T00:00:00Z', w: 10, h: 10 })).join('\n') + '\n';
  const files: Record<string, Buffer | string> = {
    'manifest.json': typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
    'pages.jsonl': pages,
  };
  for (const image of images) files[image.file] = image.data;
  return files;
}

export async function writeBundleZip(path: string, files: Record<string, Buffer | string>, prefix = ''): Promise<void> {
  await writeZip(
    path,
    Object.entries(files).map(([name, data]) => ({ name: prefix + name, data })),
  );
}

export async function writeBundleFolder(dir: string, files: Record<string, Buffer | string>): Promise<void> {
  for (const [name, data] of Object.entries(files)) {
    const full = join(dir, ...name.split('/'));
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, data);
  }
}
