/**
 * Words no dictionary knows, read again by the real tesseract program: an engine reads the page with tesseract and
 * then misreads two words the way camera pages are misread; the correction step cuts them out, has tesseract read
 * them again alone, and takes only the close dictionary word.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from '../../src/convert/index.js';
import { createTesseractCliEngine, registerOcrEngine, type OcrEngine } from '../../src/ocr/index.js';
import { pageWords, type OcrPage, type ProjectManifest } from '../../src/project/index.js';
import { keptOcrPage } from '../helpers.js';
import { renderTextPage, writePage } from '../ocr/pages.js';

const TEXT = 'Un premier jet aurait été écrit à l’automne, comprenant les sections du traité, et la ville resta calme depuis le 1er octobre.';
/**
 * What the engine makes of some words: "premier" loses its "pr" (as on the real capture), "ville" becomes noise, and
 * "le 1er octobre" is read "le 1 &tobre" (the raised "er" lost, the "oc" run together).
 */
const MISREAD: Record<string, string> = { premier: 'memier', ville: 'xqzt', '1er': '1', 'octobre.': '&tobre.', cœur: 'cour' };
/** Misread as another dictionary word, with the engine's doubt: the ligature the grey page blurred. */
const DOUBTED: Record<string, number> = { cour: 50 };

let dir: string;
const tesseract = createTesseractCliEngine({ workers: 1 });
const wordsRead: number[] = [];

const misreading: OcrEngine = {
  name: 'misreading-tesseract',
  display: 'Misreading tesseract',
  description: 'tesseract-cli, with two words misread after the fact.',
  available: () => tesseract.available(),
  languages: () => tesseract.languages(),
  async recognize(page, languages) {
    const read = await tesseract.recognize(page, languages);
    for (const word of pageWords(read)) {
      if (MISREAD[word.text]) word.text = MISREAD[word.text];
      if (DOUBTED[word.text]) word.confidence = DOUBTED[word.text];
    }
    return { ...read, engine: 'misreading-tesseract' };
  },
  async readWords(images, languages) {
    wordsRead.push(images.length);
    return tesseract.readWords!(images, languages);
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-reread-'));
  const page = await renderTextPage(TEXT, { dpi: 300 });
  await sharp(page.png).withMetadata({ density: 300 }).png().toFile(join(dir, 'page.png'));
  registerOcrEngine(misreading);
});
afterAll(async () => {
  await tesseract.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('words read again', () => {
  it('gives a word no dictionary knows the close dictionary word tesseract reads when it is cut out, and leaves noise as read', async () => {
    const project = join(dir, 'project');
    const result = await convert(join(dir, 'page.png'), {
      exports: 'md',
      ocr: 'misreading-tesseract',
      ocrLang: 'fra',
      keepProject: project,
      outDir: join(dir, 'out'),
    });
    // The document's cut-out words, asked for at once, each read as an image of its own.
    expect(wordsRead).toHaveLength(1);
    expect(wordsRead[0]).toBeGreaterThanOrEqual(3);
    const read = pageWords(keptOcrPage(project));
    const premier = read.find((w) => w.correction?.from === 'memier');
    expect(premier).toMatchObject({ text: 'premier', correction: { from: 'memier', reason: 'reread', change: 'memier→premier', language: 'fra' } });
    expect(premier?.unknown).toBeUndefined();
    // "xqzt" read again is "ville", but five letters from what was read: too far to be sure, left as read.
    expect(read.find((w) => w.text === 'xqzt')).toMatchObject({ unknown: true });
    // "&tobre" read again is "octobre": then "le 1" before it is the first of the month.
    expect(read.find((w) => w.correction?.from === '1')).toMatchObject({ text: '1er', correction: { reason: 'grammar', change: '1→1er' } });
    expect(result.ocr?.correction).toMatchObject({ enabled: true, corrected: 3 });
    const md = readFileSync(result.outputs[0].path, 'utf8');
    expect(md).toContain('Un premier jet');
    expect(md).toContain('depuis le 1er octobre.');

    // --no-correct puts back what the engine read.
    const raw = await convert(project, { exports: 'md', correct: false, outDir: join(dir, 'raw') });
    expect(readFileSync(raw.outputs[0].path, 'utf8')).toContain('Un memier jet');
  });

  it('reads a word the grey reading image leaves unsettled again from the bitonal page, the second reading', async () => {
    const project = join(dir, 'project-ink');
    await convert(join(dir, 'page.png'), { exports: 'md', ocr: 'misreading-tesseract', ocrLang: 'fra', keepProject: project, outDir: join(dir, 'out-ink') });
    // The pages OCR read are now grey images in which the words cannot be seen (as a blurred capture's may be): only
    // the bitonal page the PDF shows still has their ink.
    const manifestFile = join(project, 'project.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as ProjectManifest;
    const [first] = manifest.pages;
    await sharp({ create: { width: first.width, height: first.height, channels: 3, background: '#ffffff' } })
      .grayscale()
      .png()
      .toFile(join(project, 'pages', 'blank.ocr.png'));
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, pages: [{ ...first, ocrImage: 'pages/blank.ocr.png' }, ...manifest.pages.slice(1)] }));
    await convert(project, { exports: 'md', correct: false, outDir: join(dir, 'raw-ink') });
    const result = await convert(project, { exports: 'md', outDir: join(dir, 'corrected-ink') });
    const premier = pageWords(keptOcrPage(project)).find((w) => w.correction?.from === 'memier');
    expect(premier).toMatchObject({ text: 'premier', correction: { reason: 'reread', change: 'memier→premier (bitonal page)' } });
    expect(readFileSync(result.outputs[0].path, 'utf8')).toContain('Un premier jet');
  });

  it('takes the accent or ligature of a dictionary word read with doubt from the bitonal page', async () => {
    const page = await renderTextPage('Il a du cœur à l’ouvrage.', { dpi: 300 });
    await sharp(page.png).withMetadata({ density: 300 }).png().toFile(join(dir, 'heart.png'));
    const project = join(dir, 'project-heart');
    await convert(join(dir, 'heart.png'), { exports: 'md', ocr: 'misreading-tesseract', ocrLang: 'fra', keepProject: project, outDir: join(dir, 'out-heart') });
    // As above, the grey page OCR read is made blank: the second reading can only come from the bitonal page.
    const manifestFile = join(project, 'project.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as ProjectManifest;
    const [first] = manifest.pages;
    await sharp({ create: { width: first.width, height: first.height, channels: 3, background: '#ffffff' } })
      .grayscale()
      .png()
      .toFile(join(project, 'pages', 'blank.ocr.png'));
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, pages: [{ ...first, ocrImage: 'pages/blank.ocr.png' }, ...manifest.pages.slice(1)] }));
    const result = await convert(project, { exports: 'md', outDir: join(dir, 'heart-corrected') });
    const heart = pageWords(keptOcrPage(project)).find((w) => w.correction?.from === 'cour');
    expect(heart).toMatchObject({ text: 'cœur', correction: { reason: 'reread', change: 'cour→cœur (bitonal page)', language: 'fra' } });
    expect(readFileSync(result.outputs[0].path, 'utf8')).toContain('du cœur à');
  });

  it('reads each word image on its own: what it reads does not depend on the others read with it', async () => {
    const [premier, octobre] = await Promise.all(
      ['premier', 'octobre'].map(async (text) => writePage(dir, `${text}.png`, await renderTextPage(text, { dpi: 300, widthMm: 30 }))),
    );
    const alone = await tesseract.readWords!([premier], ['fra']);
    const among = await tesseract.readWords!([octobre, premier, octobre], ['fra']);
    const texts = (pages: OcrPage[]): string[] =>
      pages.map((p) =>
        pageWords(p)
          .map((w) => w.text)
          .join(' '),
      );
    expect(texts(alone)).toEqual(['premier']);
    expect(texts(among)).toEqual(['octobre', 'premier', 'octobre']);
  });
});
