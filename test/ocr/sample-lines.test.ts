// Language detection reads a sample of a page's lines, not the page: the lines are found, spread from the head of
// the page to its foot, and stacked on clean paper.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGray, decodeGray, type GrayImage, sharpFromGray } from '../../src/imaging/index.js';
import { inkBands, SAMPLE_LINES, sampleBands, stackBands, writeLineSample, writePagesLineSample } from '../../src/ocr/sample-lines.js';
import { renderTextPage, writePage } from './pages.js';

/** A white page with `count` black bars `thick` pixels high, one every `pitch` rows from `top`. */
function bars(count: number, options: { width?: number; top?: number; pitch?: number; thick?: number } = {}): GrayImage {
  const { width = 400, top = 20, pitch = 30, thick = 12 } = options;
  const image = createGray(width, top + count * pitch + 20);
  for (let k = 0; k < count; k++) {
    for (let y = top + k * pitch; y < top + k * pitch + thick; y++) image.data.fill(0, y * width + 50, y * width + 350);
  }
  return image;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quire-sample-lines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('line sample', () => {
  it('finds each text line as a run of inked rows', () => {
    expect(inkBands(bars(3))).toEqual([
      { top: 20, bottom: 32 },
      { top: 50, bottom: 62 },
      { top: 80, bottom: 92 },
    ]);
    expect(inkBands(createGray(100, 100))).toEqual([]);
  });

  it('takes lines spread from the first to the last, and leaves out specks and pictures', () => {
    const page = bars(40);
    const picked = sampleBands(page, 12);
    expect(picked).toHaveLength(12);
    expect(picked[0].top).toBe(20);
    expect(picked.at(-1)?.top).toBe(20 + 39 * 30);
    // A one-row rule and a tall picture are not lines.
    const mixed = bars(5, { top: 100 });
    mixed.data.fill(0, 10 * 400, 11 * 400);
    for (let y = mixed.height - 19; y < mixed.height; y++) mixed.data.fill(0, y * 400 + 10, y * 400 + 390);
    const tall = createGray(400, mixed.height + 100);
    tall.data.set(mixed.data);
    for (let y = mixed.height; y < mixed.height + 90; y++) tall.data.fill(0, y * 400 + 10, y * 400 + 390);
    expect(sampleBands(tall, 12).map((b) => b.top)).toEqual([100, 130, 160, 190, 220]);
  });

  it('stacks the sampled lines on white paper, a gap between each', () => {
    const page = bars(40);
    const stacked = stackBands(page, sampleBands(page, 12));
    expect(stacked.height).toBeLessThan(page.height / 2);
    expect(inkBands(stacked)).toHaveLength(12);
  });

  it('writes a readable sample of a rendered page, and none for a blank one', async () => {
    const rendered = await renderTextPage('word '.repeat(900));
    const page = await writePage(dir, 'page.png', rendered);
    const sample = await writeLineSample(page, dir, 'sample');
    expect(sample).toBeDefined();
    expect(sample!.dpi).toBe(page.dpi);
    const image = await decodeGray(sample!.file);
    expect(inkBands(image).length).toBe(SAMPLE_LINES);
    expect(image.height).toBeLessThan(rendered.height / 2);
    const blank = join(dir, 'blank.png');
    await sharp({ create: { width: 300, height: 400, channels: 3, background: '#fff' } })
      .png()
      .toFile(blank);
    expect(await writeLineSample({ file: blank, width: 300, height: 400, dpi: 300 }, dir, 'none')).toBeUndefined();
  });

  it('stacks the lines of several pages on one sheet as wide as the widest, skipping a page without lines', async () => {
    const save = async (name: string, image: GrayImage) => {
      const file = join(dir, name);
      await sharpFromGray(image).png().toFile(file);
      return { file, width: image.width, height: image.height, dpi: 300 };
    };
    const narrow = await save('narrow.png', bars(20, { width: 400 }));
    const wide = await save('wide.png', bars(20, { width: 700 }));
    const blank = await save('blank-page.png', createGray(500, 500));
    const sample = await writePagesLineSample([narrow, blank, wide], dir, 'pages', 4);
    const image = await decodeGray(sample!.file);
    expect(inkBands(image)).toHaveLength(8);
    expect(image.width).toBeGreaterThanOrEqual(700);
    expect(await writePagesLineSample([blank], dir, 'blank-only', 4)).toBeUndefined();
  });
});
