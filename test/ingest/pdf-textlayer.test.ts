import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beginText, degrees, endText, PDFDocument, setFontAndSize, setTextRenderingMode, showText, StandardFonts, TextRenderingMode } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { openInput } from '../../src/ingest/index.js';
import type { OcrPage } from '../../src/project/index.js';
import { withTempDir } from '../helpers.js';
import { jpeg } from './fixtures.js';

const A6: [number, number] = [297.6, 419.5];

const lineTexts = (page: OcrPage): string[] =>
  page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.map((l) => l.words.map((w) => w.text).join(' '))));

/** Four pages: printed text, a scan under an invisible OCR layer, a bare scan, a page whose only text is spaces. */
async function mixedPdf(path: string): Promise<void> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const text = doc.addPage(A6);
  text.drawText('Printed words here', { x: 30, y: 350, size: 14, font });
  text.drawText('and a second line.', { x: 30, y: 332, size: 14, font });

  const photo = await doc.embedJpg(await jpeg(413, 583, 220));
  const ocrd = doc.addPage(A6);
  ocrd.drawImage(photo, { x: 0, y: 0, width: A6[0], height: A6[1] });
  const key = ocrd.node.newFontDictionary('F1', font.ref);
  ocrd.pushOperators(
    beginText(),
    setTextRenderingMode(TextRenderingMode.Invisible),
    setFontAndSize(key, 12),
    showText(font.encodeText('hidden words')),
    endText(),
  );

  doc.addPage(A6).drawImage(photo, { x: 0, y: 0, width: A6[0], height: A6[1] });
  doc.addPage(A6).drawText('   ', { x: 30, y: 350, size: 14, font });

  const turned = doc.addPage(A6);
  turned.setRotation(degrees(90));
  turned.drawText('Turned page', { x: 30, y: 350, size: 14, font });
  await writeFile(path, await doc.save());
}

describe('PDF pages with a text layer', () => {
  it('are told from pages without text, and give their words in the page’s pixels', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'mixed.pdf');
      await mixedPdf(path);
      const opened = await openInput(path);
      try {
        const [text, ocrd, scan, blank, turned] = opened.frames;
        expect(scan.textLayer).toBeUndefined();
        expect(blank.textLayer).toBeUndefined();
        // An earlier OCR layer counts: the scan under it is not read again.
        expect(ocrd.kind).toBe('scan');
        expect(ocrd.textLayer).toMatchObject({ pdf: path, page: 2 });
        expect(lineTexts(await ocrd.textLayer!.textContent())).toEqual(['hidden words']);

        const layer = text.textLayer!;
        // A vector page is planned at 300 dpi: its words are in the pixels of that page.
        expect(layer).toMatchObject({ pdf: path, page: 1, dpi: 300, width: 1240, height: 1748 });
        const page = await layer.textContent();
        expect(page).toMatchObject({ width: 1240, height: 1748, dpi: 300, engine: 'pdf' });
        expect(lineTexts(page)).toEqual(['Printed words here', 'and a second line.']);
        const first = page.blocks[0].paragraphs[0].lines[0];
        // The baseline at 350 pt from the bottom is (419.5 − 350) × 300 / 72 ≈ 290 px from the top; x = 30 pt = 125 px.
        expect(first.words[0].box.x0).toBe(125);
        // "Printed" has no descender: its ink stands on the baseline.
        expect(first.words[0].box.y1).toBeGreaterThanOrEqual(290);
        expect(first.words[0].box.y0).toBeGreaterThan(290 - 14 * (300 / 72));

        // A page shown turned: its pixels are turned too, and the text runs down the page.
        expect(turned.textLayer).toMatchObject({ width: 1748, height: 1240 });
        const sideways = await turned.textLayer!.textContent();
        expect(lineTexts(sideways)).toEqual(['Turned page']);
        const box = sideways.blocks[0].box;
        expect(box.y1 - box.y0).toBeGreaterThan(box.x1 - box.x0);
      } finally {
        await opened.close();
      }
    });
  });
});
