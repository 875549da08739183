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
import { type OcrPage, writePageImage } from '../../src/project/index.js';
import { bookCorpus } from './book-corpus.js';

const work = mkdtempSync(join(tmpdir(), 'quire-reconversion-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Quire's PDF of `pages` (on blank page images), its text layer read back as any input PDF's. */
async function readAgain(pages: OcrPage[], name: string): Promise<OcrPage[]> {
  const inputs = [];
  for (const [i, ocr] of pages.entries()) {
    const white = new Uint8Array(ocr.width * ocr.height).fill(255);
    const file = await writePageImage({ data: white, width: ocr.width, height: ocr.height, channels: 1 }, 'bitonal', ocr.dpi, join(work, `${name}-${i + 1}`));
    inputs.push({ file, kind: 'bitonal' as const, width: ocr.width, height: ocr.height, dpi: ocr.dpi, ocr });
  }
  const pdf = join(work, `${name}.pdf`);
  await writePdf(inputs, pdf);
  const opened = await openInput(pdf, `${name}.pdf`);
  try {
    return await Promise.all(opened.frames.map((frame) => (frame.textLayer ? frame.textLayer.textContent() : Promise.reject(new Error('no text layer')))));
  } finally {
    await opened.close?.();
  }
}

/**
 * `page` as an engine boxes it: in every line of the `headings`, the second word boxed half again as tall than the first,
 * as tesseract boxed `HUITIEME` beside `LIVRE`.
 */
function unevenHeadings(page: OcrPage, headings: Set<string>): OcrPage {
  const copy = structuredClone(page);
  for (const line of copy.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines))) {
    const word = line.words[1];
    if (!word || !headings.has(line.words.map((w) => w.text).join(' '))) continue;
    word.box.y0 -= Math.round((word.box.y1 - word.box.y0) / 2);
    line.box.y0 = Math.min(line.box.y0, word.box.y0);
  }
  return copy;
}

describe('Quire’s own PDF converted again', () => {
  it('gives the same Markdown as the pages it was written from', async () => {
    const pages = bookCorpus().pages.map((p) => p.ocr);
    const want = documentToMarkdown(pages, { title: 'Les Confessions' });
    expect(want).toContain('vide de tout corps[^14].');
    const again = await readAgain(pages, 'book');
    expect(documentToMarkdown(again, { title: 'Les Confessions' })).toBe(want);
    // A capital's accent stands above the font's ascent: the word read back is as tall as it was set (it was cut at
    // the ascent, and `LIVRE SEPTIÈME` OCR'd and read again came out a rank below `LIVRE HUITIEME`).
    const height = (p: OcrPage[]): number[] =>
      p
        .flatMap((page) => page.blocks.flatMap((b) => b.paragraphs.flatMap((q) => q.lines.flatMap((l) => l.words))))
        .filter((w) => w.text === 'HUITIÈME')
        .map((w) => w.box.y1 - w.box.y0);
    expect(height(again).length).toBe(1);
    expect(Math.abs(height(again)[0] - height(pages)[0])).toBeLessThanOrEqual(1);
  });

  it('keeps the headings at their level where the engine boxed one word of a line taller than the others', async () => {
    // As tesseract boxed `HUITIEME` taller than `LIVRE` beside it: the text layer sizes the line as the structure
    // measures it (the middle of its words' sizes), not by its tallest word, so no heading drops a level.
    const asSet = bookCorpus().pages.map((p) => p.ocr);
    const headings = new Set([...documentToMarkdown(asSet, { title: 'Les Confessions' }).matchAll(/^#+ (.+)$/gmu)].map((m) => m[1]));
    const pages = asSet.map((p) => unevenHeadings(p, headings));
    const want = documentToMarkdown(pages, { title: 'Les Confessions' });
    expect(want).toMatch(/^# LIVRE HUITIÈME$/m);
    expect(want).toMatch(/^## I\. LA SUBSTANCE$/m);
    expect(documentToMarkdown(await readAgain(pages, 'uneven'), { title: 'Les Confessions' })).toBe(want);
  });
});
