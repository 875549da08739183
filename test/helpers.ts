import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yauzl from 'yauzl';
import type { OcrPage, ProjectManifest } from '../src/project/index.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SAMPLE = join(ROOT, 'examples', 'sample.aglbundle');
export const QUIRE_BIN = join(ROOT, 'bin', 'quire.js');

/** The tests' one pseudo-random generator (mulberry32, uniform in [0, 1)): the sample generator's own. */
export { prng as seededRandom } from '../scripts/typeset.mjs';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the built CLI (`npm test` builds first) as a user would. */
export function runQuire(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [QUIRE_BIN, ...args],
      { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, maxBuffer: 1 << 24 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'quire-test-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function pdfPageCount(path: string): number {
  const info = execFileSync('pdfinfo', [path], { encoding: 'utf8' });
  return Number(/Pages:\s+(\d+)/.exec(info)?.[1]);
}

/** `qpdf --check` output; throws when qpdf finds errors. */
export function qpdfCheck(path: string): string {
  return execFileSync('qpdf', ['--check', path], { encoding: 'utf8' });
}

export interface PdfImage {
  page: number;
  width: number;
  height: number;
  color: string;
  bpc: number;
  enc: string;
  xppi: number;
  yppi: number;
}

/** The images of a PDF as `pdfimages -list` sees them. */
export function pdfImages(path: string): PdfImage[] {
  const out = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' });
  return out
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => {
      const c = l.trim().split(/\s+/);
      return {
        page: Number(c[0]),
        width: Number(c[3]),
        height: Number(c[4]),
        color: c[5],
        bpc: Number(c[7]),
        enc: c[8],
        xppi: Number(c[12]),
        yppi: Number(c[13]),
      };
    });
}

/** Page sizes in points, from pdfinfo. */
export function pdfPageSizes(path: string): Array<{ width: number; height: number }> {
  const n = pdfPageCount(path);
  const info = execFileSync('pdfinfo', ['-f', '1', '-l', String(n), path], { encoding: 'utf8' });
  return [...info.matchAll(/Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/g)].map((m) => ({ width: Number(m[1]), height: Number(m[2]) }));
}

/**
 * Whether this process can mount a small tmpfs (root). Tests of full and read-only file systems run only then,
 * and always under CI, where a refusal to mount is a failure rather than a skip.
 */
export const CAN_MOUNT = process.getuid?.() === 0 || process.env.CI === 'true';

/** Mount a tmpfs of `size` (e.g. `64k`) at a fresh folder, run `fn` in it, unmount. */
export async function withTmpfs<T>(size: string, fn: (dir: string) => Promise<T>, options: { readOnly?: boolean } = {}): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'quire-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755${options.readOnly ? ',ro' : ''}`, 'tmpfs', dir]);
  try {
    return await fn(dir);
  } finally {
    execFileSync('umount', ['-l', dir]);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Fill the file system holding `dir` up to its last byte. */
export function fillUp(dir: string): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=4k'], { stdio: 'ignore' });
  } catch {
    // dd stops with "No space left on device": that is the point.
  }
}

/** A folder whose absolute path is about `length` bytes long (near the system's 4096), made one short component at a time. */
export function deepFolder(root: string, length: number): string {
  let dir = root;
  while (dir.length < length - 101) dir = join(dir, 'd'.repeat(99));
  dir = join(dir, 'e'.repeat(Math.max(1, length - dir.length - 1)));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** One entry of a zip as stored: its bytes, and the header fields some formats (EPUB) constrain. */
export interface ZipEntry {
  name: string;
  data: Buffer;
  /** 0 stored, 8 deflated. */
  compressionMethod: number;
  extraFieldLength: number;
}

/** Every entry of a zip, in the order stored. */
export function readZipEntries(path: string): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('no zip'));
      const entries: ZipEntry[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            const extraFieldLength = entry.extraFields.reduce((n, f) => n + 4 + f.data.length, 0);
            entries.push({ name: entry.fileName, data: Buffer.concat(chunks), compressionMethod: entry.compressionMethod, extraFieldLength });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** The files of a zip (folders left out), by entry name. */
export async function readZip(path: string): Promise<Map<string, Buffer>> {
  const entries = await readZipEntries(path);
  return new Map(entries.filter((e) => !e.name.endsWith('/')).map((e) => [e.name, e.data]));
}

/** Set environment variables for a test file; the function returned puts back what was there before. */
export function setEnv(values: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** The OCR of a kept project's page (the first by default), as the correction step left it. */
export function keptOcrPage(project: string, index = 0): OcrPage {
  const manifest = JSON.parse(readFileSync(join(project, 'project.json'), 'utf8')) as ProjectManifest;
  return JSON.parse(readFileSync(join(project, manifest.pages[index].ocr!), 'utf8')) as OcrPage;
}
