import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandSetPages } from '../../src/project/index.js';
import { processFrame, type FrameTask } from '../../src/pipeline/process.js';
import { renderTextPage } from './synthetic-text.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** Two 80×100 mm text pages side by side on a dark table, 150 dpi: a spread whose page halves are known. */
const BORDER = 40;
let spread: { data: Buffer; width: number; height: number; pageWidth: number; pageHeight: number };

beforeAll(async () => {
  const left = await renderTextPage({ widthMm: 80, heightMm: 100, dpi: 150, marginMm: 10, seed: 3 });
  const right = await renderTextPage({ widthMm: 80, heightMm: 100, dpi: 150, marginMm: 10, seed: 4 });
  const width = left.width + right.width + 2 * BORDER;
  const height = left.height + 2 * BORDER;
  const pixels = new Uint8Array(width * height).fill(60);
  for (let y = 0; y < left.height; y++) {
    pixels.set(left.data.subarray(y * left.width, (y + 1) * left.width), (y + BORDER) * width + BORDER);
    pixels.set(right.data.subarray(y * right.width, (y + 1) * right.width), (y + BORDER) * width + BORDER + left.width);
  }
  const data = await sharp(pixels, { raw: { width, height, channels: 1 } })
    .jpeg({ quality: 92 })
    .toBuffer();
  spread = { data, width, height, pageWidth: left.width, pageHeight: left.height };
});

async function run(handSet?: HandSetPages, preset: FrameTask['preset'] = 'book'): ReturnType<typeof processFrame> {
  const dir = await mkdtemp(join(tmpdir(), 'quire-hand-set-'));
  dirs.push(dir);
  await mkdir(join(dir, 'pages'));
  return processFrame({
    frame: { data: spread.data },
    input: 'spread.jpg',
    frameIndex: 2,
    kind: 'camera',
    preset,
    marginMm: 4,
    projectDir: dir,
    reading: false,
    ...(handSet ? { handSet } : {}),
  });
}

describe('pages set by hand in a frame', () => {
  it('makes one page of the one box set by hand, its size following the box', async () => {
    const wholeLeft = { x: BORDER, y: BORDER, width: spread.pageWidth, height: spread.pageHeight };
    const topHalf = { ...wholeLeft, height: Math.round(spread.pageHeight / 2) };
    const whole = await run({ boxes: [wholeLeft] });
    const half = await run({ boxes: [topHalf] });
    expect(whole.pages).toHaveLength(1);
    expect(half.pages).toHaveLength(1);
    expect(half.pages[0].source.side).toBe('single');
    expect(half.pages[0].decisions.split).toEqual({ box: topHalf, content: topHalf, handSet: true });
    // Half the page's lines: about half its height, and the same width of text.
    const ratio = half.pages[0].height / whole.pages[0].height;
    expect(ratio).toBeGreaterThan(0.35);
    expect(ratio).toBeLessThan(0.65);
    expect(Math.abs(half.pages[0].width - whole.pages[0].width)).toBeLessThan(0.1 * whole.pages[0].width);
  });

  it('makes a left and a right page of two boxes, whatever their order', async () => {
    const right = { x: BORDER + spread.pageWidth, y: BORDER, width: spread.pageWidth, height: spread.pageHeight };
    const left = { x: BORDER, y: BORDER, width: Math.round(spread.pageWidth / 2), height: spread.pageHeight };
    const { pages } = await run({ boxes: [right, left] });
    expect(pages.map((p) => p.source.side)).toEqual(['left', 'right']);
    expect(pages.map((p) => p.file)).toEqual(['pages/0002-left.tif', 'pages/0002-right.tif']);
    // The left box takes half the page's width: its page is clearly narrower than the right one.
    expect(pages[0].width).toBeLessThan(0.8 * pages[1].width);
  });

  it('splits where the hand-set split says, each side found inside its half', async () => {
    const splitX = BORDER + Math.round(spread.pageWidth * 0.75);
    const { pages } = await run({ splitX });
    expect(pages).toHaveLength(2);
    expect(pages.every((p) => p.decisions.split?.gutterX === splitX && p.decisions.split.handSet)).toBe(true);
    const [left, right] = pages.map((p) => p.decisions.split?.box);
    expect((left?.x ?? 0) + (left?.width ?? 0)).toBeLessThanOrEqual(splitX);
    expect(right?.x).toBeGreaterThanOrEqual(splitX);
  });

  it('refuses a box outside the capture in one sentence naming the frame, and a box on a flat page', async () => {
    const outside = { x: spread.width - 100, y: 0, width: 200, height: 200 };
    await expect(run({ boxes: [outside] })).rejects.toThrow(
      `The page box set by hand for frame 2 of spread.jpg (200×200 at (${spread.width - 100}, 0)) reaches outside the capture (${spread.width}×${spread.height}).`,
    );
    await expect(run({ splitX: spread.width + 5 })).rejects.toThrow(
      /^The page box set by hand for frame 2 of spread\.jpg splits at x \d+, outside the capture/,
    );
    await expect(run({ boxes: [{ x: 0, y: 0, width: 100, height: 100 }] }, 'flat')).rejects.toThrow(
      'Pages set by hand need the book or sheet preset, and frame 2 of spread.jpg is kept as it is (flat).',
    );
  });
});
