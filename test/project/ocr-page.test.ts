import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { loadOcrPages, newManifest, readOcrPage, saveManifest, writeOcrPage, type OcrPage } from '../../src/project/index.js';
import { withTempDir } from '../helpers.js';

const box = { x0: 0, y0: 0, x1: 10, y1: 10 };
const page: OcrPage = {
  width: 100,
  height: 100,
  dpi: 300,
  engine: 'tesseract',
  languages: ['fra'],
  blocks: [{ box, paragraphs: [{ box, lines: [{ box, words: [{ text: 'avançais', box, confidence: 71 }] }] }] }],
};

describe('the OCR page files of a project (ocr/<page>.json)', () => {
  it('writes a page whole, with no temporary file left beside it, and reads it back', async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, 'ocr'));
      await writeOcrPage(dir, 'ocr/0001.json', page);
      await writeOcrPage(dir, 'ocr/0001.json', { ...page, languages: ['lat'] });
      expect(await readdir(join(dir, 'ocr'))).toEqual(['0001.json']);
      expect(await readOcrPage(dir, 'ocr/0001.json', 1)).toEqual({ ...page, languages: ['lat'] });
    });
  });

  it('says which page is missing or damaged, as a damaged project', async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, 'ocr'));
      await expect(readOcrPage(dir, 'ocr/0003.json', 3)).rejects.toMatchObject({
        code: ERROR_CODES.BAD_PROJECT,
        message: 'The OCR result of page 3 is missing from the project.',
      });
      await writeFile(join(dir, 'ocr/0004.json'), '{"width": 100, "blo');
      await expect(readOcrPage(dir, 'ocr/0004.json', 4)).rejects.toMatchObject({
        code: ERROR_CODES.BAD_PROJECT,
        message: 'The OCR result of page 4 cannot be read.',
      });
    });
  });

  it('reads every visible page for the exports, and refuses a project whose page file is damaged', async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, 'ocr'));
      const manifest = newManifest('Book', []);
      const pageOf = (index: number) => ({
        index,
        file: `pages/${index}.tif`,
        kind: 'bitonal' as const,
        width: 100,
        height: 100,
        dpi: 300,
        ocr: `ocr/${index}.json`,
        source: { input: 'x', frame: index, side: 'single' as const },
        decisions: { preset: 'flat' as const, inputDpi: { value: 300, source: 'pdf' as const } },
      });
      manifest.pages = [pageOf(1), pageOf(2)];
      await writeOcrPage(dir, 'ocr/1.json', page);
      await writeOcrPage(dir, 'ocr/2.json', page);
      expect([...(await loadOcrPages(dir, manifest)).keys()]).toEqual([1, 2]);
      await writeFile(join(dir, 'ocr/2.json'), 'not json');
      await expect(loadOcrPages(dir, manifest)).rejects.toThrow('The OCR result of page 2 cannot be read.');
    });
  });

  it('saves project.json in one piece, leaving no temporary file', async () => {
    await withTempDir(async (dir) => {
      await saveManifest(dir, newManifest('Book', ['book.pdf']));
      await saveManifest(dir, newManifest('Book 2', ['book.pdf']));
      expect(await readdir(dir)).toEqual(['project.json']);
      expect(JSON.parse(await readFile(join(dir, 'project.json'), 'utf8'))).toMatchObject({ name: 'Book 2', inputs: ['book.pdf'] });
    });
  });
});
