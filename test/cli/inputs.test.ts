import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pdfImages, pdfPageCount, pdfPageSizes, qpdfCheck, runQuire, withTempDir } from '../helpers.js';

/** A white page with a block of dark bars, like lines of text, at a known place. */
async function textLikePage(width: number, height: number, dpi: number): Promise<Buffer> {
  const bars = Array.from(
    { length: 20 },
    (_, i) =>
      `<rect x="${width * 0.15}" y="${height * 0.2 + i * height * 0.03}" width="${width * (i % 5 === 4 ? 0.4 : 0.7)}" height="${height * 0.012}" fill="#222"/>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${bars}</svg>`;
  return sharp(Buffer.from(svg)).greyscale().png().withMetadata({ density: dpi }).toBuffer();
}

describe('quire run on PDFs and images', () => {
  it('a born-digital PDF keeps its pages as they are (flat) at the chosen resolution', async () => {
    await withTempDir(async (dir) => {
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(StandardFonts.TimesRoman);
      for (let i = 1; i <= 3; i++) {
        const page = doc.addPage([419.5, 595.3]); // A5
        page.drawText(`Chapter ${i}`, { x: 60, y: 520, size: 18, font });
        for (let l = 0; l < 25; l++) page.drawText('It is a truth universally acknowledged, that a single man', { x: 60, y: 480 - l * 15, size: 11, font });
      }
      const input = join(dir, 'novel.pdf');
      await writeFile(input, await doc.save());
      const r = await runQuire(['run', input, '-o', dir, '--json']);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout)[0];
      expect(summary.name).toBe('novel');
      const pdf = summary.outputs[0].path;
      expect(pdf).toBe(join(dir, 'novel.pdf'));
      expect(pdfPageCount(pdf)).toBe(3);
      qpdfCheck(pdf);
      // The page keeps its physical size: rasterised at 300 dpi, written back at 300 dpi.
      for (const size of pdfPageSizes(pdf)) {
        expect(size.width).toBeCloseTo(419.5, 0);
        expect(size.height).toBeCloseTo(595.3, 0);
      }
      for (const img of pdfImages(pdf)) expect(Math.round(img.xppi)).toBe(300);
    });
  });

  it('a scanned PDF page that is one JPEG is cleaned with the sheet preset at its own resolution', async () => {
    await withTempDir(async (dir) => {
      const jpeg = await sharp(await textLikePage(1240, 1754, 150))
        .jpeg({ quality: 90 })
        .toBuffer();
      const doc = await PDFDocument.create();
      const img = await doc.embedJpg(jpeg);
      const page = doc.addPage([595.2, 841.9]);
      page.drawImage(img, { x: 0, y: 0, width: 595.2, height: 841.9 });
      const input = join(dir, 'scan.pdf');
      await writeFile(input, await doc.save());
      const proj = join(dir, 'proj');
      const r = await runQuire(['run', input, '-o', join(dir, 'out'), '--keep-project', proj, '--json']);
      expect(r.code).toBe(0);
      const project = JSON.parse(await readFile(join(proj, 'project.json'), 'utf8'));
      expect(project.pages).toHaveLength(1);
      expect(project.pages[0].decisions.preset).toBe('sheet');
      expect(project.pages[0].decisions.inputDpi).toEqual({ value: 150, source: 'pdf' });
      const pdf = JSON.parse(r.stdout)[0].outputs[0].path;
      const [image] = pdfImages(pdf);
      expect(image.enc).toBe('ccitt');
      expect(Math.round(image.xppi)).toBe(300);
    });
  });

  it('several images make one document, in the order given, named after their folder', async () => {
    await withTempDir(async (dir) => {
      const a = join(dir, 'b-first.png');
      const b = join(dir, 'a-second.png');
      await writeFile(a, await textLikePage(1240, 1754, 150));
      await writeFile(b, await textLikePage(1240, 1754, 150));
      const r = await runQuire(['run', a, b, '-o', join(dir, 'out'), '--json']);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout)[0];
      expect(summary.input).toEqual([a, b]);
      expect(summary.pages).toBe(2);
      expect(pdfPageCount(summary.outputs[0].path)).toBe(2);
    });
  });

  it('--pipeline flat keeps a grey photo grey, as JPEG', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'page.png');
      const svg =
        '<svg xmlns="http://www.w3.org/2000/svg" width="620" height="877"><defs><linearGradient id="g"><stop offset="0" stop-color="#eee"/><stop offset="1" stop-color="#555"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>';
      await sharp(Buffer.from(svg)).greyscale().png().toFile(input);
      const r = await runQuire(['run', input, '--pipeline', 'flat', '--dpi', '75', '-o', dir, '--json']);
      expect(r.code).toBe(0);
      const [image] = pdfImages(JSON.parse(r.stdout)[0].outputs[0].path);
      expect(image).toMatchObject({ width: 620, height: 877, enc: 'jpeg', color: 'gray' });
    });
  });
});
