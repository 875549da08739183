/**
 * Note calls the engine dropped, found in the ink: an engine reads the page with the real tesseract program and then
 * loses the raised figure after a word, as camera pages often do ("vérité³" read "vérité"); the correction step finds
 * the figure standing clear above the word's baseline, has tesseract read it alone, and keeps its digits on the word
 * (the text stays as read) for the structure step to link the note there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from '../../src/convert/index.js';
import { createTesseractCliEngine, registerOcrEngine, type OcrEngine } from '../../src/ocr/index.js';
import { pageWords } from '../../src/project/index.js';
import { keptOcrPage } from '../helpers.js';
import { renderTextPage } from '../ocr/pages.js';

const TEXT =
  'Il enjoint ses lecteurs de ne pas prendre l’audace de ces hommes pour la vérité⁷ et garde la tradition unanime, sans rien changer aux mots des anciens.';

const NOTE = '7 Syn 14, 3, p. 241, l. 28.';

let dir: string;
const tesseract = createTesseractCliEngine({ workers: 1 });

const dropping: OcrEngine = {
  name: 'call-dropping-tesseract',
  display: 'Call-dropping tesseract',
  description: 'tesseract-cli, with the raised figure after "vérité" dropped after the fact.',
  available: () => tesseract.available(),
  languages: () => tesseract.languages(),
  async recognize(page, languages) {
    const read = await tesseract.recognize(page, languages);
    for (const word of pageWords(read)) if (word.text.startsWith('vérit')) word.text = 'vérité';
    return { ...read, engine: 'call-dropping-tesseract' };
  },
  readWords: (images, languages) => tesseract.readWords!(images, languages),
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-raised-'));
  // The text at the top, its note at the foot of the page: calls are looked for on pages with notes.
  const page = await renderTextPage(TEXT, { dpi: 300, heightMm: 120 });
  const note = await renderTextPage(NOTE, { dpi: 300, fontPt: 9 });
  await sharp(page.png)
    .composite([{ input: note.png, top: page.height - note.height, left: 0 }])
    .withMetadata({ density: 300 })
    .png()
    .toFile(join(dir, 'page.png'));
  registerOcrEngine(dropping);
});
afterAll(async () => {
  await tesseract.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('note calls found in the ink', () => {
  it('keeps the digits of a raised figure the engine dropped on its word, text unchanged, and nothing on the other words', async () => {
    const project = join(dir, 'project');
    await convert(join(dir, 'page.png'), { exports: 'md', ocr: 'call-dropping-tesseract', ocrLang: 'fra', keepProject: project, outDir: join(dir, 'out') });
    const words = pageWords(keptOcrPage(project));
    expect(words.find((w) => w.text === 'vérité')).toMatchObject({ text: 'vérité', raised: '7' });
    // Accents, apostrophes and the letters' own ascenders are no calls.
    expect(words.filter((w) => w.raised !== undefined).map((w) => w.text)).toEqual(['vérité']);

    // --no-correct: the page as the engine read it, without what the correction step found.
    await convert(project, { exports: 'md', correct: false, outDir: join(dir, 'out2') });
    expect(pageWords(keptOcrPage(project)).some((w) => w.raised !== undefined)).toBe(false);
  });
});
