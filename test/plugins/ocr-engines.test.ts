// The tesseract-own-model OCR engine from the registry: installed with its sha256 checked, reading a page with a
// model the user put in its files folder (here Debian's English model under a name of the user's own), registered
// beside the built-in engines so that `--ocr tesseract-own-model` picks it.
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useOcrPlugin } from '../../src/convert/index.js';
import { getOcrEngine, parseOcrSpec } from '../../src/ocr/index.js';
import { defaultRegistry, findPagePlugin, installPlugin } from '../../src/plugins/index.js';
import { ENGLISH, renderTextPage, writePage } from '../ocr/pages.js';
import { cleanup, hostFor, makeAppData } from './helpers.js';

const DEBIAN_ENG = '/usr/share/tesseract-ocr/5/tessdata/eng.traineddata';

let appData: string;
beforeEach(() => {
  appData = makeAppData();
});
afterEach(() => cleanup(appData));

describe('the tesseract-own-model OCR engine from the registry', () => {
  it('reads a page with the model the user put in its files folder', async () => {
    expect(existsSync(DEBIAN_ENG)).toBe(true);
    const host = hostFor(appData);
    const installed = await installPlugin('tesseract-own-model', { ...host, fromFolder: false, registry: defaultRegistry() });
    expect(installed.kind).toBe('ocr');
    // Without a model it reads nothing, and says so.
    expect((await findPagePlugin('ocr', 'tesseract-own-model', host))?.descriptor?.languages).toEqual([]);
    copyFileSync(DEBIAN_ENG, join(appData, 'plugins', 'data', 'tesseract-own-model', 'files', 'my_english.traineddata'));
    expect((await findPagePlugin('ocr', 'tesseract-own-model', host))?.descriptor?.languages).toEqual(['my_english']);

    const warnings: string[] = [];
    await useOcrPlugin('tesseract-own-model:lang=my_english', host, (w) => warnings.push(w));
    const spec = parseOcrSpec('tesseract-own-model:lang=my_english');
    expect(spec).toMatchObject({ engine: 'tesseract-own-model', languages: ['my_english'] });
    const engine = getOcrEngine('tesseract-own-model');
    try {
      const page = await renderTextPage(ENGLISH);
      const input = await writePage(appData, 'page', page);
      const read = await engine.recognize(input, ['my_english']);
      expect(warnings).toEqual([]);
      const words = read.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words)));
      const truth = ENGLISH.split(/\s+/);
      const found = truth.filter((w) => words.some((r) => r.text === w)).length;
      expect(found / truth.length).toBeGreaterThan(0.9);
      expect(read).toMatchObject({ engine: 'tesseract-own-model', languages: ['my_english'], width: page.width, height: page.height });
      for (const w of words) {
        expect(w.box.x1).toBeLessThanOrEqual(page.width);
        expect(w.confidence).toBeGreaterThan(0);
      }
    } finally {
      await engine.close?.();
    }
  }, 60_000);
});
