/**
 * A PDF page's own text as an OCR result: the words pdfjs reads from the page's text-showing operators, with boxes
 * in the page's pixels at a chosen resolution, grouped into lines (one baseline) and blocks (lines without a large
 * gap between them). The text is exact; pdfjs gives the width of an item and not of its glyphs, so the item's width
 * is shared out among its characters by the usual widths of Latin faces: word boxes are close, not exact.
 */
import type { OcrBlock, OcrBox, OcrLine, OcrPage, OcrWord } from '../project/index.js';
import { charReach } from '../util/index.js';
import { multiply, type Matrix } from './pdf-content.js';

/** The parts of a pdfjs text item we read (`getTextContent().items`, marked-content entries have no `str`). */
export interface PdfTextItem {
  str: string;
  /** The text's matrix in PDF user space: [a b c d] holds the font size (and any rotation), [e f] the start of the baseline. */
  transform: number[];
  /** The advance of the whole item, in user-space units. */
  width: number;
  fontName: string;
}

/** Font metrics pdfjs reports per font (`getTextContent().styles`). */
export interface PdfTextStyle {
  ascent: number;
  descent: number;
}

export interface PdfTextContent {
  items: ReadonlyArray<PdfTextItem | object>;
  styles: Readonly<Record<string, PdfTextStyle>>;
}

/** The page as a viewer shows it: the viewport's user-space → pixel matrix and its size in pixels at `dpi`. */
export interface PdfTextViewport {
  transform: number[];
  width: number;
  height: number;
  dpi: number;
}

/** Two items are on one line when their baselines are this close, in ems of the larger font. */
const SAME_BASELINE_EM = 0.3;
/** A gap this wide between two items on one baseline separates words, even with no space drawn. */
const WORD_GAP_EM = 0.15;
/** A gap this wide on one baseline is a column or a table gutter: the line ends there. */
const LINE_GAP_EM = 2.5;
/** A gap between lines wider than this fraction of the line height starts a new block. */
const BLOCK_GAP = 0.75;
/** Usual advance widths in ems, between Times and Helvetica; other characters count as an average lower-case letter. */
const NARROW = new Set([..."ijlI.,:;'!|`´‘’"]);
const SEMI_NARROW = new Set([...'ftr()[]{}-"“”/\\']);
const WIDE = new Set([...'mwMW@%']);
const SPACE_EM = 0.26;

/** A character's share of an item's width, in ems. */
function glyphWeight(ch: string): number {
  if (/\s/u.test(ch)) return SPACE_EM;
  if (NARROW.has(ch)) return 0.27;
  if (SEMI_NARROW.has(ch)) return 0.33;
  if (WIDE.has(ch)) return 0.85;
  if (ch !== ch.toLowerCase()) return 0.69;
  return 0.53;
}

/** A character that is really there: letters, digits, punctuation and symbols (not spaces or controls). */
const REAL_CHARACTER = /[\p{L}\p{N}\p{P}\p{S}]/u;

/** Whether a page's text content holds at least one real character. */
export function hasRealText(content: Pick<PdfTextContent, 'items'>): boolean {
  return content.items.some((item) => isTextItem(item) && REAL_CHARACTER.test(item.str));
}

function isTextItem(item: PdfTextItem | object): item is PdfTextItem {
  return 'str' in item && typeof item.str === 'string' && 'transform' in item && Array.isArray(item.transform) && item.transform.length === 6;
}

interface Point {
  x: number;
  y: number;
}

/** One character placed on the page, in pixels. */
interface Glyph {
  text: string;
  box: OcrBox;
  /** Starts a new word even though no space precedes it (a gap in the drawing). */
  breakBefore: boolean;
}

/** A run of items on one baseline, as glyphs. */
interface LineDraft {
  glyphs: Glyph[];
  /** Unit vector along the text, and the baseline's start and current end, in pixels. */
  along: Point;
  start: Point;
  end: Point;
  em: number;
}

/** The page's text as an `OcrPage` (engine `pdf`, no languages, full confidence), in reading order as drawn. */
export function ocrPageFromText(content: PdfTextContent, viewport: PdfTextViewport): OcrPage {
  const lines: LineDraft[] = [];
  let current: LineDraft | null = null;
  for (const item of content.items) {
    if (!isTextItem(item) || item.str === '') continue;
    const placed = placeItem(item, viewport);
    if (!placed) continue;
    const gap = current ? continuation(current, placed) : null;
    if (current && gap !== null) {
      placed.glyphs[0].breakBefore = gap > WORD_GAP_EM * Math.max(current.em, placed.em);
      current.glyphs.push(...placed.glyphs);
      current.end = placed.end;
      current.em = Math.max(current.em, placed.em);
    } else {
      current = placed;
      lines.push(current);
    }
  }
  const ocrLines = lines.map((line) => toOcrLine(line, viewport)).filter((l): l is OcrLine => l !== null);
  return { width: viewport.width, height: viewport.height, dpi: viewport.dpi, engine: 'pdf', languages: [], blocks: groupBlocks(ocrLines) };
}

/** An item's characters on the page, each with a share of the item's advance by its usual width. */
function placeItem(item: PdfTextItem, viewport: PdfTextViewport): LineDraft | null {
  const m = multiply(item.transform as Matrix, viewport.transform as Matrix);
  const em = Math.hypot(m[2], m[3]);
  const size = Math.hypot(m[0], m[1]);
  if (!(em > 0 && size > 0)) return null;
  // Pixels per user-space unit: the item's width is in user space.
  const scale = Math.hypot(viewport.transform[0], viewport.transform[1]);
  const along = { x: m[0] / size, y: m[1] / size };
  const up = { x: m[2] / em, y: m[3] / em };
  const start = { x: m[4], y: m[5] };
  const chars = [...item.str];
  const weights = chars.map(glyphWeight);
  const length = Math.max(0, item.width) * scale;
  const perWeight = length / weights.reduce((a, b) => a + b, 0);
  const at = (distance: number): Point => ({ x: start.x + along.x * distance, y: start.y + along.y * distance });
  let distance = 0;
  const glyphs = chars.map((text, k): Glyph => {
    const from = at(distance);
    distance += weights[k] * perWeight;
    // The glyph's ink, as high and as low as its kind of letter reaches (not the font's whole em box): what an OCR
    // engine's box holds, so the structure measures the text as it would on the page image. Not cut at the font's
    // ascent: the accent of a capital (`È`) stands above it, and a heading's size is measured with it.
    const reach = charReach(text);
    const top = reach.above;
    const bottom = -reach.below;
    const corners = [from, at(distance)].flatMap((p) => [
      { x: p.x + up.x * top * em, y: p.y + up.y * top * em },
      { x: p.x + up.x * bottom * em, y: p.y + up.y * bottom * em },
    ]);
    return { text, box: boundingBox(corners), breakBefore: false };
  });
  return { glyphs, along, start, end: at(length), em };
}

/**
 * How far `next` starts after the end of `line`, in pixels, when it continues that line (same direction, same
 * baseline, not going back, no gutter between them); null when it starts a new line.
 */
function continuation(line: LineDraft, next: LineDraft): number | null {
  if (line.along.x * next.along.x + line.along.y * next.along.y < 0.99) return null;
  const em = Math.max(line.em, next.em);
  const offset = { x: next.start.x - line.start.x, y: next.start.y - line.start.y };
  const across = Math.abs(offset.x * line.along.y - offset.y * line.along.x);
  if (across > SAME_BASELINE_EM * em) return null;
  const gap = (next.start.x - line.end.x) * line.along.x + (next.start.y - line.end.y) * line.along.y;
  if (gap < -0.5 * em || gap > LINE_GAP_EM * em) return null;
  return gap;
}

/** Words are runs of glyphs between spaces (and gaps); boxes are clipped to the page, words off the page dropped. */
function toOcrLine(line: LineDraft, viewport: PdfTextViewport): OcrLine | null {
  const words: OcrWord[] = [];
  let text = '';
  let boxes: OcrBox[] = [];
  const flush = (): void => {
    const box = text === '' ? null : clip(union(boxes), viewport);
    if (box) words.push({ text, box, confidence: 100 });
    text = '';
    boxes = [];
  };
  for (const glyph of line.glyphs) {
    if (glyph.breakBefore) flush();
    if (/\s/u.test(glyph.text)) {
      flush();
      continue;
    }
    text += glyph.text;
    boxes.push(glyph.box);
  }
  flush();
  if (words.length === 0) return null;
  const box = union(words.map((w) => w.box));
  const baseline = { x0: round2(line.start.x), y0: round2(line.start.y), x1: round2(line.end.x), y1: round2(line.end.y) };
  return { box, baseline, words };
}

/** Lines in drawing order; a new block where the gap to the previous line is large or the text goes back up. */
function groupBlocks(lines: OcrLine[]): OcrBlock[] {
  const blocks: OcrLine[][] = [];
  let previous: OcrLine | null = null;
  for (const line of lines) {
    const height = Math.max(line.box.y1 - line.box.y0, previous ? previous.box.y1 - previous.box.y0 : 0);
    const gap = previous ? line.box.y0 - previous.box.y1 : 0;
    const startsBlock = previous === null || gap > BLOCK_GAP * height || line.box.y1 <= previous.box.y0;
    if (startsBlock) blocks.push([line]);
    else blocks[blocks.length - 1].push(line);
    previous = line;
  }
  return blocks.map((group) => {
    const box = union(group.map((l) => l.box));
    return { box, paragraphs: [{ box, lines: group }] };
  });
}

function boundingBox(points: Point[]): OcrBox {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

function union(boxes: OcrBox[]): OcrBox {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

/**
 * Whole pixels, `x1`/`y1` exclusive, inside the page; null when nothing of the box is on the page. Edges go to the
 * nearest pixel edge, not outwards: a word's height is its size, and a pixel added above and below makes a heading
 * read again from Quire's own PDF a rank apart from its twin.
 */
function clip(box: OcrBox, page: { width: number; height: number }): OcrBox | null {
  const x0 = Math.max(0, Math.round(box.x0));
  const y0 = Math.max(0, Math.round(box.y0));
  const x1 = Math.min(page.width, Math.round(box.x1));
  const y1 = Math.min(page.height, Math.round(box.y1));
  return x1 > x0 && y1 > y0 ? { x0, y0, x1, y1 } : null;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
