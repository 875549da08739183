import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  closeOcrEngines,
  createTesseractEngine,
  detectDocumentLanguages,
  getOcrEngine,
  ocrPageText,
  parseOcrSpec,
  recognizeAuto,
  resolveLanguages,
  startLanguageSample,
  type OcrEngine,
  type OcrInput,
  type TesseractEngine,
} from '../../src/ocr/index.js';
import { cer } from './cer.js';
import { ENGLISH, FRENCH, GREEK, renderTextPage, writePage } from './pages.js';

const FRENCH_WITH_GREEK =
  "Athanase écrit dans sa lettre que le Verbe s'est fait homme, et il cite l'évangile : « λόγος σὰρξ ἐγένετο " +
  'καὶ ἐσκήνωσεν ἐν ἡμῖν ». Cette formule revient souvent dans ses traités contre les ariens.';

let dir: string;
let engine: TesseractEngine;
const pages: Record<string, { input: OcrInput; text: string }> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quire-ocr-lang-'));
  engine = createTesseractEngine({ workers: 2 });
  for (const [name, text] of Object.entries({ ENGLISH, FRENCH, GREEK, FRENCH_WITH_GREEK })) {
    const page = await renderTextPage(text);
    pages[name] = { input: await writePage(dir, `${name}.png`, page), text: page.lines.join('\n') };
  }
});

afterAll(async () => {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

describe('languages', () => {
  it('reads French with its accents and Greek in its own letters', async () => {
    const french = await engine.recognize(pages.FRENCH.input, ['fra']);
    expect(cer(pages.FRENCH.text, ocrPageText(french))).toBeLessThan(0.02);
    expect(ocrPageText(french)).toContain('pêcheur');
    const greek = await engine.recognize(pages.GREEK.input, ['ell']);
    expect(cer(pages.GREEK.text, ocrPageText(greek))).toBeLessThan(0.02);
    expect(greek.languages).toEqual(['ell']);
  });

  it('detects each document’s languages from its first pages (language auto)', async () => {
    const spec = parseOcrSpec('auto');
    expect(await resolveLanguages(engine, [pages.FRENCH.input], spec)).toEqual(['fra']);
    expect(await resolveLanguages(engine, [pages.GREEK.input], spec)).toEqual(['ell']);
    expect(await resolveLanguages(engine, [pages.ENGLISH.input, pages.ENGLISH.input], spec)).toEqual(['eng']);
    // Languages given by the user are used as they are, without a first pass.
    expect(await resolveLanguages(engine, [pages.GREEK.input], parseOcrSpec('tesseract:lang=fr+la'))).toEqual(['fra', 'lat']);
  });

  it('finds a Greek quotation in a French page and reads both scripts on the second pass', async () => {
    const detection = await detectDocumentLanguages(engine, [pages.FRENCH_WITH_GREEK.input]);
    expect(detection.firstGuess).toEqual(['eng', 'ell']);
    expect(detection.languages).toEqual(['fra', 'ell']);
    const page = await engine.recognize(pages.FRENCH_WITH_GREEK.input, detection.languages);
    const text = ocrPageText(page);
    expect(text).toContain('évangile');
    expect(text).toContain('λόγος');
    expect(cer(pages.FRENCH_WITH_GREEK.text, text)).toBeLessThan(0.02);
  });

  it("reads a sample of the pages' lines to detect their languages, never the whole pages twice", async () => {
    const long = await writePage(dir, 'long.png', await renderTextPage(`${FRENCH} `.repeat(12)));
    const read: OcrInput[] = [];
    const counting: OcrEngine = {
      name: 'counting',
      display: 'counting',
      description: 'tesseract.js, recording what it is given',
      available: () => engine.available(),
      languages: () => engine.languages(),
      recognize: (page, languages, options) => {
        read.push(page);
        return engine.recognize(page, languages, options);
      },
    };
    const detection = await detectDocumentLanguages(counting, [long, long, long]);
    expect(detection.languages).toEqual(['fra']);
    // Two readings side by side: the first page's lines, and the next pages' lines on one sheet. Each is a strip of
    // a few lines, much smaller than the page it was cut from.
    expect(read).toHaveLength(2);
    for (const strip of read) expect(strip.height).toBeLessThan(long.height / 2);
  });

  it('removes the sample strip of a sample never decided, when its read fails', async () => {
    // Its own temporary folder: other runs on the machine make quire-sample- folders too.
    const tmp = await mkdtemp(join(tmpdir(), 'quire-sample-tmp-'));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const strips: boolean[] = [];
      const failing: OcrEngine = {
        name: 'failing',
        display: 'failing',
        description: 'fails every reading, saying whether the strip it was given exists',
        available: () => engine.available(),
        languages: () => engine.languages(),
        recognize: async (page) => {
          strips.push(existsSync(page.file));
          throw new Error('no reading today');
        },
      };
      // The first page's lines are read as soon as it is offered; decide() is never called (as when the conversion
      // fails on a later page).
      startLanguageSample(failing).add(pages.FRENCH.input);
      await vi.waitFor(() => expect(strips).toEqual([true]), { timeout: 30_000 });
      await vi.waitFor(async () => expect(await readdir(tmp)).toEqual([]), { timeout: 30_000 });
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('recognises a single page with its language detected on the page', async () => {
    const page = await recognizeAuto(engine, pages.FRENCH.input);
    expect(page.languages).toEqual(['fra']);
    expect(ocrPageText(page)).toContain('pêcheur');
  });

  it('keeps its workers warm from one document to the next', async () => {
    const warm = createTesseractEngine({ workers: 2 });
    try {
      const document = (input: OcrInput, languages: string[]) => Promise.all([input, input, input].map((p) => warm.recognize(p, languages)));
      await document(pages.FRENCH.input, ['fra']);
      expect(warm.stats()).toEqual({ created: 2, reinitialised: 0, alive: 2 });
      await document(pages.FRENCH.input, ['fra']);
      expect(warm.stats()).toEqual({ created: 2, reinitialised: 0, alive: 2 });
      // Another language set re-initialises the warm workers rather than starting more.
      const greek = await document(pages.GREEK.input, ['ell']);
      expect(cer(pages.GREEK.text, ocrPageText(greek[0]))).toBeLessThan(0.02);
      expect(warm.stats().created).toBe(2);
      expect(warm.stats().reinitialised).toBeGreaterThanOrEqual(1);
    } finally {
      await warm.close();
    }
  });

  it('the registered engine is one warm pool for every caller, released by closeOcrEngines', async () => {
    const registered = getOcrEngine('tesseract') as TesseractEngine;
    expect(getOcrEngine(parseOcrSpec('auto').engine)).toBe(registered);
    await registered.recognize(pages.ENGLISH.input, ['eng']);
    expect(registered.stats().alive).toBe(1);
    await closeOcrEngines();
    expect(registered.stats().alive).toBe(0);
  });
});
