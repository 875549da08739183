import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePageImage } from '../../src/project/page-image.js';
import { histogram as histogramOf, otsuThreshold } from '../../src/imaging/index.js';
import { writePdf, type PdfPageInput } from '../../src/export/pdf.js';
import { readTiffLayout, singleG4Segment } from '../../src/imaging/index.js';
import { isQuireError } from '../../src/errors.js';
import { bitonalPage, colorPage, grayPage, inkDifferences, listImages, pageCount, pageSizes, removeTempDirs, renderGray, tempDir, tool } from './helpers.js';

const DPI = 300;
let dir: string;
/** A4 at 300 dpi, the tile taller than the page (3508 is not a multiple of 16). */
let a4: PdfPageInput;
let bitonal: PdfPageInput;
let gray: PdfPageInput;
let color: PdfPageInput;
const bitonalPixels = bitonalPage(320, 200);
const grayPixels = grayPage(240, 180);

function qpdfCheck(pdf: string): void {
  // Throws on a non-zero exit, which is what a broken PDF gives.
  execFileSync('qpdf', ['--check', pdf], { stdio: 'pipe' });
}

afterAll(removeTempDirs);

beforeAll(async () => {
  dir = tempDir('pdf');
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const a4File = await writePageImage(bitonalPage(2480, 3508), 'bitonal', DPI, join(pages, '0001'));
  a4 = { file: a4File, kind: 'bitonal', width: 2480, height: 3508, dpi: DPI };
  bitonal = { file: await writePageImage(bitonalPixels, 'bitonal', DPI, join(pages, '0002')), kind: 'bitonal', width: 320, height: 200, dpi: DPI };
  gray = { file: await writePageImage(grayPixels, 'gray', 200, join(pages, '0003')), kind: 'gray', width: 240, height: 180, dpi: 200 };
  color = { file: await writePageImage(colorPage(160, 120), 'color', 150, join(pages, '0004')), kind: 'color', width: 160, height: 120, dpi: 150 };
});

describe('page images', () => {
  it('stores a bitonal page as one G4 strip covering the page, and gray/colour pages as JPEG', async () => {
    expect(bitonal.file.endsWith('.tif')).toBe(true);
    const layout = readTiffLayout(readFileSync(bitonal.file));
    expect(layout).toMatchObject({ width: 320, height: 200, compression: 4, bitsPerSample: 1, photometric: 0, rowsPerStrip: 200 });
    expect(layout?.tile).toBeUndefined();
    expect(layout?.offsets).toHaveLength(1);

    const grayMeta = await sharp(gray.file).metadata();
    expect(grayMeta).toMatchObject({ format: 'jpeg', channels: 1, width: 240, height: 180, density: 200 });
    const colorMeta = await sharp(color.file).metadata();
    expect(colorMeta).toMatchObject({ format: 'jpeg', channels: 3, density: 150 });
    const tiffMeta = await sharp(bitonal.file).metadata();
    expect(tiffMeta.density).toBe(DPI);
  });

  it('keeps black black and white white in the G4 TIFF', async () => {
    const { data } = await sharp(bitonal.file).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    expect(inkDifferences(new Uint8Array(data), bitonalPixels.data)).toBe(0);
  });
});

describe('writePdf', () => {
  it('auto: G4 for bitonal pages, JPEG for the others, pages sized from pixels and dpi', async () => {
    const out = join(dir, 'auto.pdf');
    const result = await writePdf([a4, bitonal, gray, color], out, { profile: 'auto', title: 'Vie d’Antoine — Athanase' });
    expect(result.pages).toBe(4);
    expect(result.bytes).toBe(readFileSync(out).length);
    qpdfCheck(out);
    expect(pageCount(out)).toBe(4);

    const sizes = pageSizes(out);
    const expected = [
      [595.2, 842],
      [76.8, 48],
      [86.4, 64.8],
      [76.8, 57.6],
    ];
    sizes.forEach((size, i) => {
      expect(Math.abs(size.width - expected[i][0])).toBeLessThan(0.5);
      expect(Math.abs(size.height - expected[i][1])).toBeLessThan(0.5);
    });

    const images = listImages(out);
    expect(images).toHaveLength(4);
    expect(images[0]).toMatchObject({ width: 2480, height: 3508, encoding: 'ccitt', bpc: 1, color: 'gray', xPpi: 300, yPpi: 300 });
    expect(images[1]).toMatchObject({ width: 320, height: 200, encoding: 'ccitt', bpc: 1, xPpi: 300, yPpi: 300 });
    expect(images[2]).toMatchObject({ width: 240, height: 180, encoding: 'jpeg', color: 'gray', components: 1, xPpi: 200, yPpi: 200 });
    expect(images[3]).toMatchObject({ width: 160, height: 120, encoding: 'jpeg', color: 'rgb', components: 3, xPpi: 150, yPpi: 150 });

    const info = tool('pdfinfo', [out]);
    expect(info).toMatch(/Title:\s+Vie d’Antoine — Athanase\n/);
    expect(info).toMatch(/Producer:\s+Quire \d+\.\d+\.\d+/);
    expect(info).toMatch(/Creator:\s+Quire/);
    expect(info).toMatch(/CreationDate:\s+\S/);
  });

  it('a G4 page renders to exactly the original pixels (black stays black)', async () => {
    const out = join(dir, 'render.pdf');
    await writePdf([bitonal], out, { profile: 'g4' });
    const rendered = renderGray(out, 1, DPI, dir);
    expect([rendered.width, rendered.height]).toEqual([320, 200]);
    // The top-left bar is ink, the corner is paper: an inverted image fails here first.
    expect(rendered.data[10 * 320 + 10]).toBe(0);
    expect(rendered.data[0]).toBe(255);
    expect(inkDifferences(rendered.data, bitonalPixels.data)).toBe(0);
  });

  it('copies the G4 data of the TIFF strip into the PDF byte for byte, and JPEG files unchanged', async () => {
    const out = join(dir, 'bytes.pdf');
    await writePdf([bitonal, gray, color], out, { profile: 'auto' });
    const extracted = join(dir, 'extracted');
    mkdirSync(extracted);
    tool('pdfimages', ['-ccitt', '-j', out, join(extracted, 'img')]);
    const files = readdirSync(extracted).sort();
    expect(files).toEqual(['img-000.ccitt', 'img-000.params', 'img-001.jpg', 'img-002.jpg']);

    const tile = singleG4Segment(readFileSync(bitonal.file));
    expect(Buffer.from(readFileSync(join(extracted, 'img-000.ccitt'))).equals(Buffer.from(tile?.data ?? []))).toBe(true);
    expect(readFileSync(join(extracted, 'img-001.jpg')).equals(readFileSync(gray.file))).toBe(true);
    expect(readFileSync(join(extracted, 'img-002.jpg')).equals(readFileSync(color.file))).toBe(true);
  });

  it('jpeg: every page as JPEG, bitonal pages as gray JPEG', async () => {
    const out = join(dir, 'jpeg.pdf');
    await writePdf([bitonal, gray, color], out, { profile: 'jpeg' });
    qpdfCheck(out);
    const images = listImages(out);
    expect(images.map((image) => [image.encoding, image.color, image.components])).toEqual([
      ['jpeg', 'gray', 1],
      ['jpeg', 'gray', 1],
      ['jpeg', 'rgb', 3],
    ]);
    expect(images[0]).toMatchObject({ width: 320, height: 200, xPpi: 300, yPpi: 300 });
    const rendered = renderGray(out, 1, DPI, dir);
    // JPEG blurs edges a little; the bars must still be where they were, in black.
    expect(rendered.data[15 * 320 + 20]).toBeLessThan(60);
    expect(inkDifferences(rendered.data, bitonalPixels.data)).toBeLessThan(320 * 200 * 0.005);
  });

  it('g4: gray and colour pages are thresholded (Otsu) and stored as G4', async () => {
    const out = join(dir, 'g4.pdf');
    await writePdf([gray, color], out, { profile: 'g4' });
    qpdfCheck(out);
    const images = listImages(out);
    expect(images.map((image) => [image.encoding, image.bpc])).toEqual([
      ['ccitt', 1],
      ['ccitt', 1],
    ]);
    expect(images[0]).toMatchObject({ width: 240, height: 180, xPpi: 200 });
    const rendered = renderGray(out, 1, 200, dir);
    // The dark bars are ink, the light ramp between them is paper.
    expect(rendered.data[32 * 240 + 100]).toBe(0);
    expect(rendered.data[40 * 240 + 230]).toBe(255);
    expect(inkDifferences(rendered.data, grayPixels.data)).toBe(0);
  });

  it('re-encodes a G4 TIFF made of several strips, and embeds min-is-black and narrow tiles right side up', async () => {
    const pixels = bitonalPage(150, 300);
    const raw = sharp(pixels.data, { raw: { width: 150, height: 300, channels: 1 } }).toColourspace('b-w');
    const strips = join(dir, 'strips.tif');
    await raw.clone().tiff({ compression: 'ccittfax4', bitdepth: 1 }).toFile(strips);
    expect(readTiffLayout(readFileSync(strips))?.offsets.length).toBeGreaterThan(1);
    const blackIsZero = join(dir, 'min-is-black.tif');
    await raw.clone().tiff({ compression: 'ccittfax4', bitdepth: 1, tile: true, tileWidth: 160, tileHeight: 304 }).toFile(blackIsZero);
    expect(readTiffLayout(readFileSync(blackIsZero))).toMatchObject({ photometric: 1, tile: { width: 160 } });

    const out = join(dir, 'reencoded.pdf');
    const page = { kind: 'bitonal' as const, width: 150, height: 300, dpi: DPI };
    await writePdf(
      [
        { ...page, file: strips },
        { ...page, file: blackIsZero },
      ],
      out,
      { profile: 'auto' },
    );
    qpdfCheck(out);
    const images = listImages(out);
    expect(images.map((image) => image.encoding)).toEqual(['ccitt', 'ccitt']);
    // The 160-wide tile is embedded as is; the page box cuts its 10 padding columns off.
    expect(images[1].width).toBe(160);
    expect(images.every((image) => image.xPpi === DPI)).toBe(true);
    const sizes = pageSizes(out);
    expect(Math.abs(sizes[1].width - 36)).toBeLessThan(0.5);
    for (const number of [1, 2]) {
      const rendered = renderGray(out, number, DPI, dir);
      expect([rendered.width, rendered.height]).toEqual([150, 300]);
      expect(inkDifferences(rendered.data, pixels.data)).toBe(0);
    }
  });

  it('leaves no file when the write fails', async () => {
    const failDir = tempDir('pdf-fail');
    const out = join(failDir, 'broken.pdf');
    const missing = { ...bitonal, file: join(failDir, 'nope.tif') };
    const error = await writePdf([bitonal, missing], out).catch((e: unknown) => e);
    expect(isQuireError(error) && error.code).toBe('bad_project');
    expect(readdirSync(failDir)).toEqual([]);

    // A directory in the way makes the final rename fail after the bytes were written.
    const blocked = join(failDir, 'blocked.pdf');
    mkdirSync(join(blocked, 'inside'), { recursive: true });
    const renameError = await writePdf([bitonal], blocked).catch((e: unknown) => e);
    expect(isQuireError(renameError) && renameError.code).toBe('output');
    expect(readdirSync(failDir)).toEqual(['blocked.pdf']);
    expect(existsSync(join(blocked, 'inside'))).toBe(true);
  });

  it('refuses an empty page list and an unknown profile', async () => {
    await expect(writePdf([], join(dir, 'empty.pdf'))).rejects.toMatchObject({ code: 'output' });
    // @ts-expect-error a profile from outside the type, as a plain-JS caller could pass
    await expect(writePdf([bitonal], join(dir, 'x.pdf'), { profile: 'png' })).rejects.toMatchObject({ code: 'usage' });
    const controller = new AbortController();
    controller.abort();
    await expect(writePdf([bitonal], join(dir, 'cancelled.pdf'), { signal: controller.signal })).rejects.toMatchObject({ code: 'cancelled' });
    expect(existsSync(join(dir, 'cancelled.pdf'))).toBe(false);
  });
});

describe('otsuThreshold', () => {
  it('separates two populations and leaves a one-value page alone', () => {
    const twoLevels = new Uint8Array(1000);
    twoLevels.fill(40, 0, 300);
    twoLevels.fill(200, 300);
    const t = otsuThreshold(histogramOf(twoLevels));
    expect(t).toBeGreaterThanOrEqual(40);
    expect(t).toBeLessThan(200);
    expect(otsuThreshold(histogramOf(new Uint8Array(50).fill(255)))).toBe(127);
  });
});
