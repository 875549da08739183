import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { epubcheck, epubTextBlocks, hasEpubcheck, markdownTextBlocks, openEpub, problems } from '../export/epub-read.js';
import { SAMPLE, pdfPageCount, qpdfCheck, readZip, runQuire, withTempDir } from '../helpers.js';

const PAGE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="1240" height="600"><rect width="100%" height="100%" fill="#fff"/>
  <text x="100" y="200" font-family="DejaVu Serif" font-size="50">The quick brown fox jumps</text>
  <text x="100" y="300" font-family="DejaVu Serif" font-size="50">over the lazy sleeping dog.</text></svg>`;

const words = (s: string): Set<string> => new Set(s.toLowerCase().match(/\p{L}{4,}/gu) ?? []);

describe('quire run --ocr on the example bundle', () => {
  it('writes a searchable PDF, Markdown that reads like the book, a textpack and an EPUB of the same text', async () => {
    await withTempDir(async (dir) => {
      const r = await runQuire(['run', SAMPLE, '--ocr', 'auto', '--export', 'pdf+md+textpack+epub', '-o', dir, '--json']);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout)[0];
      // The native engine when Debian's tesseract is installed (CI installs it), else tesseract.js.
      expect(['tesseract', 'tesseract-cli']).toContain(summary.ocr.engine);
      // The sample holds English and French pages: both are detected.
      expect(summary.ocr.languages).toEqual(expect.arrayContaining(['eng', 'fra']));
      const byFormat = Object.fromEntries(summary.outputs.map((o: { format: string; path: string }) => [o.format, o.path]));
      expect(byFormat.textpack.endsWith('_OCR.textpack')).toBe(true);

      const pdf = byFormat.pdf as string;
      qpdfCheck(pdf);
      const layer = execFileSync('pdftotext', ['-raw', pdf, '-'], { encoding: 'utf8' });
      const truth = JSON.parse(await readFile(SAMPLE.replace(/\.aglbundle$/, '.truth.json'), 'utf8'));
      const truthText: string = truth.frames.flatMap((f: { pages: Array<{ text: string }> }) => f.pages.map((p) => p.text)).join('\n');
      const want = words(truthText);
      const found = [...words(layer)].filter((w) => want.has(w));
      // Most of the book's words are searchable in the PDF.
      expect(found.length / want.size).toBeGreaterThan(0.85);
      expect(layer).toContain('Netherfield');
      expect(layer).toContain('Candide');

      const md = await readFile(byFormat.md, 'utf8');
      expect(md).toMatch(/^<!-- page 1 -->/);
      expect(md).toMatch(/^# .*CHAPTER/im);
      expect(md).toContain('universally acknowledged');
      // Running heads and page numbers are not in the text.
      expect(md).not.toMatch(/^Pride and Prejudice$/m);
      expect(md).not.toMatch(/^\d+$/m);

      const pack = await readZip(byFormat.textpack);
      expect([...pack.keys()].sort()).toEqual(['ocr.json', 'source.pdf', 'text.md']);
      expect(pack.get('text.md')!.toString('utf8')).toBe(md);
      const ocr = JSON.parse(pack.get('ocr.json')!.toString('utf8'));
      expect(ocr).toHaveLength(6);
      expect(ocr[0].blocks.length).toBeGreaterThan(0);
      expect(pack.get('source.pdf')!.subarray(0, 5).toString()).toBe('%PDF-');

      // The EPUB: valid, the Markdown's text reflowed, in the languages the OCR read, under the bundle's name.
      expect(byFormat.epub.endsWith('.epub')).toBe(true);
      if (hasEpubcheck() || process.env.CI === 'true') {
        const [report] = await epubcheck([byFormat.epub]);
        expect(problems(report.messages)).toEqual([]);
        expect(report.code).toBe(0);
      }
      const epub = await openEpub(byFormat.epub);
      expect(epubTextBlocks(epub)).toEqual(markdownTextBlocks(md));
      expect(epub.languages).toEqual(expect.arrayContaining(['en', 'fr']));
      expect(summary.name).toBe('Pride and Prejudice · Candide — Quire sample');
      expect(epub.titles).toEqual([summary.name]);
    });
  }, 240_000);
});

describe('quire ocr', () => {
  it('makes a clean scanned PDF searchable without reshaping its pages', async () => {
    await withTempDir(async (dir) => {
      const png = await sharp(Buffer.from(PAGE_SVG)).flatten({ background: '#fff' }).greyscale().threshold(128).png().toBuffer();
      const doc = await PDFDocument.create();
      const image = await doc.embedPng(png);
      const page = doc.addPage([297.6, 144]);
      page.drawImage(image, { x: 0, y: 0, width: 297.6, height: 144 });
      const input = join(dir, 'scan.pdf');
      await writeFile(input, await doc.save());
      const r = await runQuire(['ocr', input, '--ocr-lang', 'en', '--export', 'pdf+md', '-o', join(dir, 'out'), '--json']);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout)[0];
      expect(summary.ocr.languages).toEqual(['eng']);
      expect(['tesseract', 'tesseract-cli']).toContain(summary.ocr.engine);
      const pdf = summary.outputs[0].path;
      expect(pdfPageCount(pdf)).toBe(1);
      const text = execFileSync('pdftotext', ['-raw', pdf, '-'], { encoding: 'utf8' });
      expect(text).toContain('quick brown fox');
      expect(text).toContain('lazy sleeping dog');
      const md = await readFile(summary.outputs[1].path, 'utf8');
      expect(md).toContain('The quick brown fox jumps over the lazy sleeping dog.');
    });
  });

  it('auto prefers the native tesseract when it is installed, and falls back to tesseract.js without it', async () => {
    const hasNative = spawnSync('tesseract', ['--version']).status === 0;
    if (!hasNative && process.env.CI === 'true') throw new Error("Debian's tesseract-ocr is missing on CI.");
    await withTempDir(async (dir) => {
      const png = await sharp(Buffer.from(PAGE_SVG)).flatten({ background: '#fff' }).greyscale().threshold(128).png().withMetadata({ density: 300 }).toBuffer();
      const input = join(dir, 'page.png');
      await writeFile(input, png);
      // A PATH with node but without tesseract.
      const bare = join(dir, 'bin');
      await mkdir(bare);
      await symlink(process.execPath, join(bare, 'node'));
      const without = await runQuire(['ocr', input, '--ocr-lang', 'eng', '-o', join(dir, 'a'), '--json'], { env: { PATH: bare } });
      expect(without.code).toBe(0);
      expect(JSON.parse(without.stdout)[0].ocr.engine).toBe('tesseract');
      if (hasNative) {
        const withNative = await runQuire(['ocr', input, '--ocr-lang', 'eng', '-o', join(dir, 'b'), '--json']);
        expect(withNative.code).toBe(0);
        expect(JSON.parse(withNative.stdout)[0].ocr.engine).toBe('tesseract-cli');
        const text = execFileSync('pdftotext', ['-raw', JSON.parse(withNative.stdout)[0].outputs[0].path, '-'], { encoding: 'utf8' });
        expect(text).toContain('quick brown fox');
      }
    });
  });

  it('refuses a language that is not installed, naming the installed ones', async () => {
    const r = await runQuire(['ocr', SAMPLE, '--ocr-lang', 'ru']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not installed/);
    expect(r.stderr).toMatch(/eng/);
  });

  it('lists the OCR engines and their languages', async () => {
    const r = await runQuire(['list', 'ocr']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^tesseract /m);
    for (const lang of ['eng', 'fra', 'deu', 'spa', 'ita', 'lat', 'por', 'ell']) expect(r.stdout).toContain(lang);
    // Which model reads them: the npm best_int models, for the native engine too.
    const models = r.stdout.split('\n').filter((l) => l.includes('model: 4.0.0_best_int (npm @tesseract.js-data) for'));
    expect(models).toHaveLength(2);
    for (const line of models) expect(line).toContain('fra');
  });
});
