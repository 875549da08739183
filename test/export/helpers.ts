import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { PageRaster } from '../../src/project/page-image.js';

const made: string[] = [];

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `quire-${prefix}-`));
  made.push(dir);
  return dir;
}

/** Remove every folder `tempDir` made (call from `afterAll`). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Run a Debian tool and return its stdout. */
export function tool(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A white page with black bars of known position: something a flipped or inverted page breaks. */
export function bitonalPage(width: number, height: number): PageRaster {
  const data = new Uint8Array(width * height).fill(255);
  const fill = (x0: number, y0: number, w: number, h: number, value: number): void => {
    for (let y = y0; y < Math.min(height, y0 + h); y++) data.fill(value, y * width + x0, y * width + Math.min(width, x0 + w));
  };
  // A thick bar at the top left, thin lines like text below it, a block at the bottom right.
  fill(8, 8, Math.floor(width / 3), 20, 0);
  for (let y = 40; y < height - 40; y += 12) fill(10, y, width - 30 - ((y * 7) % 50), 3, 0);
  fill(width - 30, height - 25, 22, 17, 0);
  return { data, width, height, channels: 1 };
}

/** A gray page: a left-to-right ramp from light to mid gray, and dark text-like bars. */
export function grayPage(width: number, height: number): PageRaster {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data[y * width + x] = 230 - Math.round((x / width) * 60);
  }
  for (let y = 30; y < height - 30; y += 16) {
    for (let yy = y; yy < y + 5; yy++) data.fill(25, yy * width + 12, yy * width + width - 12);
  }
  return { data, width, height, channels: 1 };
}

/** A colour page: a red band over a blue-ish background. */
export function colorPage(width: number, height: number): PageRaster {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    const red = Math.floor(i / width) < height / 3;
    data.set(red ? [220, 30, 30] : [60, 90, 200], i * 3);
  }
  return { data, width, height, channels: 3 };
}

export interface ListedImage {
  page: number;
  width: number;
  height: number;
  color: string;
  components: number;
  bpc: number;
  encoding: string;
  xPpi: number;
  yPpi: number;
}

/** `pdfimages -list`, one row per image. */
export function listImages(pdf: string): ListedImage[] {
  const lines = tool('pdfimages', ['-list', pdf]).trim().split('\n').slice(2);
  return lines.map((line) => {
    const f = line.trim().split(/\s+/);
    return {
      page: Number(f[0]),
      width: Number(f[3]),
      height: Number(f[4]),
      color: f[5],
      components: Number(f[6]),
      bpc: Number(f[7]),
      encoding: f[8],
      xPpi: Number(f[12]),
      yPpi: Number(f[13]),
    };
  });
}

/** Page sizes in points from `pdfinfo`. */
export function pageSizes(pdf: string): { width: number; height: number }[] {
  const out = tool('pdfinfo', ['-f', '1', '-l', '9999', pdf]);
  return [...out.matchAll(/Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/g)].map((m) => ({ width: Number(m[1]), height: Number(m[2]) }));
}

export function pageCount(pdf: string): number {
  return Number(/Pages:\s+(\d+)/.exec(tool('pdfinfo', [pdf]))?.[1]);
}

/**
 * Render one page in gray at `dpi` with pdftoppm and return its pixels. Splash (pdftoppm's
 * renderer) stretches an image whose edge lands exactly on a pixel boundary by one row and one
 * column (its `imgCoordMungeUpper` is floor + 1), so it renders a hair under `dpi`: same pixel
 * grid, no stretch. (pdftocairo renders the same PDF exactly at `dpi`.)
 */
export function renderGray(pdf: string, page: number, dpi: number, dir: string): { width: number; height: number; data: Uint8Array } {
  const stem = join(dir, `render-${page}-${Math.random().toString(36).slice(2)}`);
  tool('pdftoppm', ['-r', String(dpi - 0.01), '-gray', '-f', String(page), '-l', String(page), '-singlefile', pdf, stem]);
  return readPgm(readFileSync(`${stem}.pgm`));
}

function readPgm(bytes: Buffer): { width: number; height: number; data: Uint8Array } {
  // Header: "P5\n<w> <h>\n<max>\n" then raw bytes.
  let at = 0;
  const fields: string[] = [];
  while (fields.length < 4) {
    while (/\s/.test(String.fromCharCode(bytes[at]))) at++;
    let token = '';
    while (!/\s/.test(String.fromCharCode(bytes[at]))) token += String.fromCharCode(bytes[at++]);
    fields.push(token);
  }
  at++;
  const width = Number(fields[1]);
  const height = Number(fields[2]);
  return { width, height, data: new Uint8Array(bytes.subarray(at, at + width * height)) };
}

/** How many pixels differ between two same-size gray images, comparing ink (< 128) with paper. */
export function inkDifferences(a: Uint8Array, b: Uint8Array): number {
  let differences = 0;
  for (let i = 0; i < a.length; i++) if (a[i] < 128 !== b[i] < 128) differences++;
  return differences;
}

/** One entry of a hand-made zip: lets a test write names and modes no zip library would. */
export interface RawZipEntry {
  name: string;
  data: Buffer;
  /** Unix mode stored in the external attributes (e.g. 0o120777 for a symlink). */
  mode?: number;
}

/** A stored (uncompressed) zip of `entries`, written byte by byte. */
export function makeZip(entries: RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
