import { describe, expect, it } from 'vitest';
import { decodeGray, type GrayImage } from '../../../src/imaging/index.js';
import { undoCorrections } from '../../../src/ocr/correct/correct.js';
import { correctColons, correctStops, restoreStops } from '../../../src/ocr/correct/stops.js';
import type { OcrPage, OcrWord } from '../../../src/project/index.js';
import { readLine, renderTextPage, type TextPage } from '../pages.js';

/** One line of text set in DejaVu Serif 11 pt at 300 dpi (an x-height of about 24 pixels, as on a camera page). */
async function line(text: string): Promise<{ page: TextPage; image: GrayImage }> {
  const page = await renderTextPage(text, { widthMm: 200 });
  expect(page.lines).toHaveLength(1);
  return { page, image: await decodeGray(page.png) };
}

const texts = (page: OcrPage): string[] => page.blocks[0].paragraphs[0].lines[0].words.map((w) => w.text);

describe('full stops read as commas', () => {
  it('turns a comma back into the full stop the page prints, before a capital and at the end of a paragraph', async () => {
    const { page, image } = await line('aux dispositions de Nicée. Le paragraphe semble');
    const result = readLine(image, page.fontPx, 'aux dispositions de Nicée, Le paragraphe semble');
    expect(correctStops(result, image)).toBe(1);
    expect(texts(result)).toEqual(['aux', 'dispositions', 'de', 'Nicée.', 'Le', 'paragraphe', 'semble']);
    expect(result.blocks[0].paragraphs[0].lines[0].words[3].correction).toEqual({ from: 'Nicée,', reason: 'punctuation', change: ',→.' });
    // --no-correct puts back what the engine read.
    expect(texts(undoCorrections(result))).toContain('Nicée,');

    const end = await line('refusé de changer aux dispositions de Nicée.');
    const last = readLine(end.image, end.page.fontPx, 'refusé de changer aux dispositions de Nicée,');
    expect(correctStops(last, end.image)).toBe(1);
    expect(texts(last).at(-1)).toBe('Nicée.');
  });

  it('ends a line before the next numbered note with its full stop', async () => {
    const { page, image } = await line('Syn 13, 5, p. 241, l. 16.');
    const withNext = (first: string): OcrPage => {
      const result = readLine(image, page.fontPx, 'Syn 13, 5, p. 241, l. 16,');
      const box = { x0: 0, y0: image.height, x1: 20, y1: image.height + 10 };
      result.blocks[0].paragraphs[0].lines.push({
        box,
        words: [
          { text: first, box, confidence: 90 },
          { text: 'Syn', box, confidence: 90 },
        ],
      });
      return result;
    };
    const note = withNext('3.');
    expect(correctStops(note, image)).toBe(1);
    expect(texts(note)).toEqual(['Syn', '13,', '5,', 'p.', '241,', 'l.', '16.']);
    // A line that goes on with a number is not a new note: "13," before "5," keeps its comma too.
    expect(correctStops(withNext('12'), image)).toBe(0);
  });

  it('turns a note’s number read "1," into "1." from the next word’s baseline, its dot outside the number’s box', async () => {
    const { page, image } = await line('1. Il mourut en me donnant la vie');
    const read = (): OcrPage => {
      const result = readLine(image, page.fontPx, '1, Il mourut en me donnant la vie');
      // The engine's box holds the figure alone: it ends at the first white column after it.
      const number = result.blocks[0].paragraphs[0].lines[0].words[0];
      let x = number.box.x0;
      const inked = (at: number): boolean => {
        for (let y = number.box.y0; y < number.box.y1; y++) if (image.data[y * image.width + at] < 128) return true;
        return false;
      };
      while (inked(x)) x++;
      number.box = { ...number.box, x1: x };
      return result;
    };
    const note = read();
    expect(correctStops(note, image)).toBe(1);
    expect(texts(note).slice(0, 2)).toEqual(['1.', 'Il']);
    // A real comma after the number stays.
    const comma = await line('1, Il mourut en me donnant la vie');
    const kept = readLine(comma.image, comma.page.fontPx, '1, Il mourut en me donnant la vie');
    expect(correctStops(kept, comma.image)).toBe(0);
  });

  it('leaves a real comma as read, and a dot before a small letter too', async () => {
    const comma = await line('sur le siège de Césarée, Le paragraphe semble');
    const read = readLine(comma.image, comma.page.fontPx, 'sur le siège de Césarée, Le paragraphe semble');
    expect(correctStops(read, comma.image)).toBe(0);
    expect(texts(read)).toContain('Césarée,');
    expect(read.blocks[0].paragraphs[0].lines[0].words[4].correction).toBeUndefined();

    // A full stop before "le" would be a misreading of its own; the comma the engine read stays.
    const dot = await line('aux dispositions de Nicée. le paragraphe semble');
    const lower = readLine(dot.image, dot.page.fontPx, 'aux dispositions de Nicée, le paragraphe semble');
    expect(correctStops(lower, dot.image)).toBe(0);
  });

  it('asks the grey page when the threshold may have dropped a small comma’s tail', async () => {
    const { page, image } = await line('sur le siège de Césarée, Le paragraphe semble');
    const read = (): OcrPage => readLine(image, page.fontPx, 'sur le siège de Césarée, Le paragraphe semble');
    const comma = read().blocks[0].paragraphs[0].lines[0].words[4].box;
    // The comma is the word's last columns; its tail is what hangs below the baseline there.
    const tail = (x: number, y: number): boolean => x >= comma.x1 - Math.round(page.fontPx * 0.15) && x < comma.x1 && y > page.baseline + 1;
    const bitonal = { ...image, data: Uint8Array.from(image.data) };
    const grey = { ...image, data: Uint8Array.from(image.data) };
    for (let y = 0; y < image.height; y++) {
      for (let x = comma.x0; x < comma.x1; x++) {
        if (!tail(x, y)) continue;
        const i = y * image.width + x;
        bitonal.data[i] = 255;
        grey.data[i] = 255 - Math.round((255 - image.data[i]) * 0.4);
      }
    }
    // The bitonal page alone now shows a dot…
    expect(correctStops(read(), bitonal)).toBe(1);
    // …but the grey page OCR read still shows the faint tail.
    const checked = read();
    expect(correctStops(checked, bitonal, grey)).toBe(0);
    expect(texts(checked)).toContain('Césarée,');
  });

  it('turns the comma after a closing guillemet into the full stop the page prints, the line taken from the word before', async () => {
    const { page, image } = await line('Toute vérité ». Autrement dit');
    const result = readLine(image, page.fontPx, 'Toute vérité », Autrement dit');
    expect(correctStops(result, image)).toBe(1);
    expect(texts(result)).toEqual(['Toute', 'vérité', '».', 'Autrement', 'dit']);
    // A real comma there stays.
    const comma = await line('Toute vérité », Autrement dit');
    expect(correctStops(readLine(comma.image, comma.page.fontPx, 'Toute vérité », Autrement dit'), comma.image)).toBe(0);
  });

  it('never touches a word a person checked', async () => {
    const { page, image } = await line('aux dispositions de Nicée. Le paragraphe semble');
    const result = readLine(image, page.fontPx, 'aux dispositions de Nicée, Le paragraphe semble');
    result.blocks[0].paragraphs[0].lines[0].words[3].edit = { from: 'Nicée,' };
    expect(correctStops(result, image)).toBe(0);
    expect(texts(result)).toContain('Nicée,');
  });
});

describe('semicolons read as colons', () => {
  it('turns a colon into the semicolon the page prints, alone or glued, and leaves a real colon and a checked word', async () => {
    const { page, image } = await line('Toute nature ; ensuite vie; encore beauté : alors');
    const misread = 'Toute nature : ensuite vie: encore beauté : alors';
    const result = readLine(image, page.fontPx, misread);
    expect(correctColons(result, image)).toBe(2);
    expect(texts(result)).toEqual(['Toute', 'nature', ';', 'ensuite', 'vie;', 'encore', 'beauté', ':', 'alors']);
    expect(result.blocks[0].paragraphs[0].lines[0].words[2].correction).toEqual({ from: ':', reason: 'punctuation', change: ':→;' });
    expect(texts(undoCorrections(result))).toContain('vie:');

    const checked = readLine(image, page.fontPx, misread);
    checked.blocks[0].paragraphs[0].lines[0].words[2].edit = { from: ':' };
    expect(correctColons(checked, image)).toBe(1);
    expect(texts(checked)[2]).toBe(':');
  });
});

describe('full stops left out at a line’s end', () => {
  /** The line as the engine gives it when it drops the last word's final mark: its box ends at its last letter. */
  const dropLastMark = (result: OcrPage, image: GrayImage, page: TextPage, read: string): OcrPage => {
    const line = result.blocks[0].paragraphs[0].lines[0];
    line.baseline = { x0: 0, y0: page.baseline, x1: image.width, y1: page.baseline };
    const last = line.words[line.words.length - 1];
    const inked = (x: number): boolean => {
      for (let y = last.box.y0; y < last.box.y1; y++) if (image.data[y * image.width + x] < 128) return true;
      return false;
    };
    let x = last.box.x1 - 1;
    while (x > last.box.x0 && inked(x)) x--;
    while (x > last.box.x0 && !inked(x)) x--;
    last.box = { ...last.box, x1: x + 1 };
    last.text = read;
    return result;
  };
  const SMALL = 'une maison en ruine au coin une rue sans nom';

  it('puts back the full stop the ink shows after a paragraph’s last word, recorded and undone with --no-correct', async () => {
    const { page, image } = await line(`${SMALL}.`);
    const result = dropLastMark(readLine(image, page.fontPx, `${SMALL}.`), image, page, 'nom');
    expect(restoreStops(result, image)).toBe(1);
    expect(texts(result).at(-1)).toBe('nom.');
    const last: OcrWord = result.blocks[0].paragraphs[0].lines[0].words.at(-1)!;
    expect(last.correction).toEqual({ from: 'nom', reason: 'punctuation', change: '→.' });
    expect(texts(undoCorrections(result)).at(-1)).toBe('nom');
  });

  it('adds nothing where the ink has no full stop, where it has a comma, or where the next line goes on in small letters', async () => {
    const plain = await line(SMALL);
    expect(restoreStops(dropLastMark(readLine(plain.image, plain.page.fontPx, SMALL), plain.image, plain.page, 'nom'), plain.image)).toBe(0);

    const comma = await line(`${SMALL},`);
    expect(restoreStops(dropLastMark(readLine(comma.image, comma.page.fontPx, `${SMALL},`), comma.image, comma.page, 'nom'), comma.image)).toBe(0);

    const dot = await line(`${SMALL}.`);
    const goesOn = dropLastMark(readLine(dot.image, dot.page.fontPx, `${SMALL}.`), dot.image, dot.page, 'nom');
    const box = { x0: 0, y0: dot.image.height, x1: 20, y1: dot.image.height + 10 };
    goesOn.blocks[0].paragraphs[0].lines.push({ box, words: [{ text: 'dans', box, confidence: 90 }] });
    expect(restoreStops(goesOn, dot.image)).toBe(0);
    // The same line before a capital is a sentence's end.
    goesOn.blocks[0].paragraphs[0].lines[1].words[0].text = 'Dans';
    expect(restoreStops(goesOn, dot.image)).toBe(1);
  });

  it('leaves a word that ends in punctuation, and one a person checked', async () => {
    const { page, image } = await line(`${SMALL}.`);
    expect(restoreStops(dropLastMark(readLine(image, page.fontPx, `${SMALL}.`), image, page, 'nom;'), image)).toBe(0);
    const checked = dropLastMark(readLine(image, page.fontPx, `${SMALL}.`), image, page, 'nom');
    checked.blocks[0].paragraphs[0].lines[0].words.at(-1)!.edit = { from: 'nom' };
    expect(restoreStops(checked, image)).toBe(0);
  });
});
