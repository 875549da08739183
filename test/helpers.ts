import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SAMPLE = join(ROOT, 'examples', 'sample.aglbundle');
export const QUIRE_BIN = join(ROOT, 'bin', 'quire.js');

/** The tests' one pseudo-random generator (mulberry32, uniform in [0, 1)): a seed always draws the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the built CLI (`npm test` builds first) as a user would. */
export function runQuire(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [QUIRE_BIN, ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
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
      return { page: Number(c[0]), width: Number(c[3]), height: Number(c[4]), color: c[5], bpc: Number(c[7]), enc: c[8], xppi: Number(c[12]), yppi: Number(c[13]) };
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
