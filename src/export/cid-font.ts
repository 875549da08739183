import { PDFName, PDFString, type PDFContext, type PDFRef } from 'pdf-lib';
import { deflatedStream } from './pdf-deflate.js';

/**
 * The invisible font of the text layer: a Type0 font (`/Identity-H`) whose CIDFontType2
 * descendant embeds a tiny TrueType program with one empty glyph. Every CID draws that glyph
 * with the same advance, so any character can be placed; a ToUnicode CMap gives each CID its
 * character back, which is all that search, selection and copy need.
 *
 * CID = the character's UTF-16 code unit for the BMP. A character outside the BMP gets a CID of
 * its own from the surrogate range (D800–DFFF never holds a BMP character), mapped by the CMap
 * to its surrogate pair: readers then see one character with one advance, never two halves.
 */

export const GLYPHLESS_FONT_NAME = 'QuireGlyphless';

/** Font units per em, and the one advance every CID has (half an em, as Tesseract's font). */
export const FONT_UNITS = 1000;
export const GLYPH_ADVANCE = 500;

/**
 * Ascent and descent in font units; they add up to one em, so a font size equal to the line's
 * height makes readers' word boxes (baseline − ascent … baseline − descent) span the line.
 */
export const FONT_ASCENT = 800;
export const FONT_DESCENT = -200;

const SPACE_CID = 0x20;
const REPLACEMENT_CID = 0xfffd;
const FIRST_ASTRAL_CID = 0xd800;
const LAST_ASTRAL_CID = 0xdfff;
/** An Adobe CMap limit: at most 100 entries per `beginbfrange`/`beginbfchar` block. */
const CMAP_BLOCK = 100;

/**
 * One per PDF: turns text into CIDs, remembering which CID stands for each character outside
 * the BMP, then writes the font objects once every page has been encoded.
 */
export class UnicodeCidFont {
  private readonly astral = new Map<number, number>();

  /**
   * The CIDs that show `text`, one per character. Lone surrogates (broken strings) and
   * characters beyond the 2048 distinct non-BMP ones a font can hold become U+FFFD.
   */
  encode(text: string): number[] {
    const cids: number[] = [];
    for (const char of text) {
      const code = char.codePointAt(0) ?? REPLACEMENT_CID;
      if (code >= 0x10000) cids.push(this.astralCid(code));
      else if (code >= FIRST_ASTRAL_CID && code <= LAST_ASTRAL_CID) cids.push(REPLACEMENT_CID);
      else cids.push(code);
    }
    return cids;
  }

  /** The CID of a space, which readers take as a word break. */
  get spaceCid(): number {
    return SPACE_CID;
  }

  /** The ToUnicode CMap: the BMP identity, plus one entry per character outside it in use. */
  toUnicodeCMap(): string {
    return toUnicodeCMap([...this.astral].map(([code, cid]) => ({ cid, text: String.fromCodePoint(code) })));
  }

  /** Write the Type0 font and all it needs under `fontRef` (reserved with `context.nextRef()`). */
  writeTo(context: PDFContext, fontRef: PDFRef): void {
    const program = glyphlessTrueType();
    const fontFile = context.register(deflatedStream(context, program, { Length1: program.length }));
    const descriptor = context.register(
      context.obj({
        Type: 'FontDescriptor',
        FontName: GLYPHLESS_FONT_NAME,
        // Fixed pitch (1) + symbolic (4): the glyph set is not the standard Latin one.
        Flags: 5,
        FontBBox: [0, FONT_DESCENT, GLYPH_ADVANCE, FONT_ASCENT],
        ItalicAngle: 0,
        Ascent: FONT_ASCENT,
        Descent: FONT_DESCENT,
        CapHeight: FONT_ASCENT,
        StemV: 80,
        FontFile2: fontFile,
      }),
    );
    const cidToGid = context.register(deflatedStream(context, allCidsToGlyphOne()));
    const cidFont = context.register(
      context.obj({
        Type: 'Font',
        Subtype: 'CIDFontType2',
        BaseFont: GLYPHLESS_FONT_NAME,
        CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
        FontDescriptor: descriptor,
        DW: GLYPH_ADVANCE,
        W: [0, 0xffff, GLYPH_ADVANCE],
        CIDToGIDMap: cidToGid,
      }),
    );
    const toUnicode = context.register(deflatedStream(context, this.toUnicodeCMap()));
    context.assign(
      fontRef,
      context.obj({
        Type: 'Font',
        Subtype: 'Type0',
        BaseFont: GLYPHLESS_FONT_NAME,
        Encoding: PDFName.of('Identity-H'),
        DescendantFonts: [cidFont],
        ToUnicode: toUnicode,
      }),
    );
  }

  private astralCid(code: number): number {
    const known = this.astral.get(code);
    if (known !== undefined) return known;
    const next = FIRST_ASTRAL_CID + this.astral.size;
    if (next > LAST_ASTRAL_CID) return REPLACEMENT_CID;
    this.astral.set(code, next);
    return next;
  }
}

/** CIDs as the hex string operand of `Tj` (two bytes each, Identity-H). */
export function cidsToHex(cids: readonly number[]): string {
  let hex = '';
  for (const cid of cids) hex += cid.toString(16).toUpperCase().padStart(4, '0');
  return `<${hex}>`;
}

/**
 * A ToUnicode CMap. Ranges change only the last byte (the PDF rule for `bfrange`), so the BMP
 * identity is one range per high byte, skipping the surrogate rows that hold `extra` CIDs.
 */
export function toUnicodeCMap(extra: readonly { cid: number; text: string }[]): string {
  const ranges: string[] = [];
  for (let high = 0; high < 0x100; high++) {
    if (high >= FIRST_ASTRAL_CID >> 8 && high <= LAST_ASTRAL_CID >> 8) continue;
    const start = hex4(high << 8);
    ranges.push(`<${start}> <${hex4((high << 8) | 0xff)}> <${start}>`);
  }
  const chars = extra.map(({ cid, text }) => `<${hex4(cid)}> <${utf16Hex(text)}>`);
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <FFFF>',
    'endcodespacerange',
    ...blocks(ranges, 'bfrange'),
    ...blocks(chars, 'bfchar'),
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
    '',
  ].join('\n');
}

function blocks(entries: readonly string[], kind: 'bfrange' | 'bfchar'): string[] {
  const lines: string[] = [];
  for (let i = 0; i < entries.length; i += CMAP_BLOCK) {
    const block = entries.slice(i, i + CMAP_BLOCK);
    lines.push(`${block.length} begin${kind}`, ...block, `end${kind}`);
  }
  return lines;
}

function hex4(value: number): string {
  return value.toString(16).toUpperCase().padStart(4, '0');
}

function utf16Hex(text: string): string {
  let hex = '';
  for (let i = 0; i < text.length; i++) hex += hex4(text.charCodeAt(i));
  return hex;
}

/** The CIDToGIDMap: two bytes per CID, every one pointing at glyph 1 (deflates to ~150 bytes). */
function allCidsToGlyphOne(): Uint8Array {
  const map = new Uint8Array(2 * 0x10000);
  for (let i = 1; i < map.length; i += 2) map[i] = 1;
  return map;
}

// ---------------------------------------------------------------------------------------------
// The TrueType program: two glyphs (.notdef and a blank one), no outlines, no instructions.

interface Table {
  tag: string;
  data: Uint8Array;
}

/** A big-endian byte writer for the font tables. */
class Bytes {
  private readonly parts: number[] = [];

  u8(value: number): this {
    this.parts.push(value & 0xff);
    return this;
  }
  u16(value: number): this {
    return this.u8(value >> 8).u8(value);
  }
  i16(value: number): this {
    return this.u16(value < 0 ? value + 0x10000 : value);
  }
  u32(value: number): this {
    return this.u16(Math.floor(value / 0x10000) & 0xffff).u16(value & 0xffff);
  }
  ascii(text: string): this {
    for (const char of text) this.u8(char.charCodeAt(0));
    return this;
  }
  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

const GLYPH_COUNT = 2;

/** The font program (about 720 bytes), built once per PDF; byte-identical on every call. */
export function glyphlessTrueType(): Uint8Array {
  const tables: Table[] = [
    { tag: 'OS/2', data: os2Table() },
    { tag: 'cmap', data: cmapTable() },
    { tag: 'glyf', data: blankGlyph() },
    { tag: 'head', data: headTable() },
    { tag: 'hhea', data: hheaTable() },
    { tag: 'hmtx', data: hmtxTable() },
    // Short offsets (half the byte offset): .notdef is empty, glyph 1 is the blank record.
    {
      tag: 'loca',
      data: new Bytes()
        .u16(0)
        .u16(0)
        .u16(blankGlyph().length / 2)
        .done(),
    },
    { tag: 'maxp', data: maxpTable() },
    { tag: 'name', data: nameTable() },
    { tag: 'post', data: postTable() },
  ];
  return assembleFont(tables);
}

function assembleFont(tables: Table[]): Uint8Array {
  const sorted = [...tables].sort((a, b) => (a.tag < b.tag ? -1 : 1));
  const headerLength = 12 + 16 * sorted.length;
  let offset = headerLength;
  const placed = sorted.map((table) => {
    const at = offset;
    offset += padded(table.data.length);
    return { ...table, offset: at };
  });
  const font = new Uint8Array(offset);
  const view = new DataView(font.buffer);
  const power = 2 ** Math.floor(Math.log2(sorted.length));
  view.setUint32(0, 0x00010000);
  view.setUint16(4, sorted.length);
  view.setUint16(6, power * 16);
  view.setUint16(8, Math.log2(power));
  view.setUint16(10, sorted.length * 16 - power * 16);
  placed.forEach((table, i) => {
    const record = 12 + 16 * i;
    for (let c = 0; c < 4; c++) view.setUint8(record + c, table.tag.charCodeAt(c));
    view.setUint32(record + 4, checksum(table.data));
    view.setUint32(record + 8, table.offset);
    view.setUint32(record + 12, table.data.length);
    font.set(table.data, table.offset);
  });
  // head.checkSumAdjustment makes the whole file sum to the magic number.
  const head = placed.find((table) => table.tag === 'head');
  if (head) view.setUint32(head.offset + 8, (0xb1b0afba - checksum(font)) >>> 0);
  return font;
}

function padded(length: number): number {
  return Math.ceil(length / 4) * 4;
}

function checksum(data: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < data.length; i += 4) {
    const word = ((data[i] << 24) | ((data[i + 1] ?? 0) << 16) | ((data[i + 2] ?? 0) << 8) | (data[i + 3] ?? 0)) >>> 0;
    sum = (sum + word) >>> 0;
  }
  return sum;
}

/**
 * Glyph 1: a simple glyph with no contours. Readers skip a zero-length glyf table as missing
 * (pdf.js warns), so the blank glyph is spelled out rather than left empty.
 */
function blankGlyph(): Uint8Array {
  return new Bytes()
    .i16(0) // numberOfContours
    .i16(0)
    .i16(0)
    .i16(0)
    .i16(0) // xMin yMin xMax yMax
    .u16(0) // instructionLength
    .done();
}

function headTable(): Uint8Array {
  return new Bytes()
    .u32(0x00010000) // version
    .u32(0x00010000) // fontRevision
    .u32(0) // checkSumAdjustment, set once the font is assembled
    .u32(0x5f0f3cf5) // magicNumber
    .u16(0x000b) // flags: baseline at y=0, lsb at x=0, integer scaling
    .u16(FONT_UNITS)
    .u32(0)
    .u32(0) // created (fixed, so the output is reproducible)
    .u32(0)
    .u32(0) // modified
    .i16(0)
    .i16(FONT_DESCENT)
    .i16(GLYPH_ADVANCE)
    .i16(FONT_ASCENT) // xMin yMin xMax yMax
    .u16(0) // macStyle
    .u16(8) // lowestRecPPEM
    .i16(2) // fontDirectionHint
    .i16(0) // indexToLocFormat: short offsets
    .i16(0) // glyphDataFormat
    .done();
}

function hheaTable(): Uint8Array {
  return new Bytes()
    .u32(0x00010000)
    .i16(FONT_ASCENT)
    .i16(FONT_DESCENT)
    .i16(0) // lineGap
    .u16(GLYPH_ADVANCE) // advanceWidthMax
    .i16(0)
    .i16(0)
    .i16(0) // minLeftSideBearing, minRightSideBearing, xMaxExtent
    .i16(1)
    .i16(0)
    .i16(0) // caretSlopeRise, caretSlopeRun, caretOffset
    .i16(0)
    .i16(0)
    .i16(0)
    .i16(0) // reserved
    .i16(0) // metricDataFormat
    .u16(GLYPH_COUNT) // numberOfHMetrics
    .done();
}

function hmtxTable(): Uint8Array {
  const table = new Bytes();
  for (let glyph = 0; glyph < GLYPH_COUNT; glyph++) table.u16(GLYPH_ADVANCE).i16(0);
  return table.done();
}

function maxpTable(): Uint8Array {
  const table = new Bytes().u32(0x00010000).u16(GLYPH_COUNT);
  // maxPoints … maxComponentDepth: nothing to draw, nothing to hint; maxZones is 2 by convention.
  const limits = [0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0];
  for (const limit of limits) table.u16(limit);
  return table.done();
}

/** A Windows Unicode cmap that maps nothing: PDF readers go through CIDToGIDMap instead. */
function cmapTable(): Uint8Array {
  return new Bytes()
    .u16(0) // version
    .u16(1) // one subtable
    .u16(3)
    .u16(1)
    .u32(12) // Windows, Unicode BMP, at offset 12
    .u16(4) // format 4
    .u16(24) // length
    .u16(0) // language
    .u16(2) // segCountX2
    .u16(2) // searchRange
    .u16(0) // entrySelector
    .u16(0) // rangeShift
    .u16(0xffff) // endCode
    .u16(0) // reservedPad
    .u16(0xffff) // startCode
    .i16(1) // idDelta: 0xFFFF → glyph 0
    .u16(0) // idRangeOffset
    .done();
}

function nameTable(): Uint8Array {
  const names: [number, string][] = [
    [1, GLYPHLESS_FONT_NAME],
    [2, 'Regular'],
    [3, `${GLYPHLESS_FONT_NAME}-1.0`],
    [4, GLYPHLESS_FONT_NAME],
    [5, 'Version 1.0'],
    [6, GLYPHLESS_FONT_NAME],
  ];
  const table = new Bytes()
    .u16(0)
    .u16(names.length)
    .u16(6 + 12 * names.length);
  const strings = new Bytes();
  let offset = 0;
  for (const [id, text] of names) {
    // Windows, Unicode BMP, US English; strings are UTF-16BE.
    table
      .u16(3)
      .u16(1)
      .u16(0x409)
      .u16(id)
      .u16(text.length * 2)
      .u16(offset);
    for (const char of text) strings.u16(char.charCodeAt(0));
    offset += text.length * 2;
  }
  const head = table.done();
  const body = strings.done();
  const all = new Uint8Array(head.length + body.length);
  all.set(head);
  all.set(body, head.length);
  return all;
}

function os2Table(): Uint8Array {
  const table = new Bytes()
    .u16(4) // version
    .i16(GLYPH_ADVANCE) // xAvgCharWidth
    .u16(400) // usWeightClass
    .u16(5) // usWidthClass
    .u16(0) // fsType: installable, embedding unrestricted
    .i16(650)
    .i16(600)
    .i16(0)
    .i16(75) // subscript x/y size, x/y offset
    .i16(650)
    .i16(600)
    .i16(0)
    .i16(350) // superscript
    .i16(50)
    .i16(250) // strikeout size, position
    .i16(0); // sFamilyClass
  for (let i = 0; i < 10; i++) table.u8(0); // panose
  table
    .u32(0)
    .u32(0)
    .u32(0)
    .u32(0) // ulUnicodeRange1–4
    .ascii('QUIR') // achVendID
    .u16(0x0040) // fsSelection: regular
    .u16(0x0020)
    .u16(0xffff) // usFirstCharIndex, usLastCharIndex
    .i16(FONT_ASCENT)
    .i16(FONT_DESCENT)
    .i16(0) // sTypo ascender, descender, line gap
    .u16(FONT_ASCENT)
    .u16(-FONT_DESCENT) // usWinAscent, usWinDescent
    .u32(1)
    .u32(0) // ulCodePageRange1–2
    .i16(500)
    .i16(FONT_ASCENT) // sxHeight, sCapHeight
    .u16(0)
    .u16(0x20)
    .u16(1); // usDefaultChar, usBreakChar, usMaxContext
  return table.done();
}

/** post 3.0: no glyph names to carry. */
function postTable(): Uint8Array {
  return new Bytes()
    .u32(0x00030000)
    .u32(0) // italicAngle
    .i16(-100)
    .i16(50) // underline position, thickness
    .u32(1) // isFixedPitch
    .u32(0)
    .u32(0)
    .u32(0)
    .u32(0) // memory hints
    .done();
}
