import { access, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGray, decodeGray, type GrayImage, readTiffLayout } from '../../src/imaging/index.js';
import { addPageSizes, finishPage, type FinishedPage, matchPageSizes, type PageSizeSamples, speculativeCanvas } from '../../src/pipeline/index.js';
import { writePageImage, type ProjectPage } from '../../src/project/index.js';

type Page = Omit<ProjectPage, 'index'>;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quire-page-size-'));
  await mkdir(join(dir, 'pages'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A cropped bitonal page: a black block (its printed area) filling it but for a 10-pixel margin, G4-padded on the right. */
async function croppedPage(...shape: Parameters<typeof croppedPageWithPixels>): Promise<Page> {
  return (await croppedPageWithPixels(...shape)).page;
}

/** `croppedPage`, with the pixels it was written from. */
async function croppedPageWithPixels(
  name: string,
  width: number,
  height: number,
  preset: 'book' | 'sheet',
  inputSize?: { widthMm: number; heightMm: number },
  draft = false,
): Promise<{ page: Page; image: GrayImage }> {
  const padded = Math.ceil(width / 16) * 16;
  const image: GrayImage = createGray(padded, height);
  for (let y = 10; y < height - 10; y++) image.data.fill(0, y * padded + 10, y * padded + width - 10);
  // A diagonal line a pixel wide: a page whose bits moved by one would show.
  for (let y = 10; y < Math.min(height, padded) - 10; y++) image.data[y * padded + y] = 255;
  const file = await writePageImage({ ...image, channels: 1 }, 'bitonal', 300, join(dir, 'pages', name), { draft });
  const page: Page = {
    file: file.slice(dir.length + 1),
    kind: 'bitonal',
    width: padded,
    height,
    dpi: 300,
    source: { input: `${name}.jpg`, frame: 1, side: 'single' },
    decisions: { preset, inputDpi: { value: 150, source: 'estimate' }, crop: { x: 40, y: 60, width, height }, ...(inputSize ? { inputSize } : {}) },
  };
  return { page, image };
}

async function exists(file: string): Promise<boolean> {
  return access(join(dir, file)).then(
    () => true,
    () => false,
  );
}

/** The TIFF compression of a page file: 4 for CCITT G4, 8 for Deflate (a draft). */
async function compressionOf(file: string): Promise<number | undefined> {
  return readTiffLayout(await readFile(join(dir, file)))?.compression;
}

/** The page's pixels as sharp decodes them, read as bytes (libvips caches decodes by file name). */
async function pixelsOf(file: string): Promise<GrayImage> {
  return decodeGray(await readFile(join(dir, file)));
}

/** Byte for byte the same (vitest's deep equality takes seconds on a page's pixels). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

/** Where the printed block of a page image is: its bounding box of black pixels. */
async function inkBox(file: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const image = await decodeGray(join(dir, file));
  let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1];
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (image.data[y * image.width + x] >= 128) continue;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  }
  return { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

/**
 * Four pages of one document as the page-size pass makes them alone (`made`), and the same pages drawn again as the
 * pipeline threads hand them over (`drawn`: drafts with their pixels), for the threads' guesses to be checked against.
 */
async function madeAndDrawn(
  madePrefix: string,
  drawnPrefix: string,
): Promise<{ made: Page[]; drawn: Array<Awaited<ReturnType<typeof croppedPageWithPixels>>> }> {
  const sizes: Array<[number, number]> = [
    [1200, 1900],
    [1100, 1500],
    [1180, 1880],
    [1150, 1700],
  ];
  const made = await Promise.all(sizes.map(([w, h], i) => croppedPage(`${madePrefix}${i}`, w, h, 'book')));
  await matchPageSizes(dir, made);
  const drawn = await Promise.all(sizes.map(([w, h], i) => croppedPageWithPixels(`${drawnPrefix}${i}`, w, h, 'book', undefined, true)));
  return { made, drawn };
}

/** Each page ended as the pass alone made it (G4, the same bytes, size and decision), and its thread's file is gone. */
async function expectAsMade(pages: Page[], made: Page[], finished: Map<Page, FinishedPage>): Promise<void> {
  for (let i = 0; i < pages.length; i++) {
    expect(await compressionOf(pages[i].file)).toBe(4);
    expect(sameBytes(await readFile(join(dir, pages[i].file)), await readFile(join(dir, made[i].file))), `page ${i}`).toBe(true);
    expect([pages[i].width, pages[i].height, pages[i].decisions.pageSize]).toEqual([made[i].width, made[i].height, made[i].decisions.pageSize]);
    // The thread's file took the draft's place, or (a wrong guess) was thrown away.
    expect(await exists((finished.get(pages[i]) as FinishedPage).file)).toBe(false);
  }
}

describe('one page size per document', () => {
  it('sets every camera page on the largest page, the printed area centred across and at the top', async () => {
    const pages = [await croppedPage('a', 1200, 1900, 'book'), await croppedPage('b', 1100, 1500, 'book'), await croppedPage('c', 1180, 1880, 'book')];
    await matchPageSizes(dir, pages);
    for (const page of pages) {
      // Read as bytes: libvips caches images by file name, and the file was rewritten.
      const meta = await sharp(await readFile(join(dir, page.file))).metadata();
      // Width 1200 padded to a multiple of 16 for G4: 1200.
      expect([meta.width, meta.height]).toEqual([1200, 1900]);
      expect([page.width, page.height]).toEqual([1200, 1900]);
    }
    // The short page: its block (1080 × 1480 inside its margin) moved right by half the difference, kept at the top.
    expect(await inkBox(pages[1].file)).toEqual({ x: 60, y: 10, width: 1080, height: 1480 });
    expect(pages[1].decisions.pageSize).toEqual({ width: 1200, height: 1900, x: 50, y: 0 });
  });

  it('keeps scans of different page sizes apart, and leaves an outlier as it is', async () => {
    const a4 = { widthMm: 210, heightMm: 297 };
    const a5 = { widthMm: 148, heightMm: 210 };
    const pages = [
      await croppedPage('s1', 1000, 1500, 'sheet', a4),
      await croppedPage('s2', 960, 1400, 'sheet', a4),
      await croppedPage('s3', 700, 1000, 'sheet', a5),
      await croppedPage('s4', 680, 980, 'sheet', a5),
      // A crop that took in half the desk: far larger than the others of its size, it keeps its own.
      await croppedPage('s5', 1000, 2400, 'sheet', a4),
    ];
    await matchPageSizes(dir, pages);
    expect(pages.map((p) => [p.width, p.height])).toEqual([
      [1008, 1500],
      [1008, 1500],
      [704, 1000],
      [704, 1000],
      [1008, 2400],
    ]);
  });

  it('encodes the pages the pipeline left as drafts as G4 once their size is known, the pixels as a G4 page would have them', async () => {
    const made = [await croppedPage('g1', 1200, 1900, 'book'), await croppedPage('g2', 1100, 1500, 'book')];
    const drafts = [await croppedPage('d1', 1200, 1900, 'book', undefined, true), await croppedPage('d2', 1100, 1500, 'book', undefined, true)];
    // A draft is a Deflate TIFF with the page's pixels, readable before it is placed (OCR reads it meanwhile).
    expect(await compressionOf(drafts[1].file)).toBe(8);
    expect(sameBytes((await pixelsOf(drafts[1].file)).data, (await pixelsOf(made[1].file)).data)).toBe(true);
    await matchPageSizes(dir, made);
    await matchPageSizes(dir, drafts);
    // The full-size page is not placed, the short one is: both end as G4 files, byte for byte those of G4 pages.
    for (let i = 0; i < 2; i++) {
      expect(await compressionOf(drafts[i].file)).toBe(4);
      expect(sameBytes(await readFile(join(dir, drafts[i].file)), await readFile(join(dir, made[i].file)))).toBe(true);
      expect(drafts[i].decisions.pageSize).toEqual(made[i].decisions.pageSize);
    }
  });

  it('with place: false (a frame made again alone) keeps each page its size and only encodes the drafts', async () => {
    const pages = [await croppedPage('f1', 1200, 1900, 'book', undefined, true), await croppedPage('f2', 1100, 1500, 'book', undefined, true)];
    const before = await pixelsOf(pages[1].file);
    await matchPageSizes(dir, pages, { place: false });
    expect(pages.map((p) => [p.width, p.height])).toEqual([
      [1200, 1900],
      [1104, 1500],
    ]);
    expect(await Promise.all(pages.map((p) => compressionOf(p.file)))).toEqual([4, 4]);
    expect(sameBytes((await pixelsOf(pages[1].file)).data, before.data)).toBe(true);
  });

  it('takes the G4 page a thread set on the canvas it guessed when the whole document gives that canvas, and makes it again when not', async () => {
    const { made, drawn: drafts } = await madeAndDrawn('r', 't');
    // What the threads knew when each page was made: all the others for the first three (a right guess, placed or
    // not); for the last only the two smaller pages, so it guessed a smaller canvas than the document's.
    const seen = [
      [1, 2, 3],
      [0, 2, 3],
      [0, 1, 3],
      [1, 2],
    ];
    const finished = new Map<Page, FinishedPage>();
    for (let i = 0; i < drafts.length; i++) {
      const samples: PageSizeSamples = {};
      addPageSizes(
        samples,
        seen[i].map((j) => drafts[j].page),
      );
      const canvas = speculativeCanvas(drafts[i].page, samples);
      expect(canvas).not.toBeUndefined();
      finished.set(drafts[i].page, await finishPage(drafts[i].page, drafts[i].image, canvas ?? null, dir));
    }
    expect(finished.get(drafts[3].page)?.canvas?.height).toBe(1880);
    await matchPageSizes(
      dir,
      drafts.map((d) => d.page),
      { finished },
    );
    await expectAsMade(
      drafts.map((d) => d.page),
      made,
      finished,
    );
  });

  it('without drafts (no OCR during the run) makes a page whose guess was wrong again from the G4 page its thread wrote', async () => {
    const { made, drawn } = await madeAndDrawn('m', 'u');
    const pages = drawn.map((d) => d.page);
    // A page larger than any of the document's, seen by one thread only (say, a page its user set apart later).
    const larger = { ...pages[0], width: 1250, height: 1950 };
    const seen = [
      // Set on a canvas larger than the document's: it keeps its own size in the end.
      [larger, pages[2]],
      // A canvas smaller than the document's.
      [pages[3], pages[3]],
      // Taken for an outlier beside two short pages (kept at its size), yet placed in the end.
      [pages[1], pages[1]],
      // Right.
      [pages[0], pages[1], pages[2]],
    ];
    const finished = new Map<Page, FinishedPage>();
    for (let i = 0; i < pages.length; i++) {
      const samples: PageSizeSamples = {};
      addPageSizes(samples, seen[i]);
      const canvas = speculativeCanvas(pages[i], samples);
      expect(canvas).not.toBeUndefined();
      finished.set(pages[i], await finishPage(pages[i], drawn[i].image, canvas ?? null, dir, true));
      // The thread wrote no draft.
      await rm(join(dir, pages[i].file));
    }
    expect(finished.get(pages[2])?.canvas).toBeNull();
    await matchPageSizes(dir, pages, { finished });
    await expectAsMade(pages, made, finished);
  });
});
