/**
 * Synthetic pages with known text for the OCR tests: DejaVu Serif rendered from SVG, black on
 * white, at a chosen resolution; also as the pipeline's bitonal G4 TIFF.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { GrayImage } from '../../src/imaging/index.js';
import type { OcrInput } from '../../src/ocr/index.js';
import type { OcrPage, OcrWord } from '../../src/project/index.js';

export const ENGLISH =
  'Reading old books by lamplight is a quiet pleasure that many people still enjoy. The pages smell of dust ' +
  'and time, and every margin holds the notes of a reader who came before. Some of them argue with the author, ' +
  'others simply mark the passages they loved.';

export const FRENCH =
  'Il était une fois, dans un petit village au bord de la mer, un vieux pêcheur qui partait chaque matin avant ' +
  "l'aube. Sa femme lui préparait du pain et du fromage, et il revenait le soir avec des paniers remplis de poissons.";

export const GREEK =
  'Μια φορά κι έναν καιρό, σε ένα μικρό χωριό δίπλα στη θάλασσα, ζούσε ένας γέρος ψαράς που έβγαινε κάθε πρωί ' +
  'πριν από την αυγή. Η γυναίκα του του ετοίμαζε ψωμί και τυρί.';

export interface TextPage {
  /** Grey PNG, one channel. */
  png: Buffer;
  width: number;
  height: number;
  dpi: number;
  /** The lines as drawn, in order. */
  lines: string[];
  /** Where the first line was drawn: its left edge and baseline, in pixels. */
  x: number;
  baseline: number;
  /** Font size in pixels. */
  fontPx: number;
}

export interface TextPageOptions {
  dpi?: number;
  widthMm?: number;
  heightMm?: number;
  marginMm?: number;
  fontPt?: number;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Break text into lines that fit `chars` characters. */
export function wrap(text: string, chars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > chars) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Known text set in DejaVu Serif (11 pt by default) on an A6-wide page just tall enough for it. */
export async function renderTextPage(text: string, options: TextPageOptions = {}): Promise<TextPage> {
  const { dpi = 300, widthMm = 105, marginMm = 10, fontPt = 11 } = options;
  const pxPerMm = dpi / 25.4;
  const width = Math.round(widthMm * pxPerMm);
  const fontPx = (fontPt * dpi) / 72;
  const leading = fontPx * 1.35;
  const x = Math.round(marginMm * pxPerMm);
  // DejaVu Serif averages a little over half an em per character: stay well inside the margin.
  const lines = wrap(text, Math.floor((width - 2 * x) / (0.6 * fontPx)));
  const baseline = Math.round(x + fontPx);
  const height = options.heightMm ? Math.round(options.heightMm * pxPerMm) : Math.round(baseline + (lines.length - 1) * leading + x);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="#fff"/>` +
    `<g font-family="DejaVu Serif" font-size="${fontPx.toFixed(2)}" fill="#000">` +
    lines.map((l, i) => `<text x="${x}" y="${(baseline + i * leading).toFixed(1)}">${escapeXml(l)}</text>`).join('') +
    '</g></svg>';
  const png = await sharp(Buffer.from(svg), { density: 72 }).flatten({ background: '#ffffff' }).greyscale().extractChannel(0).png().toBuffer();
  return { png, width, height, dpi, lines, x, baseline, fontPx };
}

/** The page as the pipeline stores bitonal pages: CCITT G4, one tile, min-is-white. */
/** The page as a G4 TIFF: one strip, as the pipeline writes pages, or one tile, as it wrote them before. */
export async function toG4Tiff(page: TextPage, layout: 'strip' | 'tile' = 'strip'): Promise<Buffer> {
  const tile = (n: number): number => Math.ceil(n / 16) * 16;
  const shape = layout === 'tile' ? { tile: true, tileWidth: tile(page.width), tileHeight: tile(page.height) } : { tileHeight: page.height };
  return sharp(page.png)
    .threshold(128)
    .toColourspace('b-w')
    .tiff({ compression: 'ccittfax4', bitdepth: 1, miniswhite: true, ...shape })
    .toBuffer();
}

/** Write the page image and describe it for an engine. */
export async function writePage(dir: string, name: string, page: TextPage, bytes: Buffer = page.png): Promise<OcrInput> {
  const file = join(dir, name);
  await writeFile(file, bytes);
  return { file, width: page.width, height: page.height, dpi: page.dpi };
}

/** The page turned `degrees` clockwise, written as PNG: a page scanned or photographed the wrong way round. */
export async function writeTurnedPage(dir: string, name: string, page: TextPage, degrees: number): Promise<OcrInput> {
  const { data, info } = await sharp(page.png).rotate(degrees).png().toBuffer({ resolveWithObject: true });
  const file = join(dir, name);
  await writeFile(file, data);
  return { file, width: info.width, height: info.height, dpi: page.dpi };
}

/**
 * The words of the line with the boxes an engine gives them (the ink of each word: runs of inked columns split at
 * gaps wider than a third of the font size), read as `read` says — the misreadings under test.
 */
export function readLine(image: GrayImage, fontPx: number, read: string): OcrPage {
  const inked = (x: number): boolean => {
    for (let y = 0; y < image.height; y++) if (image.data[y * image.width + x] < 128) return true;
    return false;
  };
  const spans: Array<[number, number]> = [];
  let gap = Infinity;
  for (let x = 0; x < image.width; x++) {
    if (!inked(x)) {
      gap++;
      continue;
    }
    if (gap > fontPx / 3 || spans.length === 0) spans.push([x, x + 1]);
    else spans[spans.length - 1][1] = x + 1;
    gap = 0;
  }
  const texts = read.split(' ');
  expect(spans).toHaveLength(texts.length);
  const words: OcrWord[] = spans.map(([x0, x1], i) => {
    let y0 = image.height;
    let y1 = 0;
    for (let y = 0; y < image.height; y++) {
      for (let x = x0; x < x1; x++) {
        if (image.data[y * image.width + x] < 128) {
          y0 = Math.min(y0, y);
          y1 = Math.max(y1, y + 1);
        }
      }
    }
    return { text: texts[i], box: { x0, y0, x1, y1 }, confidence: 90 };
  });
  const box = { x0: 0, y0: 0, x1: image.width, y1: image.height };
  return {
    width: image.width,
    height: image.height,
    dpi: 300,
    engine: 'tesseract',
    languages: ['fra'],
    blocks: [{ box, paragraphs: [{ box, lines: [{ box, words }] }] }],
  };
}
