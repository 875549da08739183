/**
 * A page plainly in another language than the document's is read again in its own, and the reader is told which
 * page and which language (the web app's OCR card says "page 5 is in French: read a second time").
 */
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src/convert/index.js';
import { readPage } from '../../src/convert/recognize-pages.js';
import type { OcrEngine } from '../../src/ocr/index.js';
import type { OcrPage, ProjectPage } from '../../src/project/index.js';
import { FRENCH } from '../ocr/pages.js';

/** Reads every page as French prose, whatever it is asked to read it in; says which languages it was asked for. */
function frenchReader(asked: string[][]): OcrEngine {
  const words = `${FRENCH} ${FRENCH} ${FRENCH}`.split(' ');
  return {
    name: 'scripted-bilingual',
    display: 'Scripted',
    description: 'A stand-in engine for tests.',
    async available() {
      return { ok: true };
    },
    languages: () => ['eng', 'fra'],
    async recognize(page, languages): Promise<OcrPage> {
      asked.push(languages);
      const box = { x0: 0, y0: 0, x1: 100, y1: 20 };
      const line = { box, words: words.map((text) => ({ text, box, confidence: 90 })) };
      return {
        width: page.width,
        height: page.height,
        dpi: page.dpi,
        engine: 'scripted-bilingual',
        languages,
        blocks: [{ box, paragraphs: [{ box, lines: [line] }] }],
      };
    },
  };
}

const page = (index: number): ProjectPage =>
  ({ index, file: `pages/${index}.tif`, kind: 'image', width: 1000, height: 1400, dpi: 300, decisions: {} }) as unknown as ProjectPage;

describe('a page in its own language', () => {
  it('is read again in it, and the reader is told which page and which language', async () => {
    const asked: string[][] = [];
    const events: ProgressEvent[] = [];
    const detected = { used: new Set<string>() };
    let again = 0;
    const result = await readPage(frenchReader(asked), '/nowhere', page(5), ['eng'], { onProgress: (e) => events.push(e) }, detected, () => again++);
    expect(asked).toEqual([['eng'], ['fra']]);
    expect(result.languages).toEqual(['fra']);
    expect(again).toBe(1);
    expect(events).toEqual([{ type: 'ocr-page-language', page: 5, languages: ['fra'] }]);
    expect([...detected.used]).toEqual(['fra']);
  });

  it('is not read again, nor told of, when it is in the document’s language', async () => {
    const asked: string[][] = [];
    const events: ProgressEvent[] = [];
    await readPage(frenchReader(asked), '/nowhere', page(2), ['fra'], { onProgress: (e) => events.push(e) }, { used: new Set<string>() });
    expect(asked).toEqual([['fra']]);
    expect(events).toEqual([]);
  });
});
