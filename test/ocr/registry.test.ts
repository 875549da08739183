import { describe, expect, it } from 'vitest';
import {
  createNoneEngine,
  createOcrRegistry,
  describeOcrEngines,
  getOcrEngine,
  languageName,
  listInstalledLanguages,
  listOcrEngines,
  registerOcrEngine,
  type OcrEngine,
} from '../../src/ocr/index.js';

function testEngine(name: string, available: Awaited<ReturnType<OcrEngine['available']>> = { ok: true }): OcrEngine {
  return {
    name,
    display: `Test ${name}`,
    description: 'An engine for tests.',
    available: async () => available,
    languages: () => ['eng'],
    recognize: async (page, languages) => ({ width: page.width, height: page.height, dpi: page.dpi, engine: name, languages, blocks: [] }),
  };
}

describe('OCR engine registry', () => {
  it('has the built-in engines, registered like any other', () => {
    expect(listOcrEngines().map((e) => e.name)).toEqual(['tesseract', 'tesseract-cli', 'none', 'remoteocr']);
    expect(getOcrEngine('tesseract').display).toMatch(/Tesseract/);
  });

  it('adds a plugin engine beside the built-ins and finds it by name', () => {
    registerOcrEngine(testEngine('registry-test'));
    expect(listOcrEngines().map((e) => e.name)).toEqual(['tesseract', 'tesseract-cli', 'none', 'remoteocr', 'registry-test']);
    expect(getOcrEngine('registry-test').display).toBe('Test registry-test');
  });

  it('refuses a taken or malformed name, and an unknown one, listing the choices', () => {
    const registry = createOcrRegistry();
    registry.register(testEngine('one'));
    expect(() => registry.register(testEngine('one'))).toThrow(/already registered/);
    expect(() => registry.register(testEngine('Bad Name'))).toThrow(/not valid/);
    expect(() => registry.get('two')).toThrow('Unknown OCR engine "two"; choose one of: auto, one.');
    expect(registry.find('two')).toBeUndefined();
  });

  it('describes engines for `quire list ocr`, with why one cannot run', async () => {
    registerOcrEngine(testEngine('registry-offline', { ok: false, reason: 'The server is not configured.' }));
    const described = await describeOcrEngines();
    const tesseract = described.find((d) => d.name === 'tesseract');
    expect(tesseract).toMatchObject({ available: true, languages: ['deu', 'ell', 'eng', 'fra', 'ita', 'lat', 'por', 'spa'] });
    expect(tesseract?.reason).toBeUndefined();
    expect(described.find((d) => d.name === 'registry-offline')).toMatchObject({ available: false, reason: 'The server is not configured.' });
  });
});

describe('installed languages', () => {
  it('lists the language packages installed with npm, with names for people', () => {
    const installed = listInstalledLanguages();
    expect(installed).toEqual(['deu', 'ell', 'eng', 'fra', 'ita', 'lat', 'por', 'spa']);
    expect(installed.map(languageName)).toContain('Greek');
    expect(languageName('xyz')).toBe('xyz');
  });
});

describe('the none engine', () => {
  it('returns the page with its size and no text', async () => {
    const page = await createNoneEngine().recognize({ file: '/nowhere.tif', width: 1240, height: 1748, dpi: 300 }, ['fra']);
    expect(page).toEqual({ width: 1240, height: 1748, dpi: 300, engine: 'none', languages: ['fra'], blocks: [] });
  });
});
