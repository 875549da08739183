import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ocrResolution, preparePage } from '../../src/ocr/tesseract-page.js';
import { toOcrPage, type TesseractBlock } from '../../src/ocr/tesseract-result.js';
import { renderTextPage, toG4Tiff, writePage } from './pages.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quire-ocr-page-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the page tesseract sees', () => {
  it('upsamples pages under 250 dpi to 300 dpi and leaves 300-dpi pages as they are', () => {
    expect(ocrResolution(620, 358, 150)).toEqual({ width: 1240, height: 716, dpi: 300 });
    expect(ocrResolution(1240, 716, 300)).toEqual({ width: 1240, height: 716, dpi: 300 });
    expect(ocrResolution(1000, 1000, 250)).toEqual({ width: 1000, height: 1000, dpi: 250 });
    // Unknown resolution: taken as the pipeline's usual 300 dpi.
    expect(ocrResolution(1000, 1000, 0)).toEqual({ width: 1000, height: 1000, dpi: 300 });
  });

  it('turns a 150-dpi page into a 300-dpi grey PNG, with the scale back to page pixels', async () => {
    const page = await renderTextPage('A small page of text.', { dpi: 150 });
    const prepared = await preparePage(await writePage(dir, 'small.png', page));
    const meta = await sharp(prepared.png).metadata();
    expect(meta.format).toBe('png');
    expect(meta.width).toBe(page.width * 2);
    expect(meta.channels).toBe(1);
    expect(prepared).toMatchObject({ dpi: 300, scaleX: 0.5, bitonal: false });
    expect(prepared.scaleY).toBeCloseTo(0.5, 2);
  });

  it('reads the pipeline’s tiled G4 TIFF and knows it is already black and white', async () => {
    const page = await renderTextPage('A bitonal page of text.');
    const prepared = await preparePage(await writePage(dir, 'bitonal.tif', page, await toG4Tiff(page)));
    const meta = await sharp(prepared.png).metadata();
    expect(meta.width).toBe(page.width);
    expect(prepared).toMatchObject({ dpi: 300, scaleX: 1, scaleY: 1, bitonal: true });
  });
});

describe('tesseract’s layout as our page model', () => {
  const bbox = (x0: number, y0: number, x1: number, y1: number) => ({ x0, y0, x1, y1 });
  const blocks: TesseractBlock[] = [
    {
      bbox: bbox(100, 100, 700, 200),
      paragraphs: [
        {
          bbox: bbox(100, 100, 700, 200),
          lines: [
            {
              bbox: bbox(100, 100, 700, 150),
              baseline: { x0: 100, y0: 140, x1: 700, y1: 142, has_baseline: true },
              words: [
                { text: 'Hello', confidence: 91.234, bbox: bbox(100, 100, 300, 150) },
                { text: '  ', confidence: 0, bbox: bbox(310, 100, 320, 150) },
                { text: 'world', confidence: 88, bbox: bbox(400, 100, 700, 150) },
              ],
            },
            { bbox: bbox(100, 160, 700, 200), words: [{ text: '', confidence: 0, bbox: bbox(100, 160, 700, 200) }] },
          ],
        },
      ],
    },
    { bbox: bbox(0, 300, 900, 900), paragraphs: [{ bbox: bbox(0, 300, 900, 900), lines: [] }] },
  ];

  it('scales boxes to the page, drops empty words, lines and blocks, keeps the baseline', () => {
    const page = toOcrPage(blocks, { width: 400, height: 300, dpi: 150, scaleX: 0.5, scaleY: 0.5 }, ['eng']);
    expect(page).toMatchObject({ width: 400, height: 300, dpi: 150, engine: 'tesseract', languages: ['eng'] });
    expect(page.blocks).toHaveLength(1);
    const line = page.blocks[0].paragraphs[0].lines;
    expect(line).toHaveLength(1);
    expect(line[0].words).toEqual([
      { text: 'Hello', box: { x0: 50, y0: 50, x1: 150, y1: 75 }, confidence: 91.23 },
      { text: 'world', box: { x0: 200, y0: 50, x1: 350, y1: 75 }, confidence: 88 },
    ]);
    expect(line[0].baseline).toEqual({ x0: 50, y0: 70, x1: 350, y1: 71 });
  });

  it('keeps boxes on the page and copes with no result at all', () => {
    const page = toOcrPage(blocks, { width: 200, height: 60, dpi: 300, scaleX: 0.5, scaleY: 0.5 }, ['eng']);
    expect(page.blocks[0].paragraphs[0].lines[0].words[1].box).toEqual({ x0: 200, y0: 50, x1: 200, y1: 60 });
    expect(toOcrPage(null, { width: 10, height: 10, dpi: 300, scaleX: 1, scaleY: 1 }, ['eng']).blocks).toEqual([]);
  });
});
