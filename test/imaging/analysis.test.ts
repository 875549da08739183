import { describe, expect, it } from 'vitest';
import {
  autocorrelation,
  columnProfile,
  connectedComponents,
  dilate,
  downscaleBox,
  downscaleMax,
  erode,
  fillHoles,
  findText,
  groupIntoLines,
  histogram,
  otsuThreshold,
  rowProfile,
  type BinaryMask,
  type Component,
} from '../../src/imaging/analysis.js';
import { createGray, type GrayImage } from '../../src/imaging/index.js';

function maskFrom(rows: string[]): BinaryMask {
  const width = rows[0].length;
  const data = new Uint8Array(width * rows.length);
  rows.forEach((r, y) => [...r].forEach((ch, x) => (data[y * width + x] = ch === '#' ? 1 : 0)));
  return { width, height: rows.length, data };
}

function rowsOf(mask: BinaryMask): string[] {
  const out: string[] = [];
  for (let y = 0; y < mask.height; y++) {
    out.push([...mask.data.subarray(y * mask.width, (y + 1) * mask.width)].map((v) => (v ? '#' : '.')).join(''));
  }
  return out;
}

function paint(image: GrayImage, x0: number, y0: number, w: number, h: number, v: number): void {
  for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) image.data[y * image.width + x] = v;
}

describe('downscaling', () => {
  it('averages blocks, so a fine checkerboard becomes mid-grey', () => {
    const img = createGray(8, 4);
    for (let i = 0; i < img.data.length; i++) img.data[i] = ((i % 8) + Math.floor(i / 8)) % 2 ? 200 : 100;
    const small = downscaleBox(img, 2);
    expect([small.width, small.height]).toEqual([4, 2]);
    expect([...small.data]).toEqual(Array(8).fill(150));
  });

  it('keeps the brightest pixel of each block, so thin dark text disappears into the paper', () => {
    const img = createGray(6, 6, 220);
    paint(img, 0, 2, 6, 1, 20);
    const small = downscaleMax(img, 3);
    expect([...small.data]).toEqual([220, 220, 220, 220]);
  });
});

describe('Otsu threshold', () => {
  it('separates dark table from light paper', () => {
    const values = [...Array(300).fill(60), ...Array(200).fill(70), ...Array(500).fill(210), ...Array(100).fill(230)];
    const t = otsuThreshold(histogram(values));
    expect(t).toBeGreaterThanOrEqual(70);
    expect(t).toBeLessThan(210);
  });
});

describe('connected components', () => {
  it('finds each blob with its box and area (8-connected)', () => {
    const { components } = connectedComponents(maskFrom(['##....#', '##...#.', '.....#.', '.......', '###....']));
    const sorted = [...components].sort((a, b) => a.y - b.y || a.x - b.x);
    expect(sorted).toEqual([
      { x: 0, y: 0, width: 2, height: 2, area: 4 },
      { x: 5, y: 0, width: 2, height: 3, area: 3 },
      { x: 0, y: 4, width: 3, height: 1, area: 3 },
    ]);
  });
});

describe('morphology', () => {
  it('dilates and erodes with a box', () => {
    const dot = maskFrom(['.....', '.....', '..#..', '.....', '.....']);
    expect(rowsOf(dilate(dot, 1, 0))).toEqual(['.....', '.....', '.###.', '.....', '.....']);
    expect(rowsOf(dilate(dot, 1))).toEqual(['.....', '.###.', '.###.', '.###.', '.....']);
    expect(rowsOf(erode(dilate(dot, 1), 1))).toEqual(rowsOf(dot));
  });

  it('fills holes but not bays open to the border', () => {
    const ring = maskFrom(['#####.', '#...#.', '#####.', '......', '###...', '#.....']);
    expect(rowsOf(fillHoles(ring))).toEqual(['#####.', '#####.', '#####.', '......', '###...', '#.....']);
  });
});

describe('projections and autocorrelation', () => {
  it('counts ink per row and column', () => {
    const m = maskFrom(['#..', '##.', '...']);
    expect([...rowProfile(m)]).toEqual([1, 2, 0]);
    expect([...columnProfile(m)]).toEqual([2, 1, 0]);
  });

  it('peaks at the period of repeating rows', () => {
    const profile = Array.from({ length: 200 }, (_, i) => (i % 17 < 6 ? 10 : 0));
    const ac = autocorrelation(profile, 40);
    let best = 5;
    for (let lag = 5; lag <= 25; lag++) if (ac[lag] > ac[best]) best = lag;
    expect(best).toBe(17);
  });
});

describe('grouping into lines', () => {
  it('chains letters side by side, not letters above one another', () => {
    const letter = (x: number, y: number): Component => ({ x, y, width: 5, height: 8, area: 30 });
    const line1 = [0, 7, 14, 21].map((x) => letter(x, 0));
    const line2 = [0, 7, 14].map((x) => letter(x, 20));
    const far = letter(60, 0);
    const lines = groupIntoLines([...line1, ...line2, far]);
    const sizes = lines.map((l) => l.members.length).sort();
    expect(sizes).toEqual([1, 3, 4]);
  });
});

describe('findText', () => {
  it('finds text lines on paper and ignores specks on the dark table beside it', () => {
    const img = createGray(400, 300, 60);
    paint(img, 100, 20, 280, 260, 215);
    for (let row = 0; row < 8; row++) {
      for (let x = 130; x < 340; x += 9) paint(img, x, 50 + row * 25, 6, 9, 40);
    }
    // Specks on the table, each the size of a letter.
    for (let i = 0; i < 12; i++) paint(img, 10 + (i % 3) * 25, 30 + i * 20, 6, 9, 15);
    const text = findText(img);
    expect(text.lines).toHaveLength(8);
    expect(Math.min(...text.lines.map((l) => l.x))).toBe(130);
    expect(text.textHeight).toBe(9);
  });

  it('finds no text on blank paper', () => {
    const img = createGray(300, 200, 60);
    paint(img, 50, 20, 200, 160, 210);
    expect(findText(img).lines).toHaveLength(0);
  });
});
