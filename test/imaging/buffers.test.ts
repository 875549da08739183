import { describe, expect, it } from 'vitest';
import {
  createGray,
  cropPadded,
  enlargeBicubic,
  givePageBytes,
  type GrayImage,
  levelBackground,
  pageBytes,
  sauvolaBinarize,
  unsharpMaskNative,
} from '../../src/imaging/index.js';

/** A light page with dark strokes: text-like enough for the threshold, 1200×1000 (over the pooled size). */
function lightPage(): GrayImage {
  const page = createGray(1200, 1000, 225);
  for (let y = 40; y < 960; y += 30) {
    for (let x = 60; x < 1140; x++) if ((x >> 3) % 3 !== 0) page.data.fill(40, (y + 10) * 1200 + x, (y + 10) * 1200 + x + 1);
  }
  for (let i = 0; i < page.data.length; i += 7) page.data[i] = Math.max(0, page.data[i] - 9);
  return page;
}

/** Every page-making primitive that takes its output from the spare buffers. */
async function makeAll(page: GrayImage): Promise<GrayImage[]> {
  const params = { windowPx: 119, backgroundPx: 95, k: 0.15 };
  return [
    enlargeBicubic(page, Math.round(page.width * 1.7), Math.round(page.height * 1.7)),
    await unsharpMaskNative(page, 1.5, 2),
    sauvolaBinarize(page, params),
    levelBackground(page, params),
    // Widened with white beyond the page's right edge.
    cropPadded(page, { x: 100, y: 0, width: 1101, height: 1000 }, 1104),
  ];
}

describe('spare page buffers', () => {
  it('give the same pages as fresh memory after other pages gave their buffers back', async () => {
    const light = lightPage();
    const fresh = await makeAll(light);
    // Larger grey pages made and given back: their buffers hold other pixels than fresh memory's zeros.
    const grey = createGray(1500, 1300, 123);
    for (let round = 0; round < 2; round++) givePageBytes(...(await makeAll(grey)));
    const again = await makeAll(light);
    for (let i = 0; i < fresh.length; i++) {
      expect([again[i].width, again[i].height]).toEqual([fresh[i].width, fresh[i].height]);
      expect(Buffer.compare(Buffer.from(again[i].data), Buffer.from(fresh[i].data)), `primitive ${i}`).toBe(0);
    }
  });

  it('hand a buffer out again only once it is given back, and never one they did not lend', () => {
    const a = pageBytes(2_000_000);
    a.fill(7);
    givePageBytes({ width: 2000, height: 1000, data: a });
    const b = pageBytes(1_900_000);
    expect(b.buffer).toBe(a.buffer);
    const c = pageBytes(1_900_000);
    expect(c.buffer).not.toBe(a.buffer);
    const own = new Uint8Array(3_000_000);
    givePageBytes({ width: 3000, height: 1000, data: own });
    expect(pageBytes(2_500_000).buffer).not.toBe(own.buffer);
  });
});
