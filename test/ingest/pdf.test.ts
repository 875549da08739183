import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  beginText,
  concatTransformationMatrix,
  degrees,
  drawObject,
  endText,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
  rgb,
  setFontAndSize,
  setTextRenderingMode,
  showText,
  StandardFonts,
  TextRenderingMode,
} from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, QuireError } from '../../src/errors.js';
import { operations } from '../../src/ingest/pdf-content.js';
import { chooseRenderDpi, capDpi } from '../../src/ingest/pdf.js';
import { inputType, openInput, type FrameImage } from '../../src/ingest/index.js';
import { withTempDir } from '../helpers.js';
import { jpeg } from './fixtures.js';

const LETTER: [number, number] = [612, 792];

async function refusalOf(path: string): Promise<QuireError> {
  const error = await openInput(path).then(
    () => new Error('the PDF was opened, but it should have been refused'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuireError);
  return error as QuireError;
}

/** Count dark pixels of a raw frame (first channel). */
function darkPixels(image: FrameImage): number {
  const { raw, data } = image;
  if (!raw) throw new Error('expected raw pixels');
  let dark = 0;
  for (let i = 0; i < raw.width * raw.height; i++) if (data[i * raw.channels] < 128) dark++;
  return dark;
}

describe('scanned PDFs', () => {
  it('takes a page that is one JPEG as that JPEG, unchanged, with its resolution', async () => {
    await withTempDir(async (dir) => {
      const photo = await jpeg(850, 1100, 200); // 8.5 × 11 in at 100 dpi
      const pdf = await PDFDocument.create();
      const page = pdf.addPage(LETTER);
      page.drawImage(await pdf.embedJpg(photo), { x: 0, y: 0, width: LETTER[0], height: LETTER[1] });
      // An OCR layer: invisible text over the scan does not make the page a vector page.
      const font = pdf.embedStandardFont(StandardFonts.Helvetica);
      const fontKey = page.node.newFontDictionary('F1', font.ref);
      page.pushOperators(
        beginText(),
        setTextRenderingMode(TextRenderingMode.Invisible),
        setFontAndSize(fontKey, 4),
        showText(font.encodeText('hidden words')),
        endText(),
      );
      const path = join(dir, 'scan.pdf');
      await writeFile(path, await pdf.save());

      expect(inputType(path)).toBe('pdf');
      const opened = await openInput(path);
      try {
        expect(opened.name).toBe('scan');
        expect(opened.kind).toBe('pdf');
        const [frame] = opened.frames;
        expect([frame.index, frame.input, frame.kind, frame.dpi]).toEqual([1, 'scan.pdf#1', 'scan', { value: 100, source: 'pdf' }]);
        const image = await frame.load();
        expect(image.raw).toBeUndefined();
        expect(image.data.equals(photo)).toBe(true);
      } finally {
        await opened.close();
      }
    });
  });

  it('decodes a page that is one Flate or bitonal image to its own pixels (zlib inflating plain Flate streams)', async () => {
    await withTempDir(async (dir) => {
      const pdf = await PDFDocument.create();
      // Colour, Flate: a red left half and a blue right half, 200 × 100 px over 2 × 1 in.
      const rgb = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#ff0000' } })
        .composite([{ input: { create: { width: 100, height: 100, channels: 3, background: '#0000ff' } }, left: 100, top: 0 }])
        .png()
        .toBuffer();
      pdf.addPage([144, 72]).drawImage(await pdf.embedPng(rgb), { x: 0, y: 0, width: 144, height: 72 });
      // Bitonal: 16 × 8 px, left half black, as a 1-bit DeviceGray stream (a CCITT or JBIG2 scan decodes to the same).
      const bits = new Uint8Array(16).fill(0b00000000);
      for (let row = 0; row < 8; row++) bits[row * 2 + 1] = 0xff; // right byte of each row: white
      const ref = pdf.context.register(
        pdf.context.flateStream(bits, { Type: 'XObject', Subtype: 'Image', Width: 16, Height: 8, ColorSpace: 'DeviceGray', BitsPerComponent: 1 }),
      );
      const page = pdf.addPage([16 * 0.72, 8 * 0.72]); // 100 dpi
      const name = page.node.newXObject('Im', ref);
      page.pushOperators(pushGraphicsState(), concatTransformationMatrix(16 * 0.72, 0, 0, 8 * 0.72, 0, 0), drawObject(name), popGraphicsState());
      // Grey, 8-bit Flate: 8 × 4 px, one level per column.
      const levels = new Uint8Array(32).map((_, i) => (i % 8) * 32);
      const grey = pdf.context.register(
        pdf.context.flateStream(levels, { Type: 'XObject', Subtype: 'Image', Width: 8, Height: 4, ColorSpace: 'DeviceGray', BitsPerComponent: 8 }),
      );
      const third = pdf.addPage([8 * 0.72, 4 * 0.72]);
      const greyName = third.node.newXObject('Im', grey);
      third.pushOperators(pushGraphicsState(), concatTransformationMatrix(8 * 0.72, 0, 0, 4 * 0.72, 0, 0), drawObject(greyName), popGraphicsState());
      const path = join(dir, 'flate.pdf');
      await writeFile(path, await pdf.save());

      const opened = await openInput(path);
      try {
        expect(opened.frames.map((f) => [f.kind, f.dpi?.value])).toEqual([
          ['scan', 100],
          ['scan', 100],
          ['scan', 100],
        ]);
        const colour = await opened.frames[0].load();
        expect(colour.raw).toEqual({ width: 200, height: 100, channels: 3 });
        expect([...colour.data.subarray(0, 3)]).toEqual([255, 0, 0]);
        expect([...colour.data.subarray((100 * 200 - 1) * 3)]).toEqual([0, 0, 255]);
        const bitonal = await opened.frames[1].load();
        expect(bitonal.raw).toEqual({ width: 16, height: 8, channels: 1 });
        expect([...bitonal.data.subarray(0, 16)]).toEqual([...Array(8).fill(0), ...Array(8).fill(255)]);
        const levelled = await opened.frames[2].load();
        expect(levelled.raw).toEqual({ width: 8, height: 4, channels: 1 });
        expect([...levelled.data.subarray(24, 32)]).toEqual([0, 32, 64, 96, 128, 160, 192, 224]);
      } finally {
        await opened.close();
      }
    });
  });

  it('tells scanned pages from pages with an image among other things', async () => {
    await withTempDir(async (dir) => {
      const pdf = await PDFDocument.create();
      const photo = await jpeg(850, 1100, 200);
      const image = await pdf.embedJpg(photo);
      const font = await pdf.embedFont(StandardFonts.Helvetica);
      // A white background painted first, then the scan over all of it: still a scan.
      const behind = pdf.addPage(LETTER);
      behind.drawRectangle({ x: 0, y: 0, width: LETTER[0], height: LETTER[1], color: rgb(1, 1, 1) });
      behind.drawImage(image, { x: 0, y: 0, width: LETTER[0], height: LETTER[1] });
      // The scan with a visible caption over it: a vector page.
      const captioned = pdf.addPage(LETTER);
      captioned.drawImage(image, { x: 0, y: 0, width: LETTER[0], height: LETTER[1] });
      captioned.drawText('Figure 1', { x: 40, y: 40, size: 12, font });
      // A photo in a corner of a page: a vector page.
      pdf.addPage(LETTER).drawImage(image, { x: 72, y: 500, width: 170, height: 220 });
      const path = join(dir, 'mixed.pdf');
      await writeFile(path, await pdf.save());
      const opened = await openInput(path);
      try {
        expect(opened.frames.map((f) => [f.kind, f.dpi?.value])).toEqual([
          ['scan', 100],
          ['digital', 300],
          ['digital', 300],
        ]);
        expect((await opened.frames[0].load()).data.equals(photo)).toBe(true);
      } finally {
        await opened.close();
      }
    });
  });

  it('renders a turned scan page upright, at the resolution of its image', async () => {
    await withTempDir(async (dir) => {
      const pdf = await PDFDocument.create();
      const page = pdf.addPage(LETTER);
      page.drawImage(await pdf.embedJpg(await jpeg(850, 1100, 200)), { x: 0, y: 0, width: LETTER[0], height: LETTER[1] });
      page.setRotation(degrees(90));
      const path = join(dir, 'turned.pdf');
      await writeFile(path, await pdf.save());
      const opened = await openInput(path);
      try {
        const [frame] = opened.frames;
        expect([frame.kind, frame.dpi?.value]).toEqual(['scan', 100]);
        expect((await frame.load()).raw).toMatchObject({ width: 1100, height: 850 });
      } finally {
        await opened.close();
      }
    });
  });
});

describe('vector PDFs', () => {
  it('rasterises text pages at 300 dpi, more when the text is small', async () => {
    await withTempDir(async (dir) => {
      const pdf = await PDFDocument.create();
      const font = await pdf.embedFont(StandardFonts.Helvetica);
      pdf.addPage([288, 144]).drawText('Chapter one, in twelve point', { x: 20, y: 100, size: 12, font });
      const small = pdf.addPage([288, 144]);
      small.drawText('A heading', { x: 20, y: 100, size: 14, font });
      small.drawText('A footnote in five point type', { x: 20, y: 40, size: 5, font });
      const path = join(dir, 'book.pdf');
      await writeFile(path, await pdf.save());

      const opened = await openInput(path);
      try {
        expect(opened.frames.map((f) => [f.input, f.kind, f.dpi])).toEqual([
          ['book.pdf#1', 'digital', { value: 300, source: 'pdf' }],
          ['book.pdf#2', 'digital', { value: 450, source: 'pdf' }],
        ]);
        const first = await opened.frames[0].load();
        // 4 × 2 in at 300 dpi; black text on white comes back as one grey channel.
        expect(first.raw).toEqual({ width: 1200, height: 600, channels: 1 });
        expect(darkPixels(first)).toBeGreaterThan(1000);
        const second = await opened.frames[1].load();
        expect(second.raw).toEqual({ width: 1800, height: 900, channels: 1 });
      } finally {
        await opened.close();
      }
    });
  });

  it('reads content-stream operators past strings, arrays and escaped names', () => {
    const program = Buffer.from('q 2 0 0 3 0 0 cm /Im#20A Do BT 3 Tr (a \\) b (c)) Tj [(x) -20 (y)] TJ ET % comment Q\n<< /MCID 0 >> BDC EMC Q');
    expect([...operations(program)].map((o) => [o.operator, o.operands])).toEqual([
      ['q', []],
      ['cm', [2, 0, 0, 3, 0, 0]],
      ['Do', ['Im A']],
      ['BT', []],
      ['Tr', [3]],
      ['Tj', [null]],
      ['TJ', [null, null, -20, null, null]],
      ['ET', []],
      ['BDC', [null, 'MCID', 0, null]],
      ['EMC', []],
      ['Q', []],
    ]);
  });

  it('chooses the resolution from the smallest text, within 300–600 dpi and a pixel budget', () => {
    expect([undefined, 12, 7, 6, 5, 4, 3, 1].map(chooseRenderDpi)).toEqual([300, 300, 300, 350, 450, 550, 600, 600]);
    expect(capDpi(600, { width: 595, height: 842 })).toBe(600); // A4
    expect(capDpi(600, { width: 2384, height: 3370 })).toBe(160); // A0 stays under 40 Mpx
  });
});

describe('PDFs that are refused', () => {
  async function textPdf(path: string): Promise<void> {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < 3; i++) pdf.addPage([288, 144]).drawText(`Page ${i + 1}`, { x: 20, y: 100, size: 12, font });
    await writeFile(path, await pdf.save({ useObjectStreams: false }));
  }

  it('refuses a PDF that needs a password to open', async () => {
    await withTempDir(async (dir) => {
      const plain = join(dir, 'plain.pdf');
      await textPdf(plain);
      const path = join(dir, 'locked.pdf');
      execFileSync('qpdf', ['--encrypt', 'secret', 'owner', '256', '--', plain, path]);
      const error = await refusalOf(path);
      expect(error.message).toBe(`${path} is encrypted; remove the password and try again.`);
      expect(error.code).toBe(ERROR_CODES.ENCRYPTED_PDF);
    });
  });

  it('opens a PDF restricted by an owner password only (AES-256, AES-128, RC4), text pages and all, and leaves no decrypted copy', async () => {
    await withTempDir(async (dir) => {
      const plain = join(dir, 'plain.pdf');
      await textPdf(plain);
      const before = readdirSync(tmpdir()).filter((f) => f.startsWith(`quire-input-${process.pid}-`));
      for (const cipher of [['256'], ['128', '--use-aes=y'], ['128', '--use-aes=n']]) {
        const path = join(dir, `owner-${cipher.join('')}.pdf`);
        execFileSync('qpdf', ['--allow-weak-crypto', '--encrypt', '', 'owner', ...cipher, '--', plain, path]);
        const opened = await openInput(path);
        try {
          expect(opened.frames).toHaveLength(3);
          const layer = opened.frames[1].textLayer;
          expect(layer, 'a text page of an owner-password PDF can be kept as it is').toBeDefined();
          const words = (await layer!.textContent()).blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words.map((w) => w.text))));
          expect(words.join(' ')).toBe('Page 2');
        } finally {
          await opened.close();
        }
      }
      expect(readdirSync(tmpdir()).filter((f) => f.startsWith(`quire-input-${process.pid}-`))).toEqual(before);
    });
  });

  it('refuses a truncated PDF and an empty file', async () => {
    await withTempDir(async (dir) => {
      const whole = join(dir, 'whole.pdf');
      await textPdf(whole);
      const bytes = await readFile(whole);
      const truncated = join(dir, 'truncated.pdf');
      await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 3)));
      const error = await refusalOf(truncated);
      expect(error.message).toBe(`${truncated} is not a readable PDF: it is damaged or incomplete.`);
      expect(error.code).toBe(ERROR_CODES.BAD_PDF);

      const empty = join(dir, 'empty.pdf');
      await writeFile(empty, '');
      const emptyError = await refusalOf(empty);
      expect(emptyError.message).toBe(`${empty} is not a readable PDF: the file is empty.`);
      expect(emptyError.code).toBe(ERROR_CODES.BAD_PDF);
    });
  });
});
