import { decodePDFRawStream, PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFRef, type PDFObject, type PDFPage } from 'pdf-lib';

/**
 * What a PDF page paints, read from its content stream without decoding any image: enough to tell a scanned
 * page (one image over the whole page, perhaps under invisible OCR text) from a page that must be rasterised.
 */

/** A PDF transformation matrix [a b c d e f]. */
export type Matrix = [number, number, number, number, number, number];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export interface PaintedImage {
  stream: PDFRawStream;
  /** The CTM when the image was painted: it maps the unit square onto the page. */
  ctm: Matrix;
}

export interface PageContent {
  images: PaintedImage[];
  /** Text drawn in a visible render mode (mode 3 is the invisible text of OCR layers). */
  visibleText: boolean;
  /** Paths filled or stroked, shadings, stencil masks, painted after an image. */
  vector: boolean;
  /** The same painted before any image: a page background, hidden when the image then fills the page. */
  vectorUnder: boolean;
  /** Something we do not follow (inline images, forms nested too deep, undecodable streams): rasterise. */
  unknown: boolean;
}

const MAX_FORM_DEPTH = 8;
const TEXT_SHOW = new Set(['Tj', 'TJ', "'", '"']);
const PATH_PAINT = new Set(['S', 's', 'f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'sh']);
const INVISIBLE_TEXT = 3;

export function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

export function readPageContent(page: PDFPage): PageContent {
  const result: PageContent = { images: [], visibleText: false, vector: false, vectorUnder: false, unknown: false };
  const streams = contentStreams(page);
  if (streams === null) {
    result.unknown = true;
    return result;
  }
  // The page's streams are one program split in pieces; a token may even straddle two of them.
  const program = concatenate(streams);
  interpret(program, page.node.Resources(), IDENTITY, 0, result);
  return result;
}

function contentStreams(page: PDFPage): Uint8Array[] | null {
  const contents = page.node.Contents();
  if (contents === undefined) return [];
  const items: PDFObject[] = contents instanceof PDFArray ? contents.asArray() : [contents];
  const out: Uint8Array[] = [];
  for (const item of items) {
    const stream = item instanceof PDFRef ? page.doc.context.lookup(item) : item;
    if (!(stream instanceof PDFRawStream)) return null;
    const bytes = decode(stream);
    if (bytes === null) return null;
    out.push(bytes);
  }
  return out;
}

function decode(stream: PDFRawStream): Uint8Array | null {
  try {
    return decodePDFRawStream(stream).decode();
  } catch {
    return null;
  }
}

function concatenate(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length + 1, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    out[at + part.length] = 0x0a;
    at += part.length + 1;
  }
  return out;
}

interface GraphicsState {
  ctm: Matrix;
  textMode: number;
}

function interpret(program: Uint8Array, resources: PDFDict | undefined, start: Matrix, depth: number, result: PageContent): void {
  const stack: GraphicsState[] = [];
  let state: GraphicsState = { ctm: start, textMode: 0 };
  for (const { operator, operands } of operations(program)) {
    if (result.unknown) return;
    switch (operator) {
      case 'q':
        stack.push({ ...state });
        break;
      case 'Q':
        state = stack.pop() ?? state;
        break;
      case 'cm': {
        const m = lastNumbers(operands, 6);
        if (m) state.ctm = multiply(m as Matrix, state.ctm);
        break;
      }
      case 'Tr': {
        const mode = lastNumbers(operands, 1);
        if (mode) state.textMode = mode[0];
        break;
      }
      case 'BI':
        result.unknown = true;
        return;
      case 'Do': {
        const name = operands[operands.length - 1];
        if (typeof name === 'string') paintXObject(name, resources, state.ctm, depth, result);
        break;
      }
      default:
        if (TEXT_SHOW.has(operator) && state.textMode !== INVISIBLE_TEXT) result.visibleText = true;
        else if (PATH_PAINT.has(operator)) paintVector(result);
    }
  }
}

function paintXObject(name: string, resources: PDFDict | undefined, ctm: Matrix, depth: number, result: PageContent): void {
  const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
  const xobject = xobjects?.lookup(PDFName.of(name));
  if (!(xobject instanceof PDFRawStream)) return;
  const dict = xobject.dict;
  const subtype = dict.lookupMaybe(PDFName.of('Subtype'), PDFName)?.asString();
  if (subtype === '/Image') {
    // A stencil mask paints the current colour through the image: vector-like, not a scan.
    if (dict.get(PDFName.of('ImageMask'))?.toString() === 'true') paintVector(result);
    else result.images.push({ stream: xobject, ctm });
    return;
  }
  if (subtype !== '/Form') return;
  if (depth >= MAX_FORM_DEPTH) {
    result.unknown = true;
    return;
  }
  const program = decode(xobject);
  if (program === null) {
    result.unknown = true;
    return;
  }
  const matrix = numbersOf(dict.lookupMaybe(PDFName.of('Matrix'), PDFArray), 6) ?? IDENTITY;
  const formResources = dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? resources;
  interpret(program, formResources, multiply(matrix as Matrix, ctm), depth + 1, result);
}

function paintVector(result: PageContent): void {
  if (result.images.length === 0) result.vectorUnder = true;
  else result.vector = true;
}

function lastNumbers(operands: Operand[], count: number): number[] | null {
  if (operands.length < count) return null;
  const tail = operands.slice(-count);
  return tail.every((v) => typeof v === 'number') ? (tail as number[]) : null;
}

function numbersOf(array: PDFArray | undefined, count: number): number[] | null {
  if (!array || array.size() !== count) return null;
  const values = array.asArray().map((v) => (v instanceof PDFNumber ? v.asNumber() : NaN));
  return values.every(Number.isFinite) ? values : null;
}

/** A content-stream operand: a number, a name (without '/'), or anything else we do not need (null). */
export type Operand = number | string | null;

export interface Operation {
  operator: string;
  operands: Operand[];
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const MAX_WORD = 256;

/** The operators of a content stream with their operands. Stops at an inline image (`BI`), whose data is binary. */
export function* operations(bytes: Uint8Array): Generator<Operation> {
  let operands: Operand[] = [];
  let i = 0;
  const n = bytes.length;
  const regularEnd = (from: number) => {
    let j = from;
    while (j < n && !WHITESPACE.has(bytes[j]) && !DELIMITERS.has(bytes[j])) j++;
    return j;
  };
  while (i < n) {
    const c = bytes[i];
    if (WHITESPACE.has(c)) {
      i++;
    } else if (c === 0x25 /* % */) {
      while (i < n && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
    } else if (c === 0x2f /* / */) {
      const end = regularEnd(i + 1);
      operands.push(end - i > MAX_WORD ? null : decodeName(bytes.subarray(i + 1, end)));
      i = end;
    } else if (c === 0x28 /* ( */) {
      i = skipLiteralString(bytes, i);
      operands.push(null);
    } else if (c === 0x3c /* < */) {
      if (bytes[i + 1] === 0x3c)
        i += 2; // dictionary start (marked-content properties)
      else {
        while (i < n && bytes[i] !== 0x3e) i++;
        i++;
      }
      operands.push(null);
    } else if (c === 0x3e /* > */ || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x29) {
      i += c === 0x3e && bytes[i + 1] === 0x3e ? 2 : 1;
      operands.push(null);
    } else {
      const end = regularEnd(i);
      // Real operators and numbers are short; a long run is data we do not need (and would overflow fromCharCode).
      const word = end - i > MAX_WORD ? '' : String.fromCharCode(...bytes.subarray(i, end));
      i = end;
      if (word === '') operands.push(null);
      else if (NUMBER.test(word)) operands.push(Number(word));
      else if (word === 'true' || word === 'false' || word === 'null') operands.push(null);
      else {
        yield { operator: word, operands };
        if (word === 'BI') return;
        operands = [];
      }
    }
  }
}

function skipLiteralString(bytes: Uint8Array, start: number): number {
  let depth = 0;
  let i = start;
  while (i < bytes.length) {
    const c = bytes[i];
    if (c === 0x5c /* \ */) i += 2;
    else {
      if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) return i + 1;
      i++;
    }
  }
  return i;
}

function decodeName(raw: Uint8Array): string {
  const text = String.fromCharCode(...raw);
  return text.includes('#') ? text.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : text;
}
