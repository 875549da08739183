import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { inflate as inflateCallback } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, type PDFObject, type PDFPage } from 'pdf-lib';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { checkImagePixels, MAX_IMAGE_PIXELS } from '../imaging/index.js';
import { workFolderPrefix } from '../project/index.js';
import { readPageContent, type Matrix } from './pdf-content.js';
import { hasRealText, ocrPageFromText, type PdfTextContent } from './pdf-text.js';
import type { FrameImage, FrameKind, OpenedInput, SourceFrame, TextLayerPage } from './types.js';

/** Rasterising: 300 dpi keeps 7 pt text and above crisp for OCR; smaller text gets more, up to 600. */
export const DEFAULT_RENDER_DPI = 300;
export const MAX_RENDER_DPI = 600;
const SMALL_TEXT_PT = 7;
/** Text under 2 pt is not read by anyone (hidden text, hairline labels); it does not raise the resolution. */
const IGNORED_TEXT_PT = 2;
/** The smallest text is the smallest size used by at least this many characters, so one stray superscript does not count. */
const SMALL_TEXT_MIN_CHARS = 10;
/** 40 Mpx is A4 at 600 dpi with a little room; bigger pages are rendered at less (an RGBA page is 4 bytes a pixel). */
export const MAX_RENDER_PIXELS = 40_000_000;
/** A scan image within 2% of every page edge is the page: take it as is. */
const EDGE_TOLERANCE = 0.02;
/** A single image over at least half the page is still a scan, placed on a larger sheet: rasterise it at its own resolution. */
const SCAN_MIN_COVER = 0.5;
/** A PDF made from images with no resolution (ImageMagick, some phone apps) gets 72 dpi pages: that says nothing. */
const UNKNOWN_DPI = 72;
/** How long to wait for pdfjs to hand over a decoded image before rendering the page instead. */
const OBJECT_WAIT_MS = 30_000;

/** How a page becomes pixels. */
type PagePlan =
  /** The page is one DCT image: its stream is a JPEG file already, `offset`/`length` in the PDF file. */
  | { mode: 'jpeg'; kind: 'scan'; dpi: number; offset: number; length: number; width: number; height: number; gray: boolean }
  /**
   * The page is one Flate image of 8-bit grey or RGB, or 1-bit grey, without predictor (what pdf-lib and many scanner
   * drivers write): zlib inflates its stream, `offset`/`length` in the PDF file, off the main thread.
   */
  | { mode: 'flate'; kind: 'scan'; dpi: number; offset: number; length: number; width: number; height: number; gray: boolean; channels: 1 | 3; bits: 1 | 8 }
  /** The page is one image in another encoding: pdfjs decodes it, pixels unchanged. */
  | { mode: 'pixels'; kind: 'scan'; dpi: number; width: number; height: number; gray: boolean }
  /** Rendered by pdfjs at `dpi`. */
  | { mode: 'render'; kind: FrameKind; dpi: number };

interface Pdfjs {
  getDocument: typeof import('pdfjs-dist/legacy/build/pdf.mjs').getDocument;
  OPS: typeof import('pdfjs-dist/legacy/build/pdf.mjs').OPS;
  ImageKind: typeof import('pdfjs-dist/legacy/build/pdf.mjs').ImageKind;
  VerbosityLevel: typeof import('pdfjs-dist/legacy/build/pdf.mjs').VerbosityLevel;
}

/** pdfjs is large; load it only when a PDF is opened. */
async function loadPdfjs(): Promise<Pdfjs> {
  return import('pdfjs-dist/legacy/build/pdf.mjs');
}

/** Fonts, CMaps, colour profiles and decoders that pdfjs reads from its own package (never from the network). */
function pdfjsAssets(): { standardFontDataUrl: string; cMapUrl: string; iccUrl: string; wasmUrl: string } {
  const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  const folder = (name: string) => join(root, name) + '/';
  return { standardFontDataUrl: folder('standard_fonts'), cMapUrl: folder('cmaps'), iccUrl: folder('iccs'), wasmUrl: folder('wasm') };
}

/**
 * Open a PDF: parse it now (so a locked or broken file is refused before any work), decide for every page how
 * it becomes pixels, and render nothing until a frame is loaded. A PDF restricted by an owner password only (it
 * opens without a password) is read through a decrypted copy in a working folder of its own, removed at `close()`;
 * one that needs a password to open is refused.
 */
export async function openPdf(path: string, label: string): Promise<OpenedInput> {
  const bytes = await readFile(path);
  if (bytes.length === 0) throw new QuireError(ERROR_CODES.BAD_PDF, `${label} is not a readable PDF: the file is empty.`);
  return openPdfBytes(path, bytes, label, 'as-is');
}

/** `as-is`: the file as given; `decrypted`: our decrypted copy; `pdfjs-only`: an encrypted file read by pdfjs alone. */
type OpenMode = 'as-is' | 'decrypted' | 'pdfjs-only';

async function openPdfBytes(path: string, bytes: Buffer, label: string, mode: OpenMode): Promise<OpenedInput> {
  const pdfjs = await loadPdfjs();
  const doc = await parseWithPdfjs(pdfjs, bytes, label);
  try {
    const locked = (await doc.getPermissions()) !== null;
    const structure = mode === 'pdfjs-only' || (locked && mode === 'as-is') ? null : await parseWithPdfLib(bytes);
    if (mode !== 'pdfjs-only' && (locked || structure?.isEncrypted)) {
      // pdfjs opened it without a password, so only an owner password guards it: read a decrypted copy.
      if (mode === 'decrypted') throw encrypted(label, 'still encrypted after decryption');
      await doc.destroy();
      return openDecrypted(path, bytes, label);
    }
    const pages = structure && structure.getPageCount() === doc.numPages ? structure.getPages() : null;
    if (doc.numPages === 0) throw new QuireError(ERROR_CODES.BAD_PDF, `${label} is not a readable PDF: it has no pages.`);
    const plans: PlannedPage[] = [];
    for (let n = 1; n <= doc.numPages; n++) plans.push(await planPage(doc, n, pages?.[n - 1], bytes, label));
    const name = basename(label);
    const frames = plans.map(({ plan, text }, i): SourceFrame => {
      const dpi = plan.kind === 'scan' && Math.round(plan.dpi) === UNKNOWN_DPI ? undefined : plan.dpi;
      return {
        index: i + 1,
        input: `${name}#${i + 1}`,
        kind: plan.kind,
        ...(dpi === undefined ? {} : { dpi: { value: dpi, source: 'pdf' as const } }),
        load: () => loadPage(pdfjs, doc, i + 1, plan, path, label),
        // Only a page pdf-lib can read can be copied into the output as it is.
        ...(text && pages ? { textLayer: textLayerPage(doc, i + 1, plan.dpi, text, path, label) } : {}),
      };
    });
    return { name: name.replace(/\.pdf$/i, ''), kind: 'pdf', frames, close: () => doc.destroy() };
  } catch (e) {
    await doc.destroy();
    throw e;
  }
}

/**
 * An owner-password PDF, decrypted into a working folder named after this process (a killed run's is removed by the
 * next) and opened from there, so its JPEG pages can be taken byte for byte and its text pages copied as they are.
 * When the decryption fails, pdfjs alone reads it: every page is rasterised.
 */
async function openDecrypted(path: string, bytes: Buffer, label: string): Promise<OpenedInput> {
  let plain: Uint8Array;
  try {
    const { PDFDocument: DecryptingPdf, PDFDict: Dict, PDFInvalidObject: Invalid, PDFName: Name, PDFRawStream: RawStream } = await import('@cantoo/pdf-lib');
    const decrypted = await DecryptingPdf.load(bytes, { password: '', updateMetadata: false });
    // The file's own structure comes along as plain objects: its cross-reference streams (which still name the
    // /Encrypt dictionary, so a reader trusting them takes the copy for encrypted), its object streams and the
    // /Encrypt dictionary itself. The new file gets its own; these go.
    const structural = /\/Type\s*\/(XRef|ObjStm)\b/;
    for (const [ref, object] of decrypted.context.enumerateIndirectObjects()) {
      const dict = object instanceof Dict ? object : object instanceof RawStream ? object.dict : undefined;
      const type = dict?.get(Name.of('Type'));
      const isEncryptDict = dict !== undefined && dict.get(Name.of('Filter')) === Name.of('Standard') && dict.has(Name.of('O')) && dict.has(Name.of('U'));
      const isStructure = type === Name.of('XRef') || type === Name.of('ObjStm') || (object instanceof Invalid && structural.test(rawText(object)));
      if (isEncryptDict || isStructure) decrypted.context.delete(ref);
    }
    // A whole new file: an incremental save would keep the encrypted original under the decrypted objects.
    plain = await decrypted.save({ rewrite: true, useObjectStreams: false, addDefaultPage: false, updateFieldAppearances: false });
  } catch {
    return openPdfBytes(path, bytes, label, 'pdfjs-only');
  }
  const folder = await mkdtemp(workFolderPrefix('input'));
  try {
    const copy = join(folder, 'decrypted.pdf');
    await writeFile(copy, plain);
    const opened = await openPdfBytes(copy, Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength), label, 'decrypted');
    return {
      ...opened,
      close: async () => {
        await opened.close();
        await rm(folder, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await rm(folder, { recursive: true, force: true });
    throw e;
  }
}

/** The bytes of an object the parser could not read, as text. */
function rawText(object: { sizeInBytes(): number; copyBytesInto(buffer: Uint8Array, offset: number): number }): string {
  const raw = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(raw, 0);
  return Buffer.from(raw).toString('latin1');
}

function encrypted(label: string, detail?: string): QuireError {
  return new QuireError(ERROR_CODES.ENCRYPTED_PDF, `${label} is encrypted; remove the password and try again.`, detail);
}

function unreadable(label: string, detail?: string): QuireError {
  return new QuireError(ERROR_CODES.BAD_PDF, `${label} is not a readable PDF: it is damaged or incomplete.`, detail);
}

async function parseWithPdfjs(pdfjs: Pdfjs, bytes: Buffer, label: string): Promise<PDFDocumentProxy> {
  const task = pdfjs.getDocument({
    // pdfjs takes ownership of (and may detach) what it is given: hand it a copy.
    data: new Uint8Array(bytes),
    ...pdfjsAssets(),
    isEvalSupported: false,
    // An image past the limit that slipped by the check of each page is left blank rather than decoded.
    maxImageSize: MAX_IMAGE_PIXELS,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    return await task.promise;
  } catch (e) {
    await task.destroy();
    if (e instanceof Error && e.name === 'PasswordException') throw encrypted(label, describeError(e));
    throw unreadable(label, describeError(e));
  }
}

/**
 * pdf-lib gives us the raw image streams pdfjs keeps to itself (the caller checks `isEncrypted`). It is stricter
 * than pdfjs: when it fails, every page is rasterised.
 */
async function parseWithPdfLib(bytes: Buffer): Promise<PDFDocument | null> {
  try {
    return await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch {
    return null;
  }
}

/** A page's plan, and its size in pixels at the plan's resolution when it has text of its own. */
interface PlannedPage {
  plan: PagePlan;
  text?: { width: number; height: number };
}

async function planPage(doc: PDFDocumentProxy, n: number, structure: PDFPage | undefined, bytes: Buffer, label: string): Promise<PlannedPage> {
  let page: PDFPageProxy;
  try {
    page = await doc.getPage(n);
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_PDF, `${label} is not a readable PDF: page ${n} is damaged.`, describeError(e));
  }
  try {
    const [x0, y0, x1, y1] = page.view;
    const size = { width: Math.abs(x1 - x0), height: Math.abs(y1 - y0) };
    // Text pdfjs cannot read counts as none: the page is then rasterised and OCR'd, as before.
    const content: PdfTextContent | undefined = await page.getTextContent().catch(() => undefined);
    const scan = structure ? planScanSafely(structure, bytes, `${label}: page ${n}`) : null;
    const plan: PagePlan = scan
      ? scan.mode === 'render'
        ? { ...scan, dpi: capDpi(scan.dpi, size) }
        : scan
      : { mode: 'render', kind: 'digital', dpi: capDpi(chooseRenderDpi(content && smallestTextPt(content)), size) };
    if (!content || !hasRealText(content)) return { plan };
    const viewport = page.getViewport({ scale: plan.dpi / 72 });
    return { plan, text: { width: Math.max(1, Math.round(viewport.width)), height: Math.max(1, Math.round(viewport.height)) } };
  } finally {
    page.cleanup();
  }
}

/** The frame's text layer: its words are read again only when asked for, so a long PDF's text never sits in memory. */
function textLayerPage(doc: PDFDocumentProxy, n: number, dpi: number, size: { width: number; height: number }, path: string, label: string): TextLayerPage {
  return {
    pdf: path,
    page: n,
    ...size,
    dpi,
    textContent: async () => {
      try {
        const page = await doc.getPage(n);
        try {
          const viewport = page.getViewport({ scale: dpi / 72 });
          const content: PdfTextContent = await page.getTextContent();
          return ocrPageFromText(content, { transform: viewport.transform, ...size, dpi });
        } finally {
          page.cleanup();
        }
      } catch (e) {
        throw new QuireError(ERROR_CODES.BAD_PDF, `${label} is damaged: the text of page ${n} cannot be read.`, describeError(e));
      }
    },
  };
}

/** The render resolution for a vector page whose smallest text is `smallestPt` (undefined: no text). */
export function chooseRenderDpi(smallestPt: number | undefined): number {
  if (smallestPt === undefined || smallestPt >= SMALL_TEXT_PT) return DEFAULT_RENDER_DPI;
  // Give small text the pixels 7 pt text gets at 300 dpi, in steps of 50 dpi.
  const wanted = Math.ceil((DEFAULT_RENDER_DPI * SMALL_TEXT_PT) / smallestPt / 50) * 50;
  return Math.min(MAX_RENDER_DPI, wanted);
}

/** Lower `dpi` so that a page of `size` points stays within MAX_RENDER_PIXELS. */
export function capDpi(dpi: number, size: { width: number; height: number }): number {
  const squareInches = (size.width / 72) * (size.height / 72);
  if (squareInches <= 0) return dpi;
  return Math.min(dpi, Math.floor(Math.sqrt(MAX_RENDER_PIXELS / squareInches)));
}

function smallestTextPt(content: PdfTextContent): number | undefined {
  const runs: Array<{ size: number; chars: number }> = [];
  for (const item of content.items) {
    if (!('str' in item && 'transform' in item)) continue;
    const chars = item.str.replace(/\s+/g, '').length;
    // The text matrix's vertical vector is the font size on the page, rotation included.
    const size = Math.hypot(item.transform[2], item.transform[3]);
    if (chars > 0 && size >= IGNORED_TEXT_PT) runs.push({ size, chars });
  }
  if (runs.length === 0) return undefined;
  runs.sort((a, b) => a.size - b.size);
  const total = runs.reduce((n, r) => n + r.chars, 0);
  const needed = Math.min(SMALL_TEXT_MIN_CHARS, total);
  let seen = 0;
  for (const run of runs) {
    seen += run.chars;
    if (seen >= needed) return run.size;
  }
  return runs[runs.length - 1].size;
}

/** pdf-lib throws on objects of an unexpected type (a malformed but renderable page): rasterise those. */
function planScanSafely(page: PDFPage, bytes: Buffer, what: string): PagePlan | null {
  try {
    return planScan(page, bytes, what);
  } catch (e) {
    if (e instanceof QuireError) throw e;
    return null;
  }
}

/**
 * A page that is one scanned image, and how to take it; null when the page must be rasterised as a vector page.
 * An image on the page larger than Quire decodes is refused here, by the size its dictionary declares.
 */
function planScan(page: PDFPage, bytes: Buffer, what: string): PagePlan | null {
  const content = readPageContent(page);
  for (const drawn of content.images) {
    checkImagePixels(what, numberOf(drawn.stream.dict.lookup(PDFName.of('Width'))), numberOf(drawn.stream.dict.lookup(PDFName.of('Height'))));
  }
  if (content.unknown || content.visibleText || content.vector || content.images.length !== 1) return null;
  const image = content.images[0];
  const dict = image.stream.dict;
  const width = numberOf(dict.lookup(PDFName.of('Width')));
  const height = numberOf(dict.lookup(PDFName.of('Height')));
  if (!width || !height) return null;

  const crop = page.getCropBox();
  const rect = imageRect(image.ctm);
  const cover = overlapArea(rect, crop) / (crop.width * crop.height);
  if (!(cover >= SCAN_MIN_COVER)) return null;

  const [a, b, c, d] = image.ctm;
  const dpiX = width / (Math.hypot(a, b) / 72);
  const dpiY = height / (Math.hypot(c, d) / 72);
  const dpi = Math.round(Math.max(dpiX, dpiY));
  const upright = a > 0 && d > 0 && Math.abs(b) < 1e-3 * a && Math.abs(c) < 1e-3 * d;
  const squarePixels = Math.abs(dpiX - dpiY) <= 0.02 * Math.max(dpiX, dpiY);
  const rotation = ((page.getRotation().angle % 360) + 360) % 360;
  const plain = !dict.has(PDFName.of('SMask')) && !dict.has(PDFName.of('Mask')) && !dict.has(PDFName.of('Decode'));
  // Taken as is, the image must be the page exactly as a viewer shows it: not turned, flipped, masked or cropped.
  const fills = fillsPage(rect, crop);
  // Drawings under the image (a white background some producers paint first) only show if the image leaves room.
  if (content.vectorUnder && !(fills && plain)) return null;
  if (!(upright && squarePixels && rotation === 0 && plain && fills)) return { mode: 'render', kind: 'scan', dpi };

  const colour = colourOf(dict);
  const gray = colour === 'gray' || numberOf(dict.lookup(PDFName.of('BitsPerComponent'))) === 1;
  const filters = filterNames(dict.lookup(PDFName.of('Filter')));
  const contents = image.stream.contents;
  if (filters.length === 1 && filters[0] === 'DCTDecode' && colour !== 'other' && contents.buffer === bytes.buffer) {
    return { mode: 'jpeg', kind: 'scan', dpi, offset: contents.byteOffset - bytes.byteOffset, length: contents.length, width, height, gray };
  }
  const bits = numberOf(dict.lookup(PDFName.of('BitsPerComponent')));
  const device = nameOf(dict.lookup(PDFName.of('ColorSpace')));
  const channels = device === 'DeviceGray' ? 1 : device === 'DeviceRGB' && bits === 8 ? 3 : undefined;
  if (
    filters.length === 1 &&
    filters[0] === 'FlateDecode' &&
    !dict.has(PDFName.of('DecodeParms')) &&
    channels &&
    (bits === 8 || bits === 1) &&
    contents.buffer === bytes.buffer
  ) {
    return { mode: 'flate', kind: 'scan', dpi, offset: contents.byteOffset - bytes.byteOffset, length: contents.length, width, height, gray, channels, bits };
  }
  return { mode: 'pixels', kind: 'scan', dpi, width, height, gray };
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where the unit square lands under `ctm`: an image's bounding box on the page. */
export function imageRect(ctm: Matrix): Rect {
  const [a, b, c, d, e, f] = ctm;
  const xs = [e, e + a, e + c, e + a + c];
  const ys = [f, f + b, f + d, f + b + d];
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

function overlapArea(r: Rect, s: Rect): number {
  const w = Math.min(r.x + r.width, s.x + s.width) - Math.max(r.x, s.x);
  const h = Math.min(r.y + r.height, s.y + s.height) - Math.max(r.y, s.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Every edge of the image within EDGE_TOLERANCE of the page's edge. */
function fillsPage(r: Rect, page: Rect): boolean {
  const tx = EDGE_TOLERANCE * page.width;
  const ty = EDGE_TOLERANCE * page.height;
  return (
    Math.abs(r.x - page.x) <= tx &&
    Math.abs(r.x + r.width - (page.x + page.width)) <= tx &&
    Math.abs(r.y - page.y) <= ty &&
    Math.abs(r.y + r.height - (page.y + page.height)) <= ty
  );
}

function numberOf(value: PDFObject | undefined): number | undefined {
  return value instanceof PDFNumber ? value.asNumber() : undefined;
}

function nameOf(value: PDFObject | undefined): string | undefined {
  return value instanceof PDFName ? value.decodeText() : undefined;
}

function filterNames(value: PDFObject | undefined): string[] {
  if (value instanceof PDFName) return [value.decodeText()];
  if (value instanceof PDFArray) return value.asArray().map((v) => nameOf(v) ?? '?');
  return [];
}

/** Whether the image's JPEG bytes mean what the PDF means: plain grey or RGB (CMYK and indexed JPEGs differ). */
function colourOf(dict: PDFDict): 'gray' | 'rgb' | 'other' {
  const space = dict.lookup(PDFName.of('ColorSpace'));
  const family = space instanceof PDFArray ? nameOf(space.lookup(0)) : nameOf(space);
  if (family === 'DeviceGray' || family === 'CalGray') return 'gray';
  if (family === 'DeviceRGB' || family === 'CalRGB') return 'rgb';
  if (family === 'ICCBased' && space instanceof PDFArray) {
    const profile = space.lookup(1);
    const components = profile instanceof PDFRawStream ? numberOf(profile.dict.lookup(PDFName.of('N'))) : undefined;
    if (components === 1) return 'gray';
    if (components === 3) return 'rgb';
  }
  return 'other';
}

async function loadPage(pdfjs: Pdfjs, doc: PDFDocumentProxy, n: number, plan: PagePlan, path: string, label: string): Promise<FrameImage> {
  try {
    if (plan.mode === 'jpeg') {
      const jpeg = await readRange(path, plan.offset, plan.length);
      // The file may have changed since it was opened; then decode the page like any other.
      if (jpeg[0] === 0xff && jpeg[1] === 0xd8) return { data: jpeg };
    }
    if (plan.mode === 'flate') {
      const pixels = await inflatedImage(await readRange(path, plan.offset, plan.length), plan);
      if (pixels) return pixels;
    }
    if (plan.mode === 'jpeg' || plan.mode === 'flate' || plan.mode === 'pixels') {
      const pixels = await decodedImage(pdfjs, doc, n, plan);
      if (pixels) return pixels;
    }
    return await renderPage(doc, n, plan.dpi);
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_PDF, `${label} is damaged: page ${n} cannot be read.`, describeError(e));
  }
}

const inflate = promisify(inflateCallback);

async function readRange(path: string, offset: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * A Flate image's pixels, inflated by zlib: grey as one channel (a set bit of a 1-bit image is white, as
 * `DeviceGray` means), RGB as three. Null when the stream does not hold them (the file
 * changed, or lied about its size): pdfjs decodes it then.
 */
async function inflatedImage(stream: Buffer, plan: { width: number; height: number; channels: 1 | 3; bits: 1 | 8 }): Promise<FrameImage | null> {
  const { width, height, channels, bits } = plan;
  const rowBytes = bits === 1 ? Math.ceil(width / 8) : width * channels;
  let data: Buffer;
  try {
    // One output chunk exactly the image's size: with zlib's 16 KB default, a page came back as hundreds of chunks,
    // each a round trip to the main thread and a copy (measured: ten times the CPU for 20 pages). Exactly, so the
    // pixels are a buffer of their own, handed to a pipeline worker without a copy.
    data = await inflate(stream, { maxOutputLength: rowBytes * height + 1, chunkSize: Math.max(64, rowBytes * height) });
  } catch {
    return null;
  }
  if (data.length < rowBytes * height) return null;
  if (bits === 1) return { data: unpackBits(data, width, height), raw: { width, height, channels: 1 } };
  return { data: data.subarray(0, width * height * channels), raw: { width, height, channels } };
}

/** One byte per pixel from rows packed MSB first, a set bit white (as `DeviceGray` means it, and as pdfjs packs them). */
function unpackBits(data: Uint8Array | Uint8ClampedArray, width: number, height: number): Buffer {
  const rowBytes = Math.ceil(width / 8);
  const out = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) out[y * width + x] = data[y * rowBytes + (x >> 3)] & (0x80 >> (x & 7)) ? 255 : 0;
  }
  return out;
}

interface DecodedImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8ClampedArray | Uint8Array;
}

/** The page's one image as pdfjs decodes it (any filter: Flate, CCITT, JBIG2, JPX…), or null to rasterise instead. */
async function decodedImage(
  pdfjs: Pdfjs,
  doc: PDFDocumentProxy,
  n: number,
  plan: { width: number; height: number; gray: boolean },
): Promise<FrameImage | null> {
  const page = await doc.getPage(n);
  try {
    const ops = await page.getOperatorList({ intent: 'print' });
    const at = ops.fnArray.indexOf(pdfjs.OPS.paintImageXObject);
    if (at < 0) return null;
    const id = (ops.argsArray[at] as unknown[])[0];
    if (typeof id !== 'string') return null;
    const store = id.startsWith('g_') ? page.commonObjs : page.objs;
    const image = await resolved<DecodedImage>(store, id);
    if (!image?.data || image.width !== plan.width || image.height !== plan.height) return null;
    return rawFromDecoded(pdfjs, image as Required<DecodedImage>, plan.gray);
  } finally {
    page.cleanup();
  }
}

/** A pdfjs object arrives from its (fake) worker after the operator list: wait for it, not forever. */
function resolved<T>(store: PDFPageProxy['objs'], id: string): Promise<T | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), OBJECT_WAIT_MS);
    store.get(id, (value: T) => {
      clearTimeout(timer);
      resolve(value ?? null);
    });
  });
}

function rawFromDecoded(pdfjs: Pdfjs, image: Required<DecodedImage>, gray: boolean): FrameImage | null {
  const { width, height, data } = image;
  const pixels = width * height;
  if (image.kind === pdfjs.ImageKind.GRAYSCALE_1BPP) {
    if (data.length < Math.ceil(width / 8) * height) return null;
    return { data: unpackBits(data, width, height), raw: { width, height, channels: 1 } };
  }
  const channels = image.kind === pdfjs.ImageKind.RGB_24BPP ? 3 : image.kind === pdfjs.ImageKind.RGBA_32BPP ? 4 : 0;
  if (channels === 0 || data.length < pixels * channels) return null;
  if (gray) return { data: firstChannel(data, pixels, channels), raw: { width, height, channels: 1 } };
  return { data: Buffer.from(data.buffer, data.byteOffset, pixels * channels), raw: { width, height, channels } };
}

function firstChannel(data: Uint8Array | Uint8ClampedArray, pixels: number, channels: number): Buffer {
  const out = Buffer.alloc(pixels);
  for (let i = 0, j = 0; i < pixels; i++, j += channels) out[i] = data[j];
  return out;
}

/** The bits of pdfjs's canvas factory we use (it creates canvases of its own @napi-rs/canvas copy, which its renderer needs). */
interface CanvasEntry {
  canvas: unknown;
  context: { getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray } };
}
interface CanvasFactory {
  create(width: number, height: number): CanvasEntry;
  destroy(entry: CanvasEntry): void;
}

async function renderPage(doc: PDFDocumentProxy, n: number, dpi: number): Promise<FrameImage> {
  const page = await doc.getPage(n);
  const factory = doc.canvasFactory as CanvasFactory;
  try {
    const viewport = page.getViewport({ scale: dpi / 72 });
    const width = Math.max(1, Math.round(viewport.width));
    const height = Math.max(1, Math.round(viewport.height));
    const entry = factory.create(width, height);
    try {
      // 'print': what the page looks like on paper (printable annotations and form fields included, no hover states).
      await page.render({ canvas: entry.canvas, canvasContext: entry.context, viewport, intent: 'print' } as Parameters<PDFPageProxy['render']>[0]).promise;
      const rgba = entry.context.getImageData(0, 0, width, height).data;
      return rawFromRgba(rgba, width, height);
    } finally {
      factory.destroy(entry);
    }
  } finally {
    page.cleanup();
  }
}

/** RGBA from the canvas; one grey channel when the page has no colour (a quarter of the memory, and most pages). */
export function rawFromRgba(rgba: Uint8ClampedArray, width: number, height: number): FrameImage {
  const pixels = width * height;
  for (let j = 0; j < pixels * 4; j += 4) {
    if (rgba[j] !== rgba[j + 1] || rgba[j] !== rgba[j + 2]) {
      return { data: Buffer.from(rgba.buffer, rgba.byteOffset, pixels * 4), raw: { width, height, channels: 4 } };
    }
  }
  return { data: firstChannel(rgba, pixels, 4), raw: { width, height, channels: 1 } };
}
