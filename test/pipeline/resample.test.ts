import { describe, expect, it } from 'vitest';
import { inkComponents } from '../../src/imaging/index.js';
import { createGray, type Box, type GrayImage, unsharpMask } from '../../src/imaging/index.js';
import { binarize } from '../../src/pipeline/binarize.js';
import { isBitonal } from '../../src/imaging/index.js';
import {
  cropToContent,
  normalizeResolution,
  padForG4,
  outOfFocus,
  readingScale,
  SHARPEN_SIGMA_PX,
  sharpenAmount,
  sharpenSigma,
} from '../../src/pipeline/resample.js';
import { photograph, renderTextPage, scoreAgainstTruth, seededRandom } from './synthetic-text.js';

function fill(page: GrayImage, box: Box, value = 0): void {
  for (let y = box.y; y < box.y + box.height; y++) page.data.fill(value, y * page.width + box.x, y * page.width + box.x + box.width);
}

/** A bitonal 300-dpi page with a block of "words" filling `block` exactly. */
function textBlockPage(width: number, height: number, block: Box): GrayImage {
  const page = createGray(width, height, 255);
  const random = seededRandom(5);
  for (let y = block.y; y + 20 <= block.y + block.height; y += 40) {
    for (let x = block.x; x < block.x + block.width;) {
      const w = Math.min(block.x + block.width - x, 30 + Math.floor(random() * 90));
      fill(page, { x, y, width: w, height: 20 });
      x += w + 18;
    }
  }
  // Make the block's edges exact whatever the random widths did.
  fill(page, { x: block.x, y: block.y + block.height - 20, width: block.width, height: 20 });
  fill(page, { x: block.x + block.width - 10, y: block.y, width: 10, height: 20 });
  return page;
}

describe('normalizeResolution', () => {
  it('resamples to exactly round(size × scale)', async () => {
    const page = createGray(841, 1079, 200);
    for (const [from, to] of [
      [110, 300],
      [150, 300],
      [300, 150],
      [600, 300],
      [200, 300],
    ]) {
      const { image, scale } = await normalizeResolution(page, from, to);
      expect(scale).toBeCloseTo(to / from, 10);
      expect([image.width, image.height]).toEqual([Math.round(841 * scale), Math.round(1079 * scale)]);
      expect(image.data.length).toBe(image.width * image.height);
    }
  });

  it('leaves a page already at (within 1 % of) the target alone', async () => {
    const page = createGray(300, 400, 200);
    expect(await normalizeResolution(page, 300)).toEqual({ image: page, scale: 1 });
    const near = await normalizeResolution(page, 298, 300);
    expect(near.image).toBe(page);
    expect(near.scale).toBe(1);
  });

  it('gives a 150-dpi camera page that binarises clean at 300 dpi', async () => {
    // 5 × 6 inches: whole pixels at both resolutions.
    const layout = { widthMm: 127, heightMm: 152.4, marginMm: 10, seed: 8 };
    const camera = await photograph(await renderTextPage({ ...layout, dpi: 150 }), { left: 220, right: 120, blur: 0.8, noise: 3 });
    const truth = await renderTextPage({ ...layout, dpi: 300 });
    const { image: up } = await normalizeResolution(camera, 150, 300);
    expect([up.width, up.height]).toEqual([truth.width, truth.height]);
    const { image } = await binarize(up, { dpi: 300 });
    // Glyph edges are known to one source pixel: two pixels at 300 dpi.
    const score = scoreAgainstTruth(image, truth, 2);
    expect(score.glyphKept).toBeGreaterThanOrEqual(0.99);
    expect(score.paperClean).toBeGreaterThanOrEqual(0.998);
  });
});

describe('sharpening before enlarging', () => {
  /** 8 pt type on a 140-dpi capture, as a webcam sees a small book: the truth at 300 dpi and the capture. */
  async function smallType(blur: number): Promise<{ truth: GrayImage; camera: GrayImage }> {
    const layout = { widthMm: 60.96, heightMm: 50.8, marginMm: 5, fontPt: 8, leadingPt: 10.5, seed: 4 };
    const camera = await photograph(await renderTextPage({ ...layout, dpi: 140 }), { left: 215, right: 190, blur, noise: 2, ink: 0.25 });
    return { truth: await renderTextPage({ ...layout, dpi: 300 }), camera };
  }

  /** Pieces of ink: a letter broken by the threshold counts twice or more. */
  function pieces(page: GrayImage): number {
    return inkComponents({ ...page, data: page.data.map((v) => (v < 128 ? 0 : 255)) }).length;
  }

  it('keeps the thin strokes of a soft capture of small type whole', async () => {
    const { truth, camera } = await smallType(1.2);
    const plain = await normalizeResolution(camera, 140, 300, { sharpen: false });
    const sharpened = await normalizeResolution(camera, 140, 300);
    expect(sharpened.sharpening?.amount).toBeGreaterThan(1);
    expect([sharpened.image.width, sharpened.image.height]).toEqual([plain.image.width, plain.image.height]);
    const before = (await binarize(plain.image, { dpi: 300 })).image;
    const after = (await binarize(sharpened.image, { dpi: 300 })).image;
    // Unsharpened, the hairlines come out too pale to keep and letters fall apart.
    expect(scoreAgainstTruth(before, truth, 1).glyphKept).toBeLessThan(0.99);
    expect(scoreAgainstTruth(after, truth, 1).glyphKept).toBeGreaterThanOrEqual(0.99);
    expect(pieces(after) - pieces(truth)).toBeLessThan(0.5 * (pieces(before) - pieces(truth)));
    expect(scoreAgainstTruth(after, truth, 1).paperClean).toBeGreaterThanOrEqual(0.98);
  });

  it('deconvolves a blurred capture as wide as its blur, and its letters come back', async () => {
    const layout = { widthMm: 60.96, heightMm: 50.8, marginMm: 5, fontPt: 10, leadingPt: 13, seed: 4 };
    const truth = await renderTextPage({ ...layout, dpi: 300 });
    const camera = await photograph(await renderTextPage({ ...layout, dpi: 140 }), { left: 215, right: 190, blur: 2.6, noise: 2, ink: 0.25 });
    const sharpened = await normalizeResolution(camera, 140, 300);
    expect(sharpened.sharpening?.edgeBlurPx).toBeGreaterThan(1.7);
    expect(sharpened.sharpening?.sigmaPx).toBeGreaterThan(1.5);
    // Deconvolved (Richardson–Lucy, 1.2 times the blur's width), not masked.
    expect(sharpened.sharpening?.amount).toBe(0);
    expect(sharpened.sharpening?.deconvolved).toEqual({ sigmaPx: expect.closeTo(1.2 * sharpened.sharpening!.sigmaPx!, 1), rounds: 50 });
    // The mask of a merely soft capture (1.1 px, 1.5) leaves most letters broken or run together; deconvolved, most
    // come back (0.70 measured: on the threshold alone a hard mask as wide as the blur keeps more, 0.83, but OCR
    // reads the deconvolved page better, see `DECONVOLVE_FROM_EDGE_PX`).
    const mild = await normalizeResolution(unsharpMask(camera, SHARPEN_SIGMA_PX, 1.5), 140, 300, { sharpen: false });
    const kept = async (image: GrayImage): Promise<number> => scoreAgainstTruth((await binarize(image, { dpi: 300 })).image, truth, 1).glyphKept;
    expect(await kept(mild.image)).toBeLessThan(0.4);
    expect(await kept(sharpened.image)).toBeGreaterThan(0.65);
    // A soft capture gets the usual mask; its width is recorded only when it differs.
    expect(sharpenAmount(1.2)).toBe(1.5);
    expect(sharpenSigma(1.2)).toBe(SHARPEN_SIGMA_PX);
    expect(sharpenAmount(2.5)).toBe(4.5);
  });

  it('has a page read smaller when its capture blur, enlarged, spans 3 px or more', () => {
    // Small camera type (121 dpi, a soft 1.3 px edge, enlarged 2.48 times) and a blurred capture: read smaller,
    // never below 0.45 of the page's resolution.
    expect(readingScale(1.3, 2.48)).toBe(0.56);
    expect(readingScale(1.94, 1.97)).toBe(0.47);
    expect(readingScale(2.5, 2)).toBe(0.45);
    // A real capture (0.8 px, 2.83 times) and a sharp scan: as they are; unknown blur or no enlargement: as they are.
    expect(readingScale(0.8, 2.83)).toBeUndefined();
    expect(readingScale(1.2, 1)).toBeUndefined();
    expect(readingScale(null, 2)).toBeUndefined();
    expect(readingScale(1.5, undefined)).toBeUndefined();
  });

  it('calls a page out of focus when its capture blur is 1.5 px or more and 3 px or more once enlarged', () => {
    // The quality benchmark's captures: in focus 1.17–1.31 px, out of focus from 1.57 px, enlarged about twice.
    expect(outOfFocus({ edgeBlurPx: 1.57 }, 2.11)).toBe(true);
    expect(outOfFocus({ edgeBlurPx: 1.31 }, 2.48)).toBe(false);
    // Larger type photographed from closer: a blur of 1.6 capture pixels spans under 2 px at the page's resolution.
    expect(outOfFocus({ edgeBlurPx: 1.6 }, 1.2)).toBe(false);
    // Not measured (a scan, a page not enlarged): nothing said.
    expect(outOfFocus({ edgeBlurPx: null }, 2)).toBe(false);
    expect(outOfFocus(undefined, undefined)).toBe(false);
  });

  it('leaves a crisp capture as it is, and never sharpens when reducing', async () => {
    const { camera } = await smallType(0);
    const crisp = await normalizeResolution(camera, 140, 300);
    expect(crisp.sharpening?.amount).toBe(0);
    expect(crisp.image).toEqual((await normalizeResolution(camera, 140, 300, { sharpen: false })).image);
    const soft = await smallType(1.2);
    expect((await normalizeResolution(soft.camera, 600, 300)).sharpening).toBeUndefined();
  });
});

describe('cropToContent', () => {
  const block = { x: 200, y: 300, width: 1000, height: 1300 };
  const margin = Math.round((4 * 300) / 25.4);

  it('crops to the printed block plus the margin', () => {
    const page = textBlockPage(1500, 2000, block);
    const { image, box } = cropToContent(page, { dpi: 300 });
    expect(box).toEqual({ x: block.x - margin, y: block.y - margin, width: block.width + 2 * margin, height: block.height + 2 * margin });
    expect([image.width, image.height]).toEqual([box.width, box.height]);
    expect(image.data[margin * image.width + margin]).toBe(0);
    expect(image.data[0]).toBe(255);
  });

  it('widens a bitonal crop to whole 16-pixel groups with white on the right, the box itself unchanged', () => {
    const page = textBlockPage(1500, 2000, block);
    // Ink right of the box, at the column the padding covers: it must not show through the padding.
    const right = block.x + block.width + margin;
    fill(page, { x: right + 2, y: block.y + 10, width: 1, height: 1 });
    const plain = cropToContent(page, { dpi: 300 });
    const { image, box } = cropToContent(page, { dpi: 300, widthMultiple: 16 });
    expect(box).toEqual(plain.box);
    expect(box.width % 16).not.toBe(0);
    expect([image.width, image.height]).toEqual([Math.ceil(box.width / 16) * 16, box.height]);
    for (let y = 0; y < box.height; y++) {
      const row = image.data.subarray(y * image.width, (y + 1) * image.width);
      expect(Buffer.from(row.subarray(0, box.width)).equals(plain.image.data.subarray(y * box.width, (y + 1) * box.width))).toBe(true);
      expect(row.subarray(box.width).every((v) => v === 255)).toBe(true);
    }
  });

  it('ignores specks and leftovers of the page edge and the shadow at the border', () => {
    const page = textBlockPage(1500, 2000, block);
    fill(page, { x: 60, y: 100, width: 2, height: 2 }); // dust, 0.17 mm
    fill(page, { x: 1400, y: 1900, width: 3, height: 3 });
    fill(page, { x: 0, y: 0, width: 6, height: 2000 }); // page edge along the left border
    fill(page, { x: 0, y: 1980, width: 1500, height: 20 }); // shadow band along the bottom
    fill(page, { x: 1440, y: 0, width: 60, height: 150 }); // background wedge in a corner
    const { box } = cropToContent(page, { dpi: 300 });
    expect(box).toEqual({ x: block.x - margin, y: block.y - margin, width: block.width + 2 * margin, height: block.height + 2 * margin });
  });

  it('keeps print outside the text block (a page number) and clips the margin to the page', () => {
    const page = textBlockPage(1500, 2000, block);
    fill(page, { x: 690, y: 1950, width: 24, height: 34 }); // a folio near the bottom edge
    const { box } = cropToContent(page, { dpi: 300, marginMm: 2 });
    const m2 = Math.round((2 * 300) / 25.4);
    expect(box).toEqual({ x: block.x - m2, y: block.y - m2, width: block.width + 2 * m2, height: 2000 - (block.y - m2) });
  });

  it('returns a blank page whole', () => {
    const page = createGray(400, 500, 255);
    fill(page, { x: 10, y: 10, width: 2, height: 2 });
    const { image, box } = cropToContent(page, { dpi: 300 });
    expect(box).toEqual({ x: 0, y: 0, width: 400, height: 500 });
    expect(image).toBe(page);
  });
});

describe('padForG4 and isBitonal', () => {
  it('pads the width to a multiple of 16 with white, keeping the pixels', () => {
    const page = createGray(37, 5, 0);
    const padded = padForG4(page);
    expect([padded.width, padded.height]).toEqual([48, 5]);
    for (let y = 0; y < 5; y++) {
      for (let x = 0; x < 48; x++) expect(padded.data[y * 48 + x]).toBe(x < 37 ? 0 : 255);
    }
    const even = createGray(64, 3, 0);
    expect(padForG4(even)).toBe(even);
  });

  it('tells bitonal pages from grey ones', () => {
    const page = createGray(20, 20, 255);
    fill(page, { x: 2, y: 2, width: 5, height: 5 });
    expect(isBitonal(page)).toBe(true);
    page.data[399] = 254;
    expect(isBitonal(page)).toBe(false);
  });
});
