import { describe, expect, it } from 'vitest';
import { decodeGray } from '../../src/imaging/index.js';
import { caseCandidates, correctCase, undoCorrections } from '../../src/ocr/index.js';
import type { OcrPage } from '../../src/project/index.js';
import { readLine, renderTextPage } from './pages.js';

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
