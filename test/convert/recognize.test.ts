/**
 * What recognition does around the engine, with a scripted engine standing in for tesseract: the grey reading
 * image goes to OCR, a page read as nonsense is turned and read again, the correction is recorded in the project
 * and `--no-correct` undoes it on the project.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert, openDocument, processPages, recognize, writeExports } from '../../src/convert/index.js';
import { decodeGray, type GrayImage } from '../../src/imaging/index.js';
import { registerOcrEngine, type OcrEngine, type OcrInput } from '../../src/ocr/index.js';
import type { OcrPage, OcrWord, ProjectPage } from '../../src/project/index.js';
import { FRENCH, renderTextPage } from '../ocr/pages.js';

let dir: string;
let input: string;
const seen: OcrInput[] = [];
/** Pages (by image file) the engine reads as nonsense until they are turned. */
const upsideDown = new Set<string>();

function line(texts: string[], confidence: number): OcrPage['blocks'][number] {
  const words: OcrWord[] = texts.map((text, i) => ({ text, box: { x0: 100 + 120 * i, y0: 100, x1: 200 + 120 * i, y1: 130 }, confidence }));
  const box = { x0: 100, y0: 100, x1: 100 + 120 * texts.length, y1: 130 };
  return { box, paragraphs: [{ box, lines: [{ box, words }] }] };
}

/** Reads every page as the same French line, misread the way camera pages are; nonsense while a page is upside down. */
const scripted: OcrEngine = {
  name: 'scripted-fr',
  display: 'Scripted',
  description: 'A stand-in engine for tests.',
  async available() {
    return { ok: true };
  },
  languages: () => ['fra'],
  async recognize(page, languages) {
    seen.push(page);
    const wrong = [...upsideDown].some((file) => page.file.endsWith(file));
    const texts = wrong
      ? 'ʇıɐʌɐ,l ǝʇuɐɥɔ ɐl ǝp ǝsǝɥʇuǝɹɐd ǝʇɥʎɯ sǝʇıǝp'.split(' ').concat(Array(10).fill('ʇı'))
      : ['J’avangais', 'clle', 'disait', 'ct', 'riait'];
    return { width: page.width, height: page.height, dpi: page.dpi, engine: 'scripted-fr', languages, blocks: [line(texts, wrong ? 30 : 85)] };
  },
  async detectOrientation(page) {
    const wrong = [...upsideDown].find((file) => page.file.endsWith(file));
    if (!wrong) return { rotate: 0, confidence: 12 };
    upsideDown.delete(wrong);
    return { rotate: 180, confidence: 14.5 };
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-recognize-'));
  input = join(dir, 'page.png');
  const page = await renderTextPage(FRENCH, { dpi: 300 });
  await sharp(page.png).withMetadata({ density: 300 }).png().toFile(input);
  registerOcrEngine(scripted);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function pixelsTurned(before: GrayImage, after: GrayImage): boolean {
  if (before.width !== after.width || before.height !== after.height) return false;
  let same = 0;
  for (let y = 0; y < before.height; y++) {
    for (let x = 0; x < before.width; x++)
      if (before.data[y * before.width + x] === after.data[(before.height - 1 - y) * before.width + (before.width - 1 - x)]) same++;
  }
  return same / (before.width * before.height) > 0.99;
}

describe('recognising a project', () => {
  it('reads the grey reading image, turns a page read as nonsense, and records the corrections in the project', async () => {
    const project = join(dir, 'project');
    const doc = await openDocument(input, { projectDir: project });
    try {
      await processPages(doc, { workers: 1 });
      const page = doc.manifest.pages[0];
      expect(page.kind).toBe('bitonal');
      expect(page.ocrImage).toMatch(/^pages\/.*\.ocr\.jpg$/);
      const before = await decodeGray(join(project, page.file));
      upsideDown.add(page.ocrImage!);
      // As the pipeline records it for a blurred capture: the reading image is to be read smaller.
      page.decisions.ocrScale = 0.6;
      await recognize(doc, 'scripted-fr', { ocrLang: 'fra' });

      // OCR read the reading image, twice: once as it was, once turned; both times at the scale decided.
      expect(seen.filter((s) => s.file.endsWith(page.ocrImage!)).map((s) => s.readScale)).toEqual([0.6, 0.6]);
      expect(page.decisions.orientation).toEqual({ rotated: 180, confidence: 14.5 });
      expect(pixelsTurned(before, await decodeGray(join(project, page.file)))).toBe(true);

      const result = JSON.parse(readFileSync(join(project, page.ocr!), 'utf8')) as OcrPage;
      const read = result.blocks[0].paragraphs[0].lines[0].words;
      expect(read.map((w) => w.text)).toEqual(['J’avançais', 'elle', 'disait', 'et', 'riait']);
      expect(read[0].correction).toEqual({ from: 'J’avangais', reason: 'known-confusion', change: 'g→ç', language: 'fra' });
      expect(doc.manifest.ocr).toEqual({
        engine: 'scripted-fr',
        languages: ['fra'],
        correction: { enabled: true, checked: ['fra'], unchecked: [], corrected: 3, unknown: 0 },
      });
      const [md] = await writeExports(doc, [{ format: 'md', options: {} }], join(dir, 'out'));
      expect(readFileSync(md.path, 'utf8')).toContain('J’avançais elle disait et riait');
    } finally {
      await doc.close();
    }

    // Converted again with --no-correct, the project's words go back to what the engine read.
    const again = await convert(project, { exports: 'md', correct: false, outDir: join(dir, 'raw') });
    expect(again.ocr?.correction).toMatchObject({ enabled: false, corrected: 0 });
    expect(readFileSync(join(dir, 'raw', again.outputs[0].path.split('/').pop()!), 'utf8')).toContain('J’avangais clle disait ct riait');
  });

  it('moves the words of a page set on the document’s page size with it', async () => {
    // Two scans of one page size, one with a short last line of text: its crop is smaller, and it is set, centred,
    // on the other's size after it was read.
    const [short, full] = [join(dir, 'short.png'), join(dir, 'full.png')];
    await sharp((await renderTextPage('Fin du chapitre.', { dpi: 300, heightMm: 80 })).png)
      .withMetadata({ density: 300 })
      .png()
      .toFile(short);
    await sharp((await renderTextPage(`${FRENCH} ${FRENCH}`, { dpi: 300, heightMm: 80 })).png)
      .withMetadata({ density: 300 })
      .png()
      .toFile(full);
    const project = join(dir, 'sizes');
    await convert([short, full], { exports: 'pdf', ocr: 'scripted-fr', ocrLang: 'fra', keepProject: project, outDir: join(dir, 'sizes-out') });
    const manifest = JSON.parse(readFileSync(join(project, 'project.json'), 'utf8')) as { pages: ProjectPage[] };
    const [narrow, broad] = manifest.pages;
    expect([narrow.width, narrow.height]).toEqual([broad.width, broad.height]);
    const x = narrow.decisions.pageSize!.x;
    expect(x).toBeGreaterThan(0);
    const words = (p: ProjectPage) => (JSON.parse(readFileSync(join(project, p.ocr!), 'utf8')) as OcrPage).blocks[0].paragraphs[0].lines[0].words;
    // The scripted engine puts its first word at x 100 of the page it reads.
    expect(words(narrow)[0].box.x0).toBe(100 + x);
    expect(words(broad)[0].box.x0).toBe(100);
    expect((JSON.parse(readFileSync(join(project, narrow.ocr!), 'utf8')) as OcrPage).width).toBe(narrow.width);
  });

  it('measures each page’s ink for a time left only when the caller shows one', async () => {
    const project = join(dir, 'timed');
    const doc = await openDocument(input, { projectDir: project });
    try {
      await processPages(doc, { workers: 1 });
      const types: string[] = [];
      const works = async (timeLeft: boolean): Promise<Array<number | null>> => {
        const heard: Array<number | null> = [];
        await recognize(doc, 'scripted-fr', {
          ocrLang: 'fra',
          timeLeft,
          onProgress: (e) => {
            types.push(e.type);
            if (e.type === 'ocr') heard.push(...(e.read?.works ?? []));
          },
        });
        return heard;
      };
      // A progress bar that counts pages (the CLI) gets the count, and no page is decoded to weigh it.
      expect(await works(false)).toEqual([null]);
      // The web app's time left: the page's ink, in thousands of pixels (a page of text: some, far from all).
      const [ink] = await works(true);
      const page = doc.manifest.pages[0];
      expect(ink).toBeGreaterThan(1);
      expect(ink).toBeLessThan((page.width * page.height) / 1000 / 4);
      // Once the page is read, the correction's turn is told: no page count measures it.
      expect(types.slice(-2)).toEqual(['ocr', 'ocr-check']);
    } finally {
      await doc.close();
    }
  });

  it('tells when the document’s languages are being found, and which were', async () => {
    const project = join(dir, 'languages');
    const doc = await openDocument(input, { projectDir: project });
    try {
      await processPages(doc, { workers: 1 });
      const heard: Array<string[] | undefined> = [];
      await recognize(doc, 'scripted-fr', {
        ocrLang: 'auto',
        onProgress: (e) => {
          if (e.type === 'ocr-languages') heard.push(e.languages);
        },
      });
      expect(heard).toEqual([undefined, doc.manifest.ocr!.languages]);
    } finally {
      await doc.close();
    }
  });

  it('keeps pages as they are with --rotate-pages off', async () => {
    const project = join(dir, 'kept');
    upsideDown.add('0001-single.ocr.jpg');
    const result = await convert(input, {
      exports: 'pdf',
      ocr: 'scripted-fr',
      ocrLang: 'fra',
      keepProject: project,
      rotatePages: false,
      outDir: join(dir, 'kept-out'),
    });
    expect(result.ocr?.engine).toBe('scripted-fr');
    const manifest = JSON.parse(readFileSync(join(project, 'project.json'), 'utf8'));
    expect(manifest.pages[0].decisions.orientation).toBeUndefined();
    // Never asked: the page stays as it came, its text as read.
    expect(upsideDown.has('0001-single.ocr.jpg')).toBe(true);
    expect(existsSync(join(project, manifest.pages[0].ocrImage))).toBe(true);
  });
});
