import { describe, expect, it } from 'vitest';
import { decodeGray } from '../../../src/imaging/index.js';
import { undoCorrections } from '../../../src/ocr/correct/correct.js';
import { caseCandidates, correctCase, correctCaseByWidth } from '../../../src/ocr/correct/letter-case.js';
import type { OcrPage } from '../../../src/project/index.js';
import { readLine, renderTextPage } from '../pages.js';

const texts = (page: OcrPage): string[] => page.blocks[0].paragraphs[0].lines[0].words.map((w) => w.text);
/** The small spellings a dictionary knows, for these lines. */
const known = (word: string): boolean => ['ou', 'vingt', 'constance', 'vous', 'sur', 'suivant', 'king', 'kind'].includes(word);

/** One line set in DejaVu Serif at 300 dpi, and what the engine read of it. */
async function readAs(text: string, read: string): Promise<{ page: OcrPage; image: Awaited<ReturnType<typeof decodeGray>> }> {
  const rendered = await renderTextPage(text, { widthMm: 200 });
  expect(rendered.lines).toHaveLength(1);
  const image = await decodeGray(rendered.png);
  return { page: readLine(image, rendered.fontPx, read), image };
}

describe('capitals read for small letters', () => {
  it('sets small a first letter no taller than the others, in the middle of a sentence', async () => {
    const { page, image } = await readAs('à dix-huit ou vingt ans, « vous opposer', 'à dix-huit Ou Vingt ans, « Vous opposer');
    expect(correctCase(page, image, known)).toBe(3);
    expect(texts(page)).toEqual(['à', 'dix-huit', 'ou', 'vingt', 'ans,', '«', 'vous', 'opposer']);
    expect(page.blocks[0].paragraphs[0].lines[0].words[3].correction).toEqual({ from: 'Vingt', reason: 'letter-case', change: 'V→v' });
    // --no-correct puts back what the engine read.
    expect(texts(undoCorrections(page))).toContain('Vingt');

    // A small k has a capital's stem: its arms tell it, ending at the x-height. A capital K's reach its top.
    const k = await readAs('there were a king with a Kind heart', 'there were a King with a Kind heart');
    expect(correctCase(k.page, k.image, known)).toBe(1);
    expect(texts(k.page)).toEqual(['there', 'were', 'a', 'king', 'with', 'a', 'Kind', 'heart']);
  });

  it('keeps a capital the page prints: taller than the letters after it, or starting a sentence', async () => {
    const { page, image } = await readAs('la politique de Constance. Sur le fond, Vous', 'la politique de Constance. Sur le fond, Vous');
    // "Sur" starts a sentence: not even looked at. "Constance" and "Vous" are, and their ink is a capital.
    expect(caseCandidates(page, known).map((w) => w.text)).toEqual(['Constance.', 'Vous']);
    expect(correctCase(page, image, known)).toBe(0);
    expect(texts(page)).toEqual(['la', 'politique', 'de', 'Constance.', 'Sur', 'le', 'fond,', 'Vous']);
    // A capital whose small spelling no dictionary knows is a name: not looked at.
    expect(caseCandidates(page, () => false)).toEqual([]);
  });
});

describe('a small l read as a capital', () => {
  /** Paragraphs of lines set in DejaVu Serif, each word's box its ink, as the engine read them (`read` per line). */
  async function paragraphs(...paras: Array<Array<[string, string]>>): Promise<OcrPage> {
    const box = { x0: 0, y0: 0, x1: 2400, y1: 100 };
    const made = [];
    for (const lines of paras) {
      const read = [];
      for (const [text, as] of lines) {
        const rendered = await renderTextPage(text, { widthMm: 200 });
        read.push(readLine(await decodeGray(rendered.png), rendered.fontPx, as).blocks[0].paragraphs[0].lines[0]);
      }
      made.push({ box, lines: read });
    }
    return { width: 2400, height: 3000, dpi: 300, engine: 'tesseract', languages: ['fra'], blocks: [{ box, paragraphs: made }] };
  }
  const words = (page: OcrPage): string[] => page.blocks[0].paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words.map((w) => w.text)));
  const article = (word: string): boolean => ['la', 'le'].includes(word);

  it('sets small a mid-sentence "La" as narrow as the page’s "la", and keeps a capital as wide as one', async () => {
    const page = await paragraphs([
      ['avait de la sagesse et de la beauté, sur le', 'avait de La sagesse et de la beauté, sur le'],
      ['fond où la fable de La Fontaine', 'fond où La fable de La Fontaine'],
      // Before a capital: a name or a title, left even where its L is as narrow as a small one.
      ['dans la Nouvelle', 'dans La Nouvelle'],
    ]);
    expect(correctCaseByWidth(page, article)).toBe(2);
    expect(words(page)).toEqual([
      'avait',
      'de',
      'la',
      'sagesse',
      'et',
      'de',
      'la',
      'beauté,',
      'sur',
      'le',
      'fond',
      'où',
      'la',
      'fable',
      'de',
      'La',
      'Fontaine',
      'dans',
      'La',
      'Nouvelle',
    ]);
    expect(page.blocks[0].paragraphs[0].lines[0].words[2].correction).toEqual({ from: 'La', reason: 'letter-case', change: 'L→l' });
  });

  it('measures against a capital starting a sentence when no "la" was read small, and leaves a line alone as it is', async () => {
    const page = await paragraphs(
      [
        // "La" and "le" are as wide: the capital that starts the sentence measures "Le".
        ['La nuit tombe sur le port', 'La nuit tombe sur Le port'],
        ['et tout dort.', 'et tout dort.'],
      ],
      // A heading: a line alone, perhaps in another face than the text.
      [['Puis le sommeil', 'Puis Le sommeil']],
      [
        ['nous dormons tous', 'nous dormons tous'],
        ['sans bruit.', 'sans bruit.'],
      ],
    );
    expect(correctCaseByWidth(page, article)).toBe(1);
    expect(words(page).slice(0, 9)).toEqual(['La', 'nuit', 'tombe', 'sur', 'le', 'port', 'et', 'tout', 'dort.']);
    expect(words(page)).toContain('Le');
  });
});
