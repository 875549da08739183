/**
 * Just enough TIFF reading to lift the CCITT G4 data of a bitonal page out of its file, so the
 * PDF writer can embed it byte for byte instead of decoding and re-encoding the page.
 */

const TAG = {
  imageWidth: 256,
  imageLength: 257,
  bitsPerSample: 258,
  compression: 259,
  photometric: 262,
  fillOrder: 266,
  stripOffsets: 273,
  orientation: 274,
  samplesPerPixel: 277,
  rowsPerStrip: 278,
  stripByteCounts: 279,
  t6Options: 293,
  tileWidth: 322,
  tileLength: 323,
  tileOffsets: 324,
  tileByteCounts: 325,
} as const;

const COMPRESSION_G4 = 4;

/** The first image of a TIFF file, as far as embedding its data is concerned. */
export interface TiffLayout {
  width: number;
  height: number;
  bitsPerSample: number;
  samplesPerPixel: number;
  compression: number;
  /** 0: WhiteIsZero (min-is-white), 1: BlackIsZero (min-is-black). */
  photometric: number;
  fillOrder: number;
  orientation: number;
  t6Options: number;
  /** Set when the image is stored in tiles; otherwise it is stored in strips. */
  tile?: { width: number; height: number };
  rowsPerStrip: number;
  /** One offset and byte count per strip or tile. */
  offsets: number[];
  byteCounts: number[];
}

/** The G4 data of a page stored as one tile or one strip, ready for `/CCITTFaxDecode`. */
export interface G4Segment {
  /** Coded width: the tile width when tiled (may exceed the page width), else the page width. */
  columns: number;
  /** Rows of the page; a tile may hold more rows, the decoder stops here. */
  rows: number;
  /** The page's width in pixels (≤ columns). */
  width: number;
  /** True when the data codes black as 1 (a min-is-black TIFF). */
  blackIs1: boolean;
  data: Uint8Array;
}

const TYPE_SIZES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 16: 8 };

/** Read the layout of the first image directory; undefined when the bytes are not a classic TIFF. */
export function readTiffLayout(bytes: Uint8Array): TiffLayout | undefined {
  if (bytes.length < 8) return undefined;
  const little = bytes[0] === 0x49 && bytes[1] === 0x49;
  const big = bytes[0] === 0x4d && bytes[1] === 0x4d;
  if (!little && !big) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (at: number): number => view.getUint16(at, little);
  const u32 = (at: number): number => view.getUint32(at, little);
  // 42 is classic TIFF; BigTIFF (43) is never written for a page and is left to sharp.
  if (u16(2) !== 42) return undefined;
  const ifd = u32(4);
  if (ifd + 2 > bytes.length) return undefined;
  const count = u16(ifd);
  if (ifd + 2 + count * 12 > bytes.length) return undefined;

  const tags = new Map<number, number[]>();
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    const tag = u16(entry);
    const type = u16(entry + 2);
    const n = u32(entry + 4);
    // Only integer tags matter here; resolution and text tags are skipped.
    if (type !== 3 && type !== 4) continue;
    const size = TYPE_SIZES[type] * n;
    const at = size <= 4 ? entry + 8 : u32(entry + 8);
    if (at + size > bytes.length) return undefined;
    const values: number[] = [];
    for (let k = 0; k < n; k++) values.push(type === 3 ? u16(at + 2 * k) : u32(at + 4 * k));
    tags.set(tag, values);
  }

  const one = (tag: number, fallback: number): number => tags.get(tag)?.[0] ?? fallback;
  const width = one(TAG.imageWidth, 0);
  const height = one(TAG.imageLength, 0);
  if (width <= 0 || height <= 0) return undefined;
  const tiled = tags.has(TAG.tileWidth) && tags.has(TAG.tileLength);
  return {
    width,
    height,
    bitsPerSample: one(TAG.bitsPerSample, 1),
    samplesPerPixel: one(TAG.samplesPerPixel, 1),
    compression: one(TAG.compression, 1),
    photometric: one(TAG.photometric, 0),
    fillOrder: one(TAG.fillOrder, 1),
    orientation: one(TAG.orientation, 1),
    t6Options: one(TAG.t6Options, 0),
    tile: tiled ? { width: one(TAG.tileWidth, 0), height: one(TAG.tileLength, 0) } : undefined,
    rowsPerStrip: one(TAG.rowsPerStrip, height),
    offsets: tags.get(tiled ? TAG.tileOffsets : TAG.stripOffsets) ?? [],
    byteCounts: tags.get(tiled ? TAG.tileByteCounts : TAG.stripByteCounts) ?? [],
  };
}

/**
 * The page's G4 data when the whole page is one G4 tile or strip that a PDF reader decodes as is;
 * undefined otherwise (the caller re-encodes). Several strips or tiles cannot be joined: each
 * restarts from an all-white reference line.
 */
export function singleG4Segment(bytes: Uint8Array): G4Segment | undefined {
  const layout = readTiffLayout(bytes);
  if (!layout || !isEmbeddableG4(layout)) return undefined;
  const [offset] = layout.offsets;
  const [length] = layout.byteCounts;
  if (offset + length > bytes.length || length === 0) return undefined;
  return {
    columns: layout.tile ? layout.tile.width : layout.width,
    rows: layout.height,
    width: layout.width,
    blackIs1: layout.photometric === 1,
    data: bytes.subarray(offset, offset + length),
  };
}

function isEmbeddableG4(layout: TiffLayout): boolean {
  const singleSegment = layout.offsets.length === 1 && layout.byteCounts.length === 1;
  const coversPage = layout.tile ? layout.tile.width >= layout.width && layout.tile.height >= layout.height : layout.rowsPerStrip >= layout.height;
  return (
    layout.compression === COMPRESSION_G4 &&
    layout.bitsPerSample === 1 &&
    layout.samplesPerPixel === 1 &&
    (layout.photometric === 0 || layout.photometric === 1) &&
    // PDF decoders read bits most significant first, and know nothing of TIFF orientation.
    layout.fillOrder === 1 &&
    layout.orientation === 1 &&
    // Bit 1 allows uncompressed runs, which not every PDF reader decodes.
    (layout.t6Options & 2) === 0 &&
    singleSegment &&
    coversPage
  );
}
