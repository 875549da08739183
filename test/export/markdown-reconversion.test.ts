/**
 * Quire's own searchable PDF converted again: the synthetic book's pages written as a PDF with their text layer (on
 * blank page images), the PDF opened as any input PDF is and its text layer read back. Its Markdown must be the
 * Markdown of the pages themselves — headings at their ranks, superscript note calls (as set, and as OCR glues them
 * to their word as marks: `corps#!.`) linked to their notes, no body line taken for a heading.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentToMarkdown, writePdf } from '../../src/export/index.js';
import { openInput } from '../../src/ingest/index.js';
import { writePageImage } from '../../src/project/index.js';
import { bookCorpus } from './book-corpus.js';

const work = mkdtempSync(join(tmpdir(), 'quire-reconversion-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('Quire’s own PDF converted again', () => {
  it('gives the same Markdown as the pages it was written from', async () => {
    const pages = bookCorpus().pages.map((p) => p.ocr);
    const inputs = [];
    for (const [i, ocr] of pages.entries()) {
      const white = new Uint8Array(ocr.width * ocr.height).fill(255);
      const file = await writePageImage({ data: white, width: ocr.width, height: ocr.height, channels: 1 }, 'bitonal', ocr.dpi, join(work, `blank-${i + 1}`));
      inputs.push({ file, kind: 'bitonal' as const, width: ocr.width, height: ocr.height, dpi: ocr.dpi, ocr });
    }
    const pdf = join(work, 'book.pdf');
    await writePdf(inputs, pdf);
    const opened = await openInput(pdf, 'book.pdf');
    try {
      const again = await Promise.all(
        opened.frames.map((frame) => (frame.textLayer ? frame.textLayer.textContent() : Promise.reject(new Error('no text layer')))),
      );
      const want = documentToMarkdown(pages, { title: 'Les Confessions' });
      expect(want).toContain('vide de tout corps[^14].');
      expect(documentToMarkdown(again, { title: 'Les Confessions' })).toBe(want);
    } finally {
      await opened.close?.();
    }
  });
});
