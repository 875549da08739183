import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pdfImages, pdfPageCount, qpdfCheck, runQuire, withTempDir } from '../helpers.js';

/** Two born-digital pages: a title and two paragraphs each, set in Times. */
const TEXT_PAGES = [
  {
    title: 'The Harbour',
    paragraphs: [
      ['The boats came in at dawn, heavy with the night', 'catch, and the gulls followed them all the way', 'to the stone quay.'],
      ['By noon the market was full of voices and the', 'smell of salt.'],
    ],
  },
  {
    title: 'The Lighthouse',
    paragraphs: [
      ['Nobody had climbed the old tower for years, yet', 'its lamp still turned every evening.'],
      ['The keeper said it would turn long after him.'],
    ],
  },
];

/** The text pages, then (unless `textOnly`) a page that is a scan: a bitonal image of two lines, no text layer. */
async function bornDigitalPdf(path: string, textOnly = false): Promise<void> {
  const doc = await PDFDocument.create();
  const body = await doc.embedFont(StandardFonts.TimesRoman);
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold);
  for (const { title, paragraphs } of TEXT_PAGES) {
    const page = doc.addPage([420, 595]);
    let y = 520;
    page.drawText(title, { x: 50, y, size: 20, font: bold });
    y -= 40;
    for (const lines of paragraphs) {
      for (const line of lines) {
        page.drawText(line, { x: 50, y, size: 12, font: body });
        y -= 15;
      }
      y -= 12;
    }
  }
  if (!textOnly) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1240" height="600"><rect width="100%" height="100%" fill="#fff"/>
      <text x="100" y="200" font-family="DejaVu Serif" font-size="50">The quick brown fox jumps</text>
      <text x="100" y="300" font-family="DejaVu Serif" font-size="50">over the lazy sleeping dog.</text></svg>`;
    const png = await sharp(Buffer.from(svg)).flatten({ background: '#fff' }).greyscale().threshold(128).png().toBuffer();
    const scan = doc.addPage([297.6, 144]);
    scan.drawImage(await doc.embedPng(png), { x: 0, y: 0, width: 297.6, height: 144 });
  }
  await writeFile(path, await doc.save());
}

const run = (command: string, args: string[]): string => execFileSync(command, args, { encoding: 'utf8' });
const pagesOf = (first: number, last: number): string[] => ['-f', String(first), '-l', String(last)];
const textOf = (pdf: string, first: number, last: number): string => run('pdftotext', ['-raw', ...pagesOf(first, last), pdf, '-']);
const fontsOf = (pdf: string, first: number, last: number): string[] =>
  run('pdffonts', [...pagesOf(first, last), pdf])
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => l.split(/\s+/)[0])
    .sort();
const imagePages = (pdf: string): number[] => pdfImages(pdf).map((i) => i.page);

/** What a reader sees of a PDF, page by page: its text, its fonts, its images. */
function pagesSeen(pdf: string): Array<{ text: string; fonts: string[]; images: number }> {
  return Array.from({ length: pdfPageCount(pdf) }, (_, i) => ({
    text: textOf(pdf, i + 1, i + 1),
    fonts: fontsOf(pdf, i + 1, i + 1),
    images: pdfImages(pdf).filter((img) => img.page === i + 1).length,
  }));
}

describe('quire ocr on a PDF whose pages already have text', () => {
  it('keeps those pages as they are, OCRs the scan page, and reopens the same from a slim project', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'born.pdf');
      await bornDigitalPdf(input);
      const r = await runQuire(['ocr', input, '--ocr-lang', 'en', '--export', 'pdf+md+slim', '-o', join(dir, 'out'), '--json']);
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout)[0];
      expect(summary).toMatchObject({ pages: 3, kept_pages: 2, ocr: { languages: ['eng'] } });
      expect(['tesseract', 'tesseract-cli']).toContain(summary.ocr.engine);
      const [pdf, md, slim] = summary.outputs.map((o: { path: string }) => o.path) as string[];

      qpdfCheck(pdf);
      expect(pdfPageCount(pdf)).toBe(3);
      // The text pages are the original ones: their own fonts and text, no image, no OCR layer.
      expect(fontsOf(pdf, 1, 2)).toEqual(['Times-Bold', 'Times-Roman']);
      expect(textOf(pdf, 1, 2)).toBe(textOf(input, 1, 2));
      expect(imagePages(pdf)).toEqual([3]);
      // The scan page got an OCR layer.
      expect(fontsOf(pdf, 3, 3)).toEqual(['QuireGlyphless']);
      const scanText = textOf(pdf, 3, 3);
      expect(scanText).toContain('quick brown fox');
      expect(scanText).toContain('lazy sleeping dog');

      // Markdown has the text of all three pages, the kept pages' exactly, titles as headings.
      const markdown = await readFile(md, 'utf8');
      for (const { title, paragraphs } of TEXT_PAGES) {
        expect(markdown).toContain(`# ${title}\n`);
        for (const lines of paragraphs) expect(markdown).toContain(`\n${lines.join(' ')}\n`);
      }
      expect(markdown).toContain('quick brown fox');
      expect(markdown).toContain('lazy sleeping dog');

      // The slim project carries the source PDF: re-exported, it gives the same pages.
      const again = await runQuire(['run', slim, '--export', 'pdf', '-o', join(dir, 'again'), '--json']);
      expect(again.code).toBe(0);
      const reopened = JSON.parse(again.stdout)[0];
      expect(reopened).toMatchObject({ pages: 3, kept_pages: 2 });
      qpdfCheck(reopened.outputs[0].path);
      expect(pagesSeen(reopened.outputs[0].path)).toEqual(pagesSeen(pdf));

      // --force-ocr cannot apply to a project: the kept pages have no image to read.
      const forced = await runQuire(['ocr', slim, '--force-ocr', '-o', join(dir, 'forced')]);
      expect(forced.code).toBe(2);
      expect(forced.stderr).toMatch(/--force-ocr needs the PDF itself/);
    });
  }, 60_000);

  it('--force-ocr rasterises and OCRs every page; quire run still rasterises too', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'born.pdf');
      await bornDigitalPdf(input);
      const r = await runQuire(['ocr', input, '--force-ocr', '--ocr-lang', 'en', '-o', join(dir, 'forced'), '--json']);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout)[0];
      expect(summary.kept_pages).toBe(0);
      const pdf = summary.outputs[0].path;
      qpdfCheck(pdf);
      expect(imagePages(pdf)).toEqual([1, 2, 3]);
      expect(fontsOf(pdf, 1, 3)).toEqual(['QuireGlyphless']);
      const text = textOf(pdf, 1, 3);
      for (const phrase of ['The Harbour', 'gulls followed them', 'The Lighthouse', 'keeper said', 'quick brown fox']) expect(text).toContain(phrase);

      const ran = await runQuire(['run', input, '-o', join(dir, 'run'), '--json']);
      expect(ran.code).toBe(0);
      const runPdf = JSON.parse(ran.stdout)[0].outputs[0].path;
      qpdfCheck(runPdf);
      expect(imagePages(runPdf)).toEqual([1, 2, 3]);
    });
  }, 60_000);

  it('runs no OCR engine when every page has its own text', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'text.pdf');
      await bornDigitalPdf(input, true);
      const r = await runQuire(['ocr', input, '--export', 'pdf+md', '-o', join(dir, 'out'), '--json']);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout)[0];
      expect(summary).toMatchObject({ pages: 2, kept_pages: 2 });
      expect(summary.ocr).toBeNull();
      const [pdf, md] = summary.outputs.map((o: { path: string }) => o.path) as string[];
      qpdfCheck(pdf);
      expect(textOf(pdf, 1, 2)).toBe(textOf(input, 1, 2));
      expect(imagePages(pdf)).toEqual([]);
      const markdown = await readFile(md, 'utf8');
      expect(markdown).toContain('# The Lighthouse\n\nNobody had climbed the old tower for years, yet its lamp still turned every evening.\n');
    });
  });
});
