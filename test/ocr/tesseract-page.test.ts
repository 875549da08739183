import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ocrResolution, preparePage } from '../../src/ocr/tesseract-page.js';
import { parseHocr } from '../../src/ocr/tesseract-cli-hocr.js';
import { renderTextPage, toG4Tiff, writePage } from './pages.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quire-ocr-page-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the page tesseract sees', () => {
  it('upsamples pages under 250 dpi to 300 dpi and leaves 300-dpi pages as they are', () => {
    expect(ocrResolution(620, 358, 150)).toEqual({ width: 1240, height: 716, dpi: 300 });
    expect(ocrResolution(1240, 716, 300)).toEqual({ width: 1240, height: 716, dpi: 300 });
    expect(ocrResolution(1000, 1000, 250)).toEqual({ width: 1000, height: 1000, dpi: 250 });
    // Unknown resolution: taken as the pipeline's usual 300 dpi.
    expect(ocrResolution(1000, 1000, 0)).toEqual({ width: 1000, height: 1000, dpi: 300 });
  });

  it('turns a 150-dpi page into a 300-dpi grey PNG, with the scale back to page pixels', async () => {
    const page = await renderTextPage('A small page of text.', { dpi: 150 });
    const prepared = await preparePage(await writePage(dir, 'small.png', page));
    const meta = await sharp(prepared.png).metadata();
    expect(meta.format).toBe('png');
    expect(meta.width).toBe(page.width * 2);
    expect(meta.channels).toBe(1);
    expect(prepared).toMatchObject({ dpi: 300, scaleX: 0.5, bitonal: false });
    expect(prepared.scaleY).toBeCloseTo(0.5, 2);
  });

  it('reads a grey page smaller when the pipeline asks (a blurred capture), never a bitonal one', async () => {
    const page = await renderTextPage('A blurred page of text.', { dpi: 300 });
    const input = { ...(await writePage(dir, 'blurred.png', page)), readScale: 0.55 };
    const prepared = await preparePage(input);
    const meta = await sharp(prepared.png).metadata();
    expect(meta.width).toBe(Math.round(page.width * 0.55));
    expect(prepared.dpi).toBe(165);
    expect(prepared.scaleX).toBeCloseTo(1 / 0.55, 2);
    const bitonal = await preparePage({ ...(await writePage(dir, 'blurred.tif', page, await toG4Tiff(page))), readScale: 0.55 });
    expect(bitonal).toMatchObject({ dpi: 300, scaleX: 1, bitonal: true });
  });

  it('reads the pipeline’s tiled G4 TIFF and knows it is already black and white', async () => {
    const page = await renderTextPage('A bitonal page of text.');
    const prepared = await preparePage(await writePage(dir, 'bitonal.tif', page, await toG4Tiff(page)));
    const meta = await sharp(prepared.png).metadata();
    expect(meta.width).toBe(page.width);
    expect(prepared).toMatchObject({ dpi: 300, scaleX: 1, scaleY: 1, bitonal: true });
  });
});

describe('tesseract’s layout (hOCR, as both engines read it) as our page model', () => {
  // What tesseract writes for a line "Hello world" and an empty line, with an empty block after them.
  const hocr = `<div class='ocr_page' id='page_1' title='bbox 0 0 800 600'>
 <div class='ocr_carea' id='block_1_1' title="bbox 100 100 700 200">
  <p class='ocr_par' id='par_1_1' lang='eng' title="bbox 100 100 700 200">
   <span class='ocr_line' id='line_1_1' title="bbox 100 100 700 150; baseline 0.00333 -10; x_size 40">
    <span class='ocrx_word' id='word_1_1' title='bbox 100 100 300 150; x_wconf 91.234'>Hello</span>
    <span class='ocrx_word' id='word_1_2' title='bbox 310 100 320 150; x_wconf 0'>  </span>
    <span class='ocrx_word' id='word_1_3' title='bbox 400 100 700 150; x_wconf 88'>world</span>
   </span>
   <span class='ocr_line' id='line_1_2' title="bbox 100 160 700 200"><span class='ocrx_word' id='word_1_4' title='bbox 100 160 700 200; x_wconf 0'></span></span>
  </p>
 </div>
 <div class='ocr_carea' id='block_1_2' title="bbox 0 300 900 900"><p class='ocr_par' id='par_1_2' title="bbox 0 300 900 900"></p></div>
</div>`;

  it('scales boxes to the page, drops empty words, lines and blocks, keeps the baseline', () => {
    const page = parseHocr(hocr, { width: 400, height: 300, dpi: 150, scaleX: 0.5, scaleY: 0.5 }, ['eng'], 'tesseract');
    expect(page).toMatchObject({ width: 400, height: 300, dpi: 150, engine: 'tesseract', languages: ['eng'] });
    expect(page.blocks).toHaveLength(1);
    const line = page.blocks[0].paragraphs[0].lines;
    expect(line).toHaveLength(1);
    expect(line[0].words).toEqual([
      { text: 'Hello', box: { x0: 50, y0: 50, x1: 150, y1: 75 }, confidence: 91.23 },
      { text: 'world', box: { x0: 200, y0: 50, x1: 350, y1: 75 }, confidence: 88 },
    ]);
    expect(line[0].baseline).toEqual({ x0: 50, y0: 70, x1: 350, y1: 71 });
  });

  it('keeps boxes on the page and copes with no result at all', () => {
    const page = parseHocr(hocr, { width: 200, height: 60, dpi: 300, scaleX: 0.5, scaleY: 0.5 }, ['eng']);
    expect(page.blocks[0].paragraphs[0].lines[0].words[1].box).toEqual({ x0: 200, y0: 50, x1: 200, y1: 60 });
    expect(parseHocr('', { width: 10, height: 10, dpi: 300, scaleX: 1, scaleY: 1 }, ['eng']).blocks).toEqual([]);
  });

  it('keeps each character’s weighed LSTM choices (lstm_choice_mode=2) apart from the word’s text', () => {
    const withChoices = `<span class='ocr_line' id='line_1_1' title="bbox 0 0 200 40">
<span class='ocrx_word' id='word_1_1' title='bbox 0 0 90 40; x_wconf 71'>ag
 <span class='ocrx_cinfo' id='lstm_choices_1_1_1'><span class='ocrx_cinfo' id='choice_1_1_1' title='x_confs 95'>a</span><span class='ocrx_cinfo' id='choice_1_1_2' title='x_confs 0'>à</span><span class='ocrx_cinfo' id='choice_1_1_9' title='x_confs 20'>o</span></span>
 <span class='ocrx_cinfo' id='lstm_choices_1_1_2'><span class='ocrx_cinfo' id='choice_1_1_3' title='x_confs 60'>g</span><span class='ocrx_cinfo' id='choice_1_1_4' title='x_confs 45'>ç</span><span class='ocrx_cinfo' id='choice_1_1_5' title='x_confs 0'> </span></span>
</span>
<span class='ocrx_word' id='word_1_2' title='bbox 100 0 200 40; x_wconf 90'>l&#39;a
 <span class='ocrx_cinfo' id='lstm_choices_1_2_1'><span class='ocrx_cinfo' id='choice_1_2_1' title='x_confs 95'>l</span></span>
</span></span>`;
    const [first, second] = parseHocr(withChoices, { width: 200, height: 40, dpi: 300, scaleX: 1, scaleY: 1 }, ['fra']).blocks[0].paragraphs[0].lines[0].words;
    // Only the choices the LSTM really weighed (half the score of its pick or more) are kept.
    expect(first).toMatchObject({ text: 'ag', alternatives: [['a'], ['g', 'ç']] });
    // Choices that do not spell the word as read are left out rather than misaligned.
    expect(second.text).toBe("l'a");
    expect(second.alternatives).toBeUndefined();
  });
});
