import { describe, expect, it } from 'vitest';
import { createGray, type GrayImage } from '../../src/imaging/index.js';
import { cutRow, joinHalves } from '../../src/ocr/tesseract-halves.js';
import type { OcrPage } from '../../src/project/index.js';

/** A page 1000 px tall with black text-line bands at the given rows (top, height). */
function pageWithLines(lines: Array<[number, number]>, height = 1000): GrayImage {
  const image = createGray(600, height);
  for (const [top, h] of lines) image.data.fill(0, top * 600 + 50, (top + h) * 600 - 50);
  return image;
}

/** Lines 20 px tall every 30 px (gaps of 10 px), from `from` to `to`. */
function evenLines(from: number, to: number): Array<[number, number]> {
  const lines: Array<[number, number]> = [];
  for (let y = from; y + 20 <= to; y += 30) lines.push([y, 20]);
  return lines;
}

describe('cutting a page in two between its lines', () => {
  it('cuts in the tallest blank band in the middle of the page: a paragraph’s end rather than a line’s', () => {
    // Even lines 10 px apart, with a 50-px gap from 570 to 620 and a 60-px one from 880 (outside the middle).
    const page = pageWithLines([...evenLines(100, 580), ...evenLines(620, 880), ...evenLines(940, 1000)]);
    expect(cutRow(page)).toBe(595);
  });

  it('cuts an evenly set page in the gap nearest its middle, never through a line', () => {
    const lines = evenLines(100, 900);
    const row = cutRow(pageWithLines(lines))!;
    expect(Math.abs(row - 500)).toBeLessThanOrEqual(15);
    for (const [top, h] of lines) expect(row < top || row >= top + h).toBe(true);
  });

  it('leaves whole a page of a few lines, and one whose lines touch', () => {
    expect(cutRow(pageWithLines(evenLines(400, 620)))).toBeUndefined();
    expect(cutRow(pageWithLines(Array.from({ length: 30 }, (_, k): [number, number] => [100 + 25 * k, 23])))).toBeUndefined();
  });
});

describe('joining two halves’ readings', () => {
  const half = (text: string, y: number): OcrPage => ({
    width: 600,
    height: 500,
    dpi: 300,
    engine: 'tesseract-cli',
    languages: ['eng'],
    blocks: [
      {
        box: { x0: 10, y0: y, x1: 200, y1: y + 30 },
        paragraphs: [
          {
            box: { x0: 10, y0: y, x1: 200, y1: y + 30 },
            lines: [
              {
                box: { x0: 10, y0: y, x1: 200, y1: y + 30 },
                baseline: { x0: 10, y0: y + 25, x1: 200, y1: y + 26 },
                words: [{ text, box: { x0: 10, y0: y, x1: 200, y1: y + 30 }, confidence: 90 }],
              },
            ],
          },
        ],
      },
    ],
  });

  it('puts the lower half’s words, lines and baselines where they are on the page, after the upper half’s', () => {
    const page = joinHalves(half('upper', 100), half('lower', 20), 480, 1000);
    expect(page.height).toBe(1000);
    const lines = page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
    expect(lines.map((l) => l.words[0].text)).toEqual(['upper', 'lower']);
    expect(lines[1].words[0].box).toEqual({ x0: 10, y0: 500, x1: 200, y1: 530 });
    expect(lines[1].baseline).toEqual({ x0: 10, y0: 525, x1: 200, y1: 526 });
    expect(page.blocks[1].box.y0).toBe(500);
    expect(lines[0].words[0].box.y0).toBe(100);
  });
});
