/** Raised marks at words' ends, found on a drawn page: figures standing free or touching the last letter, and not accents. */
import { describe, expect, it } from 'vitest';
import { createGray, type GrayImage } from '../../../src/imaging/index.js';
import { undoCorrections } from '../../../src/ocr/correct/correct.js';
import { callInText, raisedMarks, readCall } from '../../../src/ocr/correct/raised.js';
import type { OcrPage, OcrWord } from '../../../src/project/index.js';

const BASELINE = 100;
const X_HEIGHT = 20;

/** Ink from (x0, y0) to (x1, y1), exclusive. */
function fill(image: GrayImage, x0: number, y0: number, x1: number, y1: number): void {
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) image.data[y * image.width + x] = 20;
}

/** A word of small letters, each a 12 × 20 block on the baseline 4 px apart; its box. */
function letters(image: GrayImage, x: number, count: number): { x0: number; x1: number } {
  for (let k = 0; k < count; k++) fill(image, x + 16 * k, BASELINE - X_HEIGHT, x + 16 * k + 12, BASELINE);
  return { x0: x, x1: x + 16 * count - 4 };
}

function word(text: string, x0: number, x1: number, y0 = BASELINE - X_HEIGHT, y1 = BASELINE): OcrWord {
  return { text, box: { x0, y0, x1, y1 }, confidence: 90 };
}

describe('raised marks', () => {
  it('finds a figure standing clear above the baseline at a word’s end, or touching its last letter, and no accent', () => {
    const image = createGray(900, 400);
    const words: OcrWord[] = [];
    // Five words of small letters: the x-height.
    for (let k = 0; k < 5; k++) {
      const box = letters(image, 20 + 70 * k, 3);
      words.push(word('une', box.x0, box.x1));
    }
    // "vérité³": a figure 14 px high whose bottom stands 9 px above the baseline, 3 px after the last letter.
    const free = letters(image, 380, 3);
    fill(image, free.x1 + 3, BASELINE - 23, free.x1 + 13, BASELINE - 9);
    words.push(word('vérité', free.x0, free.x1 + 13, BASELINE - 23));
    // "πατροκτόνους²": the figure touches the last letter's top right.
    const touching = letters(image, 480, 3);
    fill(image, touching.x1 - 2, BASELINE - 24, touching.x1 + 10, BASELINE - 9);
    words.push(word('πατροκτόνους', touching.x0, touching.x1 + 10, BASELINE - 24));
    // "été": an accent over a letter (ink beneath it) is no call.
    const accent = letters(image, 580, 3);
    fill(image, accent.x1 - 10, BASELINE - 34, accent.x1 - 2, BASELINE - 24);
    words.push(word('été', accent.x0, accent.x1, BASELINE - 34));
    // A raised mark with a letter after it, inside the word, is no call either.
    const inside = letters(image, 680, 2);
    fill(image, inside.x1 + 3, BASELINE - 23, inside.x1 + 13, BASELINE - 9);
    fill(image, inside.x1 + 16, BASELINE - X_HEIGHT, inside.x1 + 28, BASELINE);
    words.push(word('qu’un', inside.x0, inside.x1 + 28, BASELINE - 23));

    const note: OcrWord = word('3', 20, 30, 300, 320);
    const page = (withNote: boolean): OcrPage => ({
      width: 900,
      height: 400,
      dpi: 300,
      engine: 'test',
      languages: ['fra'],
      blocks: [
        {
          box: { x0: 0, y0: 0, x1: 900, y1: 400 },
          paragraphs: [
            {
              box: { x0: 0, y0: 0, x1: 900, y1: 400 },
              lines: [
                { box: { x0: 0, y0: BASELINE - 34, x1: 900, y1: BASELINE }, baseline: { x0: 0, y0: BASELINE, x1: 900, y1: BASELINE }, words },
                ...(withNote ? [{ box: { x0: 20, y0: 300, x1: 200, y1: 320 }, words: [note, word('Syn', 40, 80, 300, 320)] }] : []),
              ],
            },
          ],
        },
      ],
    });
    const marks = raisedMarks(page(true), image, { quotes: false });
    expect(marks.map((m) => words[m.index]?.text)).toEqual(['vérité', 'πατροκτόνους']);
    // Each is cut out alone: the figure's ink and white paper around it, no letter.
    for (const mark of marks) {
      expect(mark.image.height).toBeLessThan(2 * X_HEIGHT + 2);
      expect(Math.min(...mark.image.data)).toBe(20);
    }
    // A page without notes has no call to look for.
    expect(raisedMarks(page(false), image, { quotes: false })).toEqual([]);
  });

  it('takes one to three digits read in a mark as a call, and nothing else', () => {
    expect(readCall(['7'])).toBe('7');
    expect(readCall(['¹²'])).toBe('12');
    expect(readCall(['1', '2'])).toBeUndefined();
    expect(readCall(['”'])).toBeUndefined();
    expect(readCall(['1234'])).toBeUndefined();
    expect(readCall([])).toBeUndefined();
  });

  it('puts a call into the text where the engine read it as a star or a quote, and only there', () => {
    const word = (text: string): OcrWord => ({ text, box: { x0: 0, y0: 0, x1: 10, y1: 10 }, confidence: 80 });
    const star = word('vérité*');
    expect(callInText(star, '3')).toBe(true);
    expect(star).toMatchObject({ text: 'vérité³', correction: { from: 'vérité*', reason: 'note-call', change: '*→³' } });
    const quote = word('revirement”.');
    expect(callInText(quote, '12')).toBe(true);
    expect(quote.text).toBe('revirement¹².');
    const greek = word('(ὁμοφροσύνη").');
    expect(callInText(greek, '4')).toBe(true);
    expect(greek.text).toBe('(ὁμοφροσύνη⁴).');
    // The call dropped, or read as a letter: the text stays, the call is only on the word.
    for (const text of ['simulation.', 'contradictions.', 'what!', '1815*']) expect(callInText(word(text), '9')).toBe(false);
    // A word a person checked is theirs.
    const checked = { ...word('vérité*'), edit: { from: 'vérité*' } };
    expect(callInText(checked, '3')).toBe(false);
    // --no-correct puts back what the engine read.
    const page: OcrPage = {
      width: 10,
      height: 10,
      dpi: 300,
      engine: 'tesseract-cli',
      languages: ['fra'],
      blocks: [{ box: star.box, paragraphs: [{ box: star.box, lines: [{ box: star.box, words: [star] }] }] }],
    };
    expect(undoCorrections(page).blocks[0].paragraphs[0].lines[0].words[0].text).toBe('vérité*');
  });
});
