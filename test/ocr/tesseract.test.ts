import dns from 'node:dns';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTesseractEngine, ocrPageText, type OcrInput, type TesseractEngine } from '../../src/ocr/index.js';
import { type OcrPage } from '../../src/project/index.js';
import { cer } from './cer.js';
import { ENGLISH, renderTextPage, toG4Tiff, writePage, writeTurnedPage, type TextPage } from './pages.js';

let dir: string;
let engine: TesseractEngine;
let page300: TextPage;
let page150: TextPage;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quire-ocr-'));
  engine = createTesseractEngine({ workers: 2 });
  page300 = await renderTextPage(ENGLISH);
  page150 = await renderTextPage(ENGLISH, { dpi: 150 });
});

afterAll(async () => {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

function words(page: OcrPage) {
  return page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words)));
}

/** Every box lies on the page, and the first word sits where the text was drawn. */
function expectBoxesWhereDrawn(result: OcrPage, drawn: TextPage): void {
  expect(result.width).toBe(drawn.width);
  expect(result.height).toBe(drawn.height);
  for (const w of words(result)) {
    expect(w.box.x0).toBeGreaterThanOrEqual(0);
    expect(w.box.y0).toBeGreaterThanOrEqual(0);
    expect(w.box.x1).toBeLessThanOrEqual(drawn.width);
    expect(w.box.y1).toBeLessThanOrEqual(drawn.height);
    expect(w.box.x1).toBeGreaterThan(w.box.x0);
    expect(w.box.y1).toBeGreaterThan(w.box.y0);
    expect(w.confidence).toBeGreaterThan(50);
  }
  const firstLine = result.blocks[0].paragraphs[0].lines[0];
  const first = firstLine.words[0];
  const em = drawn.fontPx;
  expect(first.text).toBe('Reading');
  expect(Math.abs(first.box.x0 - drawn.x)).toBeLessThan(0.2 * em);
  // The capital R rises about 0.73 em above the baseline; the g descends below it.
  expect(Math.abs(first.box.y0 - (drawn.baseline - 0.73 * em))).toBeLessThan(0.15 * em);
  expect(first.box.y1).toBeGreaterThan(drawn.baseline);
  expect(Math.abs((firstLine.baseline?.y0 ?? 0) - drawn.baseline)).toBeLessThan(0.1 * em);
}

describe('the tesseract engine', () => {
  it('reads a clean 300-dpi page (PNG) almost without error, boxes where the words are', async () => {
    const input = await writePage(dir, 'english-300.png', page300);
    const result = await engine.recognize(input, ['eng']);
    expect(cer(page300.lines.join('\n'), ocrPageText(result))).toBeLessThan(0.02);
    expect(result).toMatchObject({ engine: 'tesseract', languages: ['eng'], dpi: 300 });
    expectBoxesWhereDrawn(result, page300);
  });

  it('reads the pipeline’s bitonal G4 TIFF pages', async () => {
    const input = await writePage(dir, 'english-300.tif', page300, await toG4Tiff(page300));
    const result = await engine.recognize(input, ['eng']);
    expect(cer(page300.lines.join('\n'), ocrPageText(result))).toBeLessThan(0.02);
    expectBoxesWhereDrawn(result, page300);
  });

  it('tells an upside-down page from an upright one with the legacy orientation model, in a worker of its own', async () => {
    const page = await renderTextPage(`${ENGLISH} ${ENGLISH} ${ENGLISH}`);
    expect(await engine.detectOrientation!(await writePage(dir, 'upright.png', page), {})).toMatchObject({ rotate: 0 });
    expect(await engine.detectOrientation!(await writeTurnedPage(dir, 'upside-down.png', page, 180), {})).toMatchObject({ rotate: 180 });
  });

  it('reads a 150-dpi page (upsampled for tesseract) and gives boxes in the page’s own pixels', async () => {
    const input = await writePage(dir, 'english-150.png', page150);
    const result = await engine.recognize(input, ['eng']);
    expect(cer(page150.lines.join('\n'), ocrPageText(result))).toBeLessThan(0.02);
    expect(result.dpi).toBe(150);
    expectBoxesWhereDrawn(result, page150);
  });

  it('reads pages in parallel on at most two warm workers, reused for the next batch', async () => {
    const inputs = await Promise.all([1, 2, 3, 4].map((i) => writePage(dir, `parallel-${i}.png`, page300)));
    const batch = async () => {
      const results = await Promise.all(inputs.map((input) => engine.recognize(input, ['eng'])));
      expect(results.every((r) => cer(page300.lines.join('\n'), ocrPageText(r)) < 0.02)).toBe(true);
    };
    await batch();
    expect(engine.stats()).toEqual({ created: 2, reinitialised: 0, alive: 2 });
    await batch();
    expect(engine.stats()).toEqual({ created: 2, reinitialised: 0, alive: 2 });
  });

  it('an idle warm worker does not keep a finished process alive, a working one does', async () => {
    const ports = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    const idle = ports();
    const own = createTesseractEngine({ workers: 1 });
    try {
      const input = await writePage(dir, 'alive.png', page300);
      const working = own.recognize(input, ['eng']);
      // The worker holds a port while it reads (waited for: a loaded machine may take a while to start it).
      await vi.waitFor(() => expect(ports()).toBeGreaterThan(idle), { timeout: 30_000, interval: 5 });
      await working;
      expect(own.stats().alive).toBe(1);
      expect(ports()).toBe(idle);
    } finally {
      await own.close();
    }
  });

  it('refuses a language that is not installed, listing those that are', async () => {
    const input: OcrInput = { file: join(dir, 'english-300.png'), width: page300.width, height: page300.height, dpi: 300 };
    await expect(engine.recognize(input, ['rus'])).rejects.toMatchObject({
      code: 'usage',
      message: 'The OCR language rus is not installed; installed languages: deu, ell, eng, fra, ita, lat, por, spa.',
    });
    await expect(engine.recognize(input, [])).rejects.toMatchObject({ code: 'usage' });
  });

  it('says which page image it could not read', async () => {
    const file = join(dir, 'broken.png');
    await writeFile(file, 'not an image');
    await expect(engine.recognize({ file, width: 100, height: 100, dpi: 300 }, ['eng'])).rejects.toMatchObject({
      code: 'bad_image',
      message: expect.stringContaining('broken.png'),
    });
  });

  it('gives up on a worker that does not start in time instead of waiting forever', async () => {
    const impatient = createTesseractEngine({ workers: 1, startTimeoutMs: 1 });
    const input = await writePage(dir, 'impatient.png', page300);
    await expect(impatient.recognize(input, ['eng'])).rejects.toMatchObject({ code: 'internal', message: expect.stringMatching(/did not start in time/) });
    await impatient.close();
  });
});

describe('offline', () => {
  it('runs OCR with every way out to the network stubbed to throw, never calling them', async () => {
    const refuse = () => {
      throw new Error('network access attempted');
    };
    const stubs = [
      vi.spyOn(globalThis, 'fetch').mockImplementation(refuse),
      vi.spyOn(http, 'request').mockImplementation(refuse),
      vi.spyOn(http, 'get').mockImplementation(refuse),
      vi.spyOn(https, 'request').mockImplementation(refuse),
      vi.spyOn(https, 'get').mockImplementation(refuse),
      vi.spyOn(net, 'connect').mockImplementation(refuse),
      vi.spyOn(net, 'createConnection').mockImplementation(refuse),
      vi.spyOn(dns, 'lookup').mockImplementation(refuse),
    ];
    // A fresh engine: worker start-up and language loading happen under the stubs too.
    const offline = createTesseractEngine({ workers: 1 });
    try {
      const input = await writePage(dir, 'offline.png', page300);
      const result = await offline.recognize(input, ['eng', 'fra']);
      expect(cer(page300.lines.join('\n'), ocrPageText(result))).toBeLessThan(0.02);
      for (const stub of stubs) expect(stub).not.toHaveBeenCalled();
    } finally {
      await offline.close();
      for (const stub of stubs) stub.mockRestore();
    }
  });
});
