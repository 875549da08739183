import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { glyphlessTrueType, toUnicodeCMap, UnicodeCidFont } from '../../src/export/cid-font.js';
import { writePageImage } from '../../src/project/page-image.js';
import { writePdf, type PdfPageInput } from '../../src/export/pdf.js';
import { placeLine, textLayerContent } from '../../src/export/text-layer.js';
import type { OcrLine, OcrPage, OcrWord } from '../../src/project/index.js';
import { bitonalPage, removeTempDirs, renderGray, tempDir, tool } from './helpers.js';
import { seededRandom } from '../helpers.js';

const DPI = 300;
const PAGE_WIDTH = 1400;
const PAGE_HEIGHT = 1000;

let dir: string;
let blank: PdfPageInput;

afterAll(removeTempDirs);

beforeAll(async () => {
  dir = tempDir('text-layer');
  mkdirSync(join(dir, 'pages'));
  const white = new Uint8Array(PAGE_WIDTH * PAGE_HEIGHT).fill(255);
  const file = await writePageImage({ data: white, width: PAGE_WIDTH, height: PAGE_HEIGHT, channels: 1 }, 'bitonal', DPI, join(dir, 'pages', '0001'));
  blank = { file, kind: 'bitonal', width: PAGE_WIDTH, height: PAGE_HEIGHT, dpi: DPI };
});

interface Layout {
  /** Left edge and top of the first line, pixels. */
  left?: number;
  top?: number;
  lineHeight?: number;
  lineGap?: number;
  /** Pixels per character (a CJK character counts twice). */
  charWidth?: number;
  wordGap?: number;
  /** Baseline drop per pixel to the right (tilted capture); 0 for level lines. */
  slope?: number;
  /** Give lines an engine baseline (every other line when 'alternate'). */
  baselines?: 'all' | 'none' | 'alternate';
}

const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]/u;

/** An OCR result made by hand: words laid out left to right with widths from their length. */
function ocrPage(lines: string[], layout: Layout = {}): OcrPage {
  const { left = 60, top = 60, lineHeight = 50, lineGap = 30, charWidth = 22, wordGap = 20, slope = 0, baselines = 'all' } = layout;
  const ocrLines: OcrLine[] = lines.map((text, n) => {
    const y0 = top + n * (lineHeight + lineGap);
    let x = left;
    const words: OcrWord[] = text.split(' ').map((word, i) => {
      const width = [...word].reduce((sum, char) => sum + (WIDE.test(char) ? 2 : 1) * charWidth, 0);
      // Ascenders and descenders make word boxes differ a little from the line box.
      const jitter = i % 3;
      const drop = Math.round(slope * (x - left));
      const box = { x0: x, y0: y0 + drop + jitter, x1: x + width, y1: y0 + drop + lineHeight - jitter };
      x += width + wordGap;
      return { text: word, box, confidence: 95 };
    });
    const x1 = x - wordGap;
    const rise = Math.round(slope * (x1 - left));
    const withBaseline = baselines === 'all' || (baselines === 'alternate' && n % 2 === 0);
    const baselineY = y0 + 0.8 * lineHeight;
    return {
      box: { x0: left, y0, x1, y1: y0 + lineHeight + Math.max(0, rise) },
      baseline: withBaseline ? { x0: left, y0: baselineY, x1, y1: baselineY + slope * (x1 - left) } : undefined,
      words,
    };
  });
  const box = { x0: left, y0: top, x1: Math.max(...ocrLines.map((l) => l.box.x1)), y1: ocrLines[ocrLines.length - 1].box.y1 };
  return { width: PAGE_WIDTH, height: PAGE_HEIGHT, dpi: DPI, engine: 'none', languages: [], blocks: [{ box, paragraphs: [{ box, lines: ocrLines }] }] };
}

function ocrText(page: OcrPage): string {
  return page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.map((l) => l.words.map((w) => w.text).join(' ')))).join('\n');
}

async function pdfWith(name: string, pages: PdfPageInput[]): Promise<string> {
  const out = join(dir, `${name}.pdf`);
  await writePdf(pages, out);
  return out;
}

function rawText(pdf: string, page = 1): string {
  return tool('pdftotext', ['-raw', '-enc', 'UTF-8', '-f', String(page), '-l', String(page), pdf, '-'])
    .replace(/\f/g, '')
    .trimEnd();
}

interface ExtractedWord {
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

function bboxWords(pdf: string): ExtractedWord[] {
  const html = tool('pdftotext', ['-bbox', '-enc', 'UTF-8', pdf, '-']);
  return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    xMin: Number(m[1]),
    yMin: Number(m[2]),
    xMax: Number(m[3]),
    yMax: Number(m[4]),
    text: decodeEntities(m[5]),
  }));
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Character error rate: edit distance over the expected length. */
function cer(actual: string, expected: string): number {
  const a = [...actual];
  const b = [...expected];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length] / Math.max(1, b.length);
}

function qpdfCheck(pdf: string): string {
  return execFileSync('qpdf', ['--check', pdf], { encoding: 'utf8', stdio: 'pipe' });
}

const FRENCH = ['À l’été, où ça ? Déjà vu : l’œuvre naïve', 'de Noël, château, forêt, Ève et Zoé.', 'Gallia est omnis divisa in partes tres,'];
const GREEK = ['γνῶθι σεαυτόν', 'Ἐν ἀρχῇ ἦν ὁ λόγος, καὶ ὁ λόγος ἦν πρὸς τὸν θεόν.'];
const CYRILLIC = ['Съешь же ещё этих мягких', 'французских булок, да выпей чаю.'];
const CJK = ['天地玄黄 宇宙洪荒', 'ひらがな カタカナ 한국어'];
const ASTRAL = ['𝔄𝔩𝔭𝔥𝔞 and 𝔅', 'ok 😀 done'];
/** Accents as combining marks (NFD), as some engines write them. */
const DECOMPOSED = ['de\u0301ja\u0300 vu, a\u0313\u0301ρχη\u0342'];

/** pdftotext's words are the OCR words, each box within `tolerance` points of the OCR box. */
function expectBoxesNear(found: ExtractedWord[], page: OcrPage, tolerance: number): void {
  const expected = page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words)));
  expect(found.map((w) => w.text)).toEqual(expected.map((w) => w.text));
  const scale = 72 / page.dpi;
  let worst = 0;
  found.forEach((word, i) => {
    const box = expected[i].box;
    const gaps = [word.xMin - box.x0 * scale, word.yMin - box.y0 * scale, word.xMax - box.x1 * scale, word.yMax - box.y1 * scale];
    worst = Math.max(worst, ...gaps.map(Math.abs));
  });
  expect(worst).toBeLessThan(tolerance);
}

async function pdfjsText(pdf: string): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(readFileSync(pdf)), verbosity: pdfjs.VerbosityLevel.ERRORS }).promise;
  try {
    const content = await (await doc.getPage(1)).getTextContent();
    return content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
  } finally {
    await doc.destroy();
  }
}

describe('searchable PDF', () => {
  it('pdftotext reads the OCR text back in reading order, one line per OCR line, single spaces', async () => {
    // Two columns: the engine's block order (left column first) is the reading order.
    const left = ocrPage(FRENCH, { left: 40 });
    const right = ocrPage(['Quousque tandem abutere,', 'Catilina, patientia nostra?'], { left: 760, charWidth: 20 });
    const page: OcrPage = { ...left, blocks: [...left.blocks, ...right.blocks] };
    const pdf = await pdfWith('columns', [{ ...blank, ocr: page }]);

    const text = rawText(pdf);
    expect(cer(text, ocrText(page))).toBeLessThan(0.01);
    expect(text).toBe(ocrText(page));
    expect(text).not.toMatch(/ {2}/);
    qpdfCheck(pdf);
  });

  it('keeps the spaces between words set tightly (a gap of a tenth of the line height)', async () => {
    const page = ocrPage([...FRENCH, ...GREEK], { wordGap: 5 });
    const pdf = await pdfWith('tight', [{ ...blank, ocr: page }]);
    expect(rawText(pdf)).toBe(ocrText(page));
    expect((await pdfjsText(pdf)).trimEnd()).toBe(ocrText(page));
    // The words are narrowed a little to open the gap, never by more than the tolerance.
    expectBoxesNear(bboxWords(pdf), page, 2);
  });

  it('Greek (polytonic), Cyrillic, CJK, characters outside the BMP and combining accents round-trip exactly', async () => {
    const page = ocrPage([...GREEK, ...CYRILLIC, ...CJK, ...ASTRAL, ...DECOMPOSED]);
    const pdf = await pdfWith('scripts', [{ ...blank, ocr: page }]);
    expect(rawText(pdf)).toBe(ocrText(page));
    expect(bboxWords(pdf).map((word) => word.text)).toEqual(ocrText(page).split(/\s+/));
    // A browser's viewer (pdf.js) reads the same text, spaces and line ends included.
    expect((await pdfjsText(pdf)).trimEnd()).toBe(ocrText(page));

    const fonts = tool('pdffonts', [pdf]).trim().split('\n').slice(2);
    expect(fonts).toHaveLength(1);
    // name, type "CID TrueType", encoding, embedded, subset, ToUnicode
    expect(fonts[0].split(/\s+/).slice(0, 7)).toEqual(['QuireGlyphless', 'CID', 'TrueType', 'Identity-H', 'yes', 'no', 'yes']);
    expect(qpdfCheck(pdf)).toMatch(/No syntax or stream encoding errors/);
  });

  it('puts each word where the OCR saw it: pdftotext word boxes within 2 pt', async () => {
    const lines = [...FRENCH, GREEK[1], CYRILLIC[1]];
    for (const baselines of ['all', 'none', 'alternate'] as const) {
      const page = ocrPage(lines, { baselines });
      expectBoxesNear(bboxWords(await pdfWith(`boxes-${baselines}`, [{ ...blank, ocr: page }])), page, 2);
    }
    // Small print and large print alike.
    const small = ocrPage(FRENCH, { lineHeight: 30, charWidth: 13, wordGap: 12, lineGap: 14 });
    expectBoxesNear(bboxWords(await pdfWith('boxes-small', [{ ...blank, ocr: small }])), small, 2);
    // 26 pt of line: the font is sized from the letters' ink (an accented capital reaches above the em box), so the
    // em box a reader highlights stands off the ink by up to a tenth of the line.
    const large = ocrPage(FRENCH.slice(0, 2), { lineHeight: 110, charWidth: 30, wordGap: 40 });
    expectBoxesNear(bboxWords(await pdfWith('boxes-large', [{ ...blank, ocr: large }])), large, 2.6);
  });

  it('keeps words whole and in order on a tilted line (baseline slope 1.7°)', async () => {
    const page = ocrPage([...FRENCH, ...GREEK], { slope: 0.03 });
    const pdf = await pdfWith('tilted', [{ ...blank, ocr: page }]);
    expect(rawText(pdf)).toBe(ocrText(page));
    // The default (physical layout) mode, which viewers' search resembles, also keeps each word whole.
    const layout = tool('pdftotext', ['-enc', 'UTF-8', pdf, '-']).split(/\s+/).filter(Boolean);
    expect(layout).toEqual(ocrText(page).split(/\s+/));
    expectBoxesNear(bboxWords(pdf), page, 2);
  });

  it('fits an OCR result made at another resolution of the same page', async () => {
    const page = ocrPage(FRENCH);
    const double = (box: { x0: number; y0: number; x1: number; y1: number }) => ({ x0: box.x0 * 2, y0: box.y0 * 2, x1: box.x1 * 2, y1: box.y1 * 2 });
    const at600: OcrPage = {
      ...page,
      width: PAGE_WIDTH * 2,
      height: PAGE_HEIGHT * 2,
      dpi: DPI * 2,
      blocks: page.blocks.map((b) => ({
        box: double(b.box),
        paragraphs: b.paragraphs.map((p) => ({
          box: double(p.box),
          lines: p.lines.map((l) => ({
            box: double(l.box),
            baseline: l.baseline && double(l.baseline),
            words: l.words.map((w) => ({ ...w, box: double(w.box) })),
          })),
        })),
      })),
    };
    expectBoxesNear(bboxWords(await pdfWith('resolution', [{ ...blank, ocr: at600 }])), page, 2);
  });

  it('is invisible: the page renders exactly as without the text layer', async () => {
    const inked = bitonalPage(PAGE_WIDTH, PAGE_HEIGHT);
    const file = await writePageImage(inked, 'bitonal', DPI, join(dir, 'pages', 'inked'));
    const image: PdfPageInput = { file, kind: 'bitonal', width: PAGE_WIDTH, height: PAGE_HEIGHT, dpi: DPI };
    const page = ocrPage([...FRENCH, ...GREEK, ...CJK], { lineHeight: 60 });
    const withText = await pdfWith('invisible', [{ ...image, ocr: page }]);
    const without = await pdfWith('no-text', [image]);
    expect(rawText(withText)).toBe(ocrText(page));

    const a = renderGray(withText, 1, DPI, dir);
    const b = renderGray(without, 1, DPI, dir);
    expect([a.width, a.height]).toEqual([b.width, b.height]);
    expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(true);
    // Not only a blank glyph: render mode 3 (no fill, no stroke), so no reader draws anything.
    const uncompressed = join(dir, 'invisible-qdf.pdf');
    execFileSync('qpdf', ['--qdf', '--object-streams=disable', withText, uncompressed]);
    expect(readFileSync(uncompressed, 'latin1')).toMatch(/q 3 Tr\nBT \/OcrText [\d.]+ Tf\n/);
  });

  it('a page without OCR stays a plain image page, next to pages with text', async () => {
    const first = ocrPage(FRENCH);
    const third = ocrPage(CYRILLIC);
    const pdf = await pdfWith('mixed', [{ ...blank, ocr: first }, blank, { ...blank, ocr: third }]);
    qpdfCheck(pdf);
    expect(rawText(pdf, 1)).toBe(ocrText(first));
    expect(rawText(pdf, 2)).toBe('');
    expect(rawText(pdf, 3)).toBe(ocrText(third));

    // No OCR anywhere, or OCR without a word: no font in the file at all.
    const empty: OcrPage = { ...first, blocks: [] };
    for (const [name, pages] of [
      ['plain', [blank]],
      ['wordless', [{ ...blank, ocr: empty }]],
    ] as const) {
      const out = await pdfWith(name, [...pages]);
      qpdfCheck(out);
      expect(tool('pdffonts', [out]).trim().split('\n')).toHaveLength(2);
      expect(rawText(out)).toBe('');
    }
  });

  it('refuses an OCR result without a page size', async () => {
    const broken: OcrPage = { ...ocrPage(FRENCH), width: 0 };
    await expect(writePdf([{ ...blank, ocr: broken }], join(dir, 'broken.pdf'))).rejects.toMatchObject({ code: 'bad_project' });
  });

  it('adds a few kilobytes per page of text', async () => {
    // A full page: 40 lines of 10 words of 2–9 letters (a fixed pseudo-random text: no repeats to compress).
    const uniform = seededRandom(7);
    const random = (n: number): number => Math.floor(uniform() * n);
    const word = (): string => Array.from({ length: 2 + random(8) }, () => 'abcdefghijklmnopqrstuvwxyzéèàç'[random(30)]).join('');
    const lines = Array.from({ length: 40 }, () => Array.from({ length: 10 }, word).join(' '));
    const dense = ocrPage(lines, { lineHeight: 16, lineGap: 8, charWidth: 9, wordGap: 8, top: 20, left: 20 });
    const plain = await pdfWith('size-plain', [blank, blank]);
    const one = await pdfWith('size-one', [{ ...blank, ocr: dense }, blank]);
    const two = await pdfWith('size-two', [
      { ...blank, ocr: dense },
      { ...blank, ocr: dense },
    ]);
    const perPage = statSync(two).size - statSync(one).size;
    const font = statSync(one).size - statSync(plain).size - perPage;
    console.log(`text layer: ${perPage} bytes per page of ${lines.length * 10} words; the font once per file: ${font} bytes`);
    expect(rawText(two, 2)).toBe(ocrText(dense));
    expect(perPage).toBeLessThan(12_000);
    expect(font).toBeLessThan(3_000);
  });
});

describe('the glyphless font', () => {
  it('is a TrueType program FreeType loads, with valid checksums', () => {
    const program = glyphlessTrueType();
    const view = new DataView(program.buffer, program.byteOffset, program.byteLength);
    const sum = (from: number, length: number): number => {
      let total = 0;
      for (let i = from; i < from + length; i += 4) total = (total + view.getUint32(i)) >>> 0;
      return total;
    };
    expect(sum(0, program.length)).toBe(0xb1b0afba);
    const tables = view.getUint16(4);
    for (let i = 0; i < tables; i++) {
      const record = 12 + 16 * i;
      const tag = String.fromCharCode(...program.subarray(record, record + 4));
      const length = view.getUint32(record + 12);
      expect(length, tag).toBeGreaterThan(0);
      if (tag !== 'head') expect(sum(view.getUint32(record + 8), Math.ceil(length / 4) * 4), tag).toBe(view.getUint32(record + 4));
    }
    const file = join(dir, 'glyphless.ttf');
    writeFileSync(file, program);
    const scan = tool('fc-scan', ['--format', '%{family}|%{fontformat}|%{outline}', file]);
    expect(scan).toBe('QuireGlyphless|TrueType|True');
  });

  it('gives every BMP character its own code and each character outside the BMP a private one', () => {
    const font = new UnicodeCidFont();
    expect(font.encode('aé γ Ж 天')).toEqual([0x61, 0xe9, 0x20, 0x3b3, 0x20, 0x416, 0x20, 0x5929]);
    expect(font.encode('𝔄x𝔄😀')).toEqual([0xd800, 0x78, 0xd800, 0xd801]);
    // A lone surrogate (a broken string) becomes U+FFFD rather than an unreadable code.
    expect(font.encode('a\ud800b')).toEqual([0x61, 0xfffd, 0x62]);
    const cmap = font.toUnicodeCMap();
    expect(cmap).toContain('<D800> <D835DD04>');
    expect(cmap).toContain('<D801> <D83DDE00>');
    expect(cmap).toContain('<0000> <00FF> <0000>');
    expect(cmap).toContain('<FF00> <FFFF> <FF00>');
    expect(cmap).not.toContain('<D800> <D8FF>');
    // CMap blocks hold at most 100 entries.
    for (const m of cmap.matchAll(/^(\d+) begin(bfrange|bfchar)$/gm)) expect(Number(m[1])).toBeLessThanOrEqual(100);
    expect(toUnicodeCMap([]).match(/<[0-9A-F]{4}> <[0-9A-F]{4}> <[0-9A-F]{4}>/g)).toHaveLength(248);
  });

  it('runs out of private codes gracefully after 2048 distinct characters outside the BMP', () => {
    const font = new UnicodeCidFont();
    const many = Array.from({ length: 2049 }, (_, i) => String.fromCodePoint(0x20000 + i)).join('');
    const cids = font.encode(many);
    expect(cids[2047]).toBe(0xdfff);
    expect(cids[2048]).toBe(0xfffd);
    expect(font.encode(String.fromCodePoint(0x20000))).toEqual([0xd800]);
  });
});

describe('placeLine', () => {
  it('scales each word to its box width and sets the baseline from the line', () => {
    const line: OcrLine = {
      box: { x0: 100, y0: 100, x1: 400, y1: 150 },
      baseline: { x0: 100, y0: 140, x1: 400, y1: 140 },
      words: [
        { text: 'abc', box: { x0: 100, y0: 100, x1: 250, y1: 150 }, confidence: 90 },
        { text: 'de', box: { x0: 300, y0: 100, x1: 400, y1: 150 }, confidence: 90 },
      ],
    };
    const placed = placeLine(line, { sx: 0.5, sy: 0.5, pageHeight: 500 }, new UnicodeCidFont());
    expect(placed.map((w) => w.cids)).toEqual([
      [0x61, 0x62, 0x63, 0x20],
      [0x64, 0x65],
    ]);
    // 25 pt of ink from the ascenders of `b` and `d` to the baseline (no descender): 0.73 em, so a 34.2 pt font.
    expect(placed[0]).toMatchObject({ x: 50, y: 430 });
    expect(placed[0].fontSize).toBeCloseTo(25 / 0.73, 1);
    // 3 glyphs of half an em at 34.2 pt are 51.4 pt wide; the box is 75 pt.
    expect(placed[0].scale).toBeCloseTo((100 * 75) / (1.5 * (25 / 0.73)), 1);
    // Without a baseline: a line with no descender stands on the bottom of its ink.
    const level = placeLine({ ...line, baseline: undefined }, { sx: 0.5, sy: 0.5, pageHeight: 500 }, new UnicodeCidFont());
    expect(level[0].y).toBeCloseTo(425);
    // With a descender (and no ascender), as deep under the bottom as the descender reaches (0.22 em).
    const deep = placeLine(
      { ...line, baseline: undefined, words: [{ ...line.words[0], text: 'gap' }] },
      { sx: 0.5, sy: 0.5, pageHeight: 500 },
      new UnicodeCidFont(),
    );
    expect(deep[0].y).toBeCloseTo(425 + 0.22 * (25 / (0.52 + 0.22)), 1);
    const wordless: OcrPage = { width: 10, height: 10, dpi: 72, engine: 'none', languages: [], blocks: [] };
    expect(textLayerContent(wordless, { width: 10, height: 10 }, new UnicodeCidFont(), 'F')).toBe('');
  });
});
