// The committed example scan bundle (examples/sample.aglbundle) is what a new user runs first and what the
// pipeline tests and the benchmark read: it must be a well-formed bundle, and its truth file must describe
// it. Both are made by scripts/make-sample.mjs, which must reproduce them.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { readZip } from '../helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bundlePath = join(root, 'examples', 'sample.aglbundle');
const truthPath = join(root, 'examples', 'sample.truth.json');
const FRAME_WIDTH = 1920;
const FRAME_HEIGHT = 1080;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface TruthPage {
  side: 'left' | 'right';
  number: number;
  runningHead: string;
  text: string;
  footnotes: string[];
  textBox: Box;
  dpi: number;
}

interface TruthFrame {
  file: string;
  gutterX: number;
  pages: TruthPage[];
}

interface Truth {
  frames: TruthFrame[];
}

interface PageLine {
  index: number;
  file: string;
  captured: string;
  w: number;
  h: number;
}


/** Share of a box's pixels dark enough to be ink (luma below 110). */
async function inkShare(jpeg: Buffer, box: Box): Promise<number> {
  const { data, info } = await sharp(jpeg)
    .extract({ left: box.x, top: box.y, width: box.width, height: box.height })
    .greyscale()
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  expect(info.channels).toBe(1);
  let dark = 0;
  for (const v of data) if (v < 110) dark++;
  return dark / data.length;
}

describe('examples/sample.aglbundle', () => {
  let files: Map<string, Buffer>;
  let truth: Truth;
  let pageLines: PageLine[];

  beforeAll(async () => {
    files = await readZip(bundlePath);
    truth = JSON.parse(await readFile(truthPath, 'utf8')) as Truth;
    pageLines = (files.get('pages.jsonl')?.toString('utf8') ?? '')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as PageLine);
  });

  it('stays small enough to ship in the repository', async () => {
    expect((await stat(bundlePath)).size).toBeLessThan(1.5 * 1024 * 1024);
  });

  it('has a format-1 manifest for three camera frames, without a dpi', () => {
    const manifest = JSON.parse(files.get('manifest.json')?.toString('utf8') ?? 'null') as Record<string, unknown>;
    expect(manifest.format_version).toBe(1);
    expect(typeof manifest.project).toBe('string');
    expect(manifest.project).not.toBe('');
    expect(manifest.created).toMatch(ISO_TIME);
    expect(manifest.device).toBe('Synthetic webcam 1920x1080');
    expect(manifest.page_count).toBe(3);
    expect(manifest).not.toHaveProperty('dpi');
  });

  it('lists every image once, in order, with its capture time and size', () => {
    expect(pageLines.map((p) => p.index)).toEqual([1, 2, 3]);
    for (const page of pageLines) {
      expect(page.file).toBe(`images/${String(page.index).padStart(4, '0')}.jpg`);
      expect(files.has(page.file)).toBe(true);
      expect(page.captured).toMatch(ISO_TIME);
      expect([page.w, page.h]).toEqual([FRAME_WIDTH, FRAME_HEIGHT]);
    }
    expect([...files.keys()].filter((name) => name.startsWith('images/'))).toHaveLength(3);
  });

  it('holds 1920×1080 JPEG frames', async () => {
    for (const page of pageLines) {
      const meta = await sharp(files.get(page.file)).metadata();
      expect(meta.format).toBe('jpeg');
      expect([meta.width, meta.height]).toEqual([FRAME_WIDTH, FRAME_HEIGHT]);
    }
  });

  it('has a truth file describing two pages of text in each frame', () => {
    expect(truth.frames.map((f) => f.file)).toEqual(pageLines.map((p) => p.file));
    for (const frame of truth.frames) {
      expect(frame.pages.map((p) => p.side)).toEqual(['left', 'right']);
      const [left, right] = frame.pages;
      expect(right.number).toBe(left.number + 1);
      expect(left.number % 2).toBe(0);
      for (const page of frame.pages) {
        expect(page.text.trim().length).toBeGreaterThan(500);
        expect(page.runningHead).not.toBe('');
        expect(page.dpi).toBeGreaterThan(120);
        expect(page.dpi).toBeLessThan(160);
      }
    }
  });

  it('puts each page box inside the frame, on its own side of the gutter', () => {
    for (const frame of truth.frames) {
      expect(frame.gutterX).toBeGreaterThan(FRAME_WIDTH * 0.3);
      expect(frame.gutterX).toBeLessThan(FRAME_WIDTH * 0.7);
      for (const { textBox: box } of frame.pages) {
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(FRAME_WIDTH);
        expect(box.y + box.height).toBeLessThanOrEqual(FRAME_HEIGHT);
        // A printed page of this book is roughly 4 in × 6.3 in: about 560 × 880 px at ~140 dpi.
        expect(box.width).toBeGreaterThan(450);
        expect(box.height).toBeGreaterThan(750);
      }
      const [left, right] = frame.pages;
      expect(left.textBox.x + left.textBox.width).toBeLessThan(frame.gutterX);
      expect(right.textBox.x).toBeGreaterThan(frame.gutterX);
    }
  });

  it('has its boxes on the printed text of the frames', async () => {
    for (const frame of truth.frames) {
      const jpeg = files.get(frame.file) as Buffer;
      for (const page of frame.pages) {
        // Body text at this size darkens several per cent of the box; bare paper or desk would not.
        expect(await inkShare(jpeg, page.textBox)).toBeGreaterThan(0.03);
      }
    }
  });

  it('prints English and French prose, footnotes and a Greek quotation', () => {
    const pages = truth.frames.flatMap((f) => f.pages);
    expect(pages[0].text).toContain('It is a truth universally acknowledged');
    expect(pages.some((p) => /[éèàçœ]/.test(p.text))).toBe(true);
    const notes = pages.flatMap((p) => p.footnotes);
    expect(notes.length).toBeGreaterThan(0);
    expect(notes.some((n) => n.includes('γνῶθι σεαυτόν'))).toBe(true);
  });
});

describe('scripts/make-sample.mjs', () => {
  it('reproduces the committed truth file', async () => {
    const out = await mkdtemp(join(tmpdir(), 'quire-sample-'));
    try {
      await promisify(execFile)(process.execPath, [join(root, 'scripts', 'make-sample.mjs'), '--out', out], { timeout: 50_000 });
      const made = await readFile(join(out, 'sample.truth.json'), 'utf8');
      expect(made).toBe(await readFile(truthPath, 'utf8'));
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 60_000);
});
