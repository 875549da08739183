import { describe, expect, it } from 'vitest';
import { createGray } from '../../../src/imaging/index.js';
import { openCorrector } from '../../../src/ocr/correct/correct.js';
import { chooseReread, cutWord, wordsToReread } from '../../../src/ocr/correct/reread.js';
import type { OcrPage, OcrWord } from '../../../src/project/index.js';

function word(text: string, x0: number, y0: number, extra: Partial<OcrWord> = {}): OcrWord {
  return { text, box: { x0, y0, x1: x0 + 40, y1: y0 + 20 }, confidence: 80, ...extra };
}

function page(words: OcrWord[][], size = { width: 400, height: 300 }): OcrPage {
  const box = { x0: 0, y0: 0, x1: size.width, y1: size.height };
  return {
    ...size,
    dpi: 300,
    engine: 'tesseract-cli',
    languages: ['fra'],
    blocks: [{ box, paragraphs: [{ box, lines: words.map((ws) => ({ box: { x0: 0, y0: ws[0].box.y0 - 4, x1: size.width, y1: ws[0].box.y1 + 4 }, words: ws })) }] }],
  };
}

describe('words read again', () => {
  it('takes a close dictionary word from the second reading, keeping the first reading’s punctuation', async () => {
    const fra = await openCorrector(['fra', 'ell']);
    const known = (w: string): string | undefined => fra.known(w);
    expect(chooseReread('memier', ['premier'], known)).toEqual({ text: 'premier', change: 'memier→premier', language: 'fra' });
    expect(chooseReread('(conmais),', ['‘connais'], known)).toEqual({ text: '(connais),', change: 'conmais→connais', language: 'fra' });
    // A mark before the letters that opens nothing was part of the misreading: "&tobre" for "octobre".
    expect(chooseReread('&tobre', ['octobre'], known)?.text).toBe('octobre');
    expect(chooseReread('(συμφων/α5),', ['(συμφωνία),'], known)).toEqual({ text: '(συμφωνία5),', change: 'συμφων/α→συμφωνία', language: 'ell' });
  });

  it('leaves the word as it is unless the second reading is one close word of the same script that a dictionary knows', async () => {
    const fra = await openCorrector(['fra', 'ell']);
    const known = (w: string): string | undefined => fra.known(w);
    // Too far from the first reading for its length (at most 1 letter in 4, 2 in 7, 3 beyond).
    expect(chooseReread('pésce', ['pime'], known)).toBeUndefined();
    expect(chooseReread('tmgons', ['tas'], known)).toBeUndefined();
    // Two words, none, a single letter, no word at all, the same word again.
    expect(chooseReread('l’éditson', ['l’édition', 'de'], known)).toBeUndefined();
    expect(chooseReread('conmais', [], known)).toBeUndefined();
    expect(chooseReread('ke', ['k'], known)).toBeUndefined();
    expect(chooseReread('xqzt', ['xqzv'], known)).toBeUndefined();
    // Another script: Greek read again as a French word.
    expect(chooseReread('δὲ', ['de'], known)).toBeUndefined();
    // A Greek word changed for its accents only: the dictionary is modern Greek, the page may be ancient.
    expect(chooseReread('Τίς', ['Τις'], known)).toBeUndefined();
  });

  it('cuts the unknown words with their line’s height and some paper, without the ink of other words', () => {
    const read = page([[word('memier', 100, 50, { unknown: true }), word('jet', 150, 50)], [word('x', 10, 120, { unknown: true }), word('checked', 60, 120, { unknown: true, edit: { from: 'checked' } }), word('&tobre', 380, 120, { unknown: true })]]);
    const doubtful = wordsToReread(read);
    // Not one letter, not a word a person checked; the cut stays on the page.
    expect(doubtful.map((d) => d.index)).toEqual([0, 4]);
    // The line is 28 px high: 7 px of paper around (the line's own height, not the word's).
    expect(doubtful[0].box).toEqual({ x0: 93, y0: 39, x1: 147, y1: 81 });
    expect(doubtful[1].box).toEqual({ x0: 373, y0: 109, x1: 400, y1: 151 });

    // Cut from a page of grey paper (200) with a stroke of ink (40), from an image twice the OCR page's size: the
    // paper comes out white, the ink stays dark.
    const grey = createGray(800, 600, 200);
    for (let y = 90; y < 150; y++) for (let x = 200; x < 210; x++) grey.data[y * 800 + x] = 40;
    const cut = cutWord(grey, read, doubtful[0].box);
    expect([cut.width, cut.height]).toEqual([108, 84]);
    expect(cut.data[0]).toBe(255);
    expect(cut.data[20 * 108 + (200 - 186)]).toBe(51);

    // Ink reaching in from the line below (touching the cut's edge, its middle below the word) is made paper; the
    // word's own letters stay, even one that touches the edge.
    const lined = createGray(400, 300, 255);
    for (let y = 55; y < 68; y++) for (let x = 105; x < 110; x++) lined.data[y * 400 + x] = 30;
    for (let y = 76; y < 81; y++) for (let x = 120; x < 130; x++) lined.data[y * 400 + x] = 30;
    for (let y = 45; y < 81; y++) for (let x = 134; x < 138; x++) lined.data[y * 400 + x] = 30;
    const clean = cutWord(lined, read, doubtful[0].box, read.blocks[0].paragraphs[0].lines[0].words[0].box);
    expect(clean.data[(60 - 39) * 54 + (107 - 93)]).toBe(30);
    expect(clean.data[(78 - 39) * 54 + (125 - 93)]).toBe(255);
    expect(clean.data[(78 - 39) * 54 + (136 - 93)]).toBe(30);
    // Without the word's box, the whole cut counts as the word.
    expect(cutWord(lined, read, doubtful[0].box).data[(78 - 39) * 54 + (125 - 93)]).toBe(30);
  });
});
