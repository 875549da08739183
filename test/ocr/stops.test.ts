import { describe, expect, it } from 'vitest';
import { decodeGray, type GrayImage } from '../../src/imaging/index.js';
import { correctColons, correctStops, undoCorrections } from '../../src/ocr/index.js';
import type { OcrPage } from '../../src/project/index.js';
import { readLine, renderTextPage, type TextPage } from './pages.js';

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
      result.blocks[0].paragraphs[0].lines.push({ box, words: [{ text: first, box, confidence: 90 }, { text: 'Syn', box, confidence: 90 }] });
      return result;
    };
    const note = withNext('3.');
    expect(correctStops(note, image)).toBe(1);
    expect(texts(note)).toEqual(['Syn', '13,', '5,', 'p.', '241,', 'l.', '16.']);
    // A line that goes on with a number is not a new note: "13," before "5," keeps its comma too.
    expect(correctStops(withNext('12'), image)).toBe(0);
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
