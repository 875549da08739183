import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createGray, enlargeBicubic, type GrayImage } from '../../src/imaging/index.js';

/** Dark strokes of several widths on light, slightly uneven paper: what a camera page looks like at its own resolution. */
function strokesPage(width: number, height: number): GrayImage {
  const page = createGray(width, height, 0);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const paper = 200 + Math.round((40 * x) / width);
      const stroke = x % 11 < 1 + (y % 3) || (y % 13 < 2 && x % 29 < 17);
      page.data[y * width + x] = stroke ? 40 + ((x * 7 + y * 3) % 50) : paper;
    }
  }
  return page;
}

async function libvipsEnlarged(page: GrayImage, width: number, height: number): Promise<Uint8Array> {
  const { data } = await sharp(Buffer.from(page.data), { raw: { width: page.width, height: page.height, channels: 1 } })
    .resize(width, height, { fit: 'fill', kernel: 'cubic' })
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return new Uint8Array(data.buffer, data.byteOffset, data.length);
}

/** Centre of the darkness (255 − grey) of a page, in pixel-centre coordinates. */
function inkCentre(page: GrayImage): { x: number; y: number } {
  let sx = 0;
  let sy = 0;
  let total = 0;
  for (let y = 0; y < page.height; y++) {
    for (let x = 0; x < page.width; x++) {
      const ink = 255 - page.data[y * page.width + x];
      sx += ink * x;
      sy += ink * y;
      total += ink;
    }
  }
  return { x: sx / total, y: sy / total };
}

describe('enlargeBicubic', () => {
  it('makes a page of exactly the size asked, flat paper staying the same grey at every level', () => {
    for (const level of [0, 1, 128, 254, 255]) {
      const out = enlargeBicubic(createGray(37, 23, level), 97, 61);
      expect([out.width, out.height]).toEqual([97, 61]);
      expect(out.data.every((v) => v === level)).toBe(true);
    }
  });

  it('puts a mark where libvips put it: a dot enlarged 2.63× lands half a pixel past the centre-aligned place', () => {
    const page = createGray(40, 30);
    page.data[12 * 40 + 17] = 0;
    const scale = 2.63;
    const out = enlargeBicubic(page, Math.round(40 * scale), Math.round(30 * scale));
    const centre = inkCentre(out);
    // Output o samples the source at o·(40 / width) − 0.5, so source (17, 12) lies at (17 + 0.5)·s.
    expect(centre.x).toBeCloseTo((17 + 0.5) * (out.width / 40), 1);
    expect(centre.y).toBeCloseTo((12 + 0.5) * (out.height / 30), 1);
  });

  it('draws a smooth ramp as a ramp, and a sharp edge without more than the cubic’s small overshoot', () => {
    const ramp = createGray(50, 4);
    for (let y = 0; y < 4; y++) for (let x = 0; x < 50; x++) ramp.data[y * 50 + x] = 20 + 4 * x;
    const wide = enlargeBicubic(ramp, 200, 16);
    for (let x = 8; x < 192; x++) expect(Math.abs(wide.data[5 * 200 + x] - (20 + 4 * (x / 4 - 0.5)))).toBeLessThanOrEqual(0.5);

    const edge = createGray(20, 2, 200);
    for (let y = 0; y < 2; y++) edge.data.fill(50, y * 20, y * 20 + 10);
    const line = enlargeBicubic(edge, 60, 6).data.subarray(0, 60);
    // Catmull-Rom overshoots a step by 7.4 % at most: never past 50 − 11 or 200 + 11, and flat far from the edge.
    expect(Math.min(...line)).toBeGreaterThanOrEqual(39);
    expect(Math.max(...line)).toBeLessThanOrEqual(211);
    expect([line[0], line[20], line[40], line[59]]).toEqual([50, 50, 200, 200]);
  });

  it('gives the bytes sharp gives when it enlarges, at any size and scale, before and after a large page', async () => {
    for (const [w, h, width, height] of [
      [120, 90, 316, 237],
      [626, 40, 1647, 105],
      [1, 1, 3, 5],
      [37, 61, 38, 62],
      [17, 200, 70, 821],
      // A page that needs a larger memory for the kernels, and a small one after it.
      [1400, 1000, 3000, 2143],
      [40, 30, 105, 79],
    ]) {
      const page = strokesPage(w, h);
      const ours = enlargeBicubic(page, width, height).data;
      const theirs = await libvipsEnlarged(page, width, height);
      expect(ours.length).toBe(theirs.length);
      expect(ours.filter((v, i) => v !== theirs[i]).length).toBe(0);
    }
  });

  it('refuses to reduce a page or to make a page of no pixels', () => {
    const page = createGray(30, 20);
    expect(() => enlargeBicubic(page, 29, 40)).toThrow(/cannot enlarge 30×20 to 29×40/);
    expect(() => enlargeBicubic(page, 60, 19.5)).toThrow(RangeError);
    expect(() => enlargeBicubic(createGray(0, 0), 10, 10)).toThrow(RangeError);
  });
});
