import type { OcrBox, OcrLine, OcrPage, OcrWord } from '../project/index.js';
import { glyphReach, median } from '../util/index.js';
import { cidsToHex, FONT_ASCENT, FONT_DESCENT, FONT_UNITS, GLYPH_ADVANCE, type UnicodeCidFont } from './cid-font.js';

/**
 * The invisible text of one page: every OCR word drawn in render mode 3 (neither filled nor
 * stroked) with the glyphless font, where the word is in the picture, so a search hit or a
 * selection lands on the word the reader sees.
 */

/** The PDF page the text goes on, in points (origin bottom left, y up). */
export interface PageFrame {
  width: number;
  height: number;
}

/** A word as the content stream places it, in points. */
export interface PlacedWord {
  /** Where the baseline starts (the word's left edge), PDF coordinates. */
  x: number;
  y: number;
  fontSize: number;
  /** Horizontal scaling in percent (`Tz`) that makes the word exactly as wide as its box. */
  scale: number;
  /** The word's CIDs, plus a trailing space CID when another word follows on the line. */
  cids: number[];
}

/** A baseline steeper than this (45°) is taken as broken, not as a tilted line. */
const MAX_BASELINE_SLOPE = 1;
/** The smallest width and height, in points, a word or line may have: keeps scales finite. */
const MIN_EXTENT = 0.01;
const DESCENT_FRACTION = -FONT_DESCENT / FONT_UNITS;
/**
 * The narrowest gap between words, in font sizes. poppler finds spaces by geometry alone (the
 * space glyph only ends a word): its raw order writes one for a gap over 0.15 font sizes (its
 * `minWordSpacing`); the rest is margin for rounding.
 */
const MIN_WORD_GAP = 0.18;

/**
 * The content stream (uncompressed text) that draws `ocr` invisibly on a page of `frame` size,
 * using the font registered on the page as `fontName`. The OCR result is scaled to the page by
 * its own width and height, so an OCR run at another resolution of the same page still fits.
 * Empty when the page has no words.
 */
export function textLayerContent(ocr: OcrPage, frame: PageFrame, font: UnicodeCidFont, fontName: string): string {
  const toPage = pageTransform(ocr, frame);
  const lines: string[] = [];
  for (const block of ocr.blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const placed = placeLine(line, toPage, font);
        if (placed.length > 0) lines.push(lineOperators(placed, fontName));
      }
    }
  }
  if (lines.length === 0) return '';
  // Render mode 3 lasts until Q, so the image drawn before and anything drawn after are untouched.
  return `q 3 Tr\n${lines.join('\n')}\nQ\n`;
}

/** Pixels of the OCR result → points of the page, y flipped. */
export interface PageTransform {
  sx: number;
  sy: number;
  pageHeight: number;
}

export function pageTransform(ocr: Pick<OcrPage, 'width' | 'height'>, frame: PageFrame): PageTransform {
  if (!(ocr.width > 0 && ocr.height > 0)) throw new Error(`OCR page has no usable size (${ocr.width}×${ocr.height})`);
  return { sx: frame.width / ocr.width, sy: frame.height / ocr.height, pageHeight: frame.height };
}

/**
 * Place the words of one line. The font size comes from the line's height (less the rise of a
 * tilted baseline), the baseline from the line's baseline when the engine gave one (else a
 * fifth of the line height above its bottom, where the font's descent puts it), and each word
 * is scaled to its box's width (see `wordWidth`).
 *
 * Words are set level even on a tilted line, each at the baseline's height under its middle:
 * poppler starts a new word whenever a character's baseline moves by more than half a point,
 * so a rotated word longer than ~30 pt at a 1° tilt is cut in two and no longer found by a
 * search. Level words stay whole; the tilt only offsets their ends by a fraction of a point.
 */
export function placeLine(line: OcrLine, toPage: PageTransform, font: UnicodeCidFont): PlacedWord[] {
  const words = line.words.filter((word) => word.text.trim() !== '' && word.box.x1 > word.box.x0);
  if (words.length === 0) return [];
  const { sx, sy, pageHeight } = toPage;
  const lineBox = boxInPoints(line.box, toPage);
  const baseline = usableBaseline(line);
  const slope = baseline ? ((baseline.y1 - baseline.y0) * sy) / ((baseline.x1 - baseline.x0) * sx) : 0;
  const textHeight = Math.max(lineBox.height - Math.abs(slope) * lineBox.width, lineBox.height / 2);
  const reach = glyphReach(words.map((w) => w.text).join(' '));
  // The size the Markdown's structure measures on the page from the ink and the letters in it (a line of capitals
  // is as tall as its cap height): Quire's own PDF read again sizes its headings and body as its pages did. The line's
  // box is as tall as its tallest word; where an engine boxed one word taller than the others (`HUITIEME` beside
  // `LIVRE`), the structure takes the middle of its words' sizes, and so does the text layer.
  const lineSize = reach ? textHeight / (reach.above + reach.below) : (textHeight * FONT_UNITS) / (FONT_ASCENT - FONT_DESCENT);
  // Without a baseline from the engine: as deep under the ink's bottom as the line's letters reach.
  const belowBaseline = reach ? reach.below : DESCENT_FRACTION;
  const baselineUnder = (word: OcrWord): number => {
    const middle = (word.box.x0 + word.box.x1) / 2;
    return baseline
      ? pageHeight - (baseline.y0 + ((baseline.y1 - baseline.y0) * (middle - baseline.x0)) / (baseline.x1 - baseline.x0)) * sy
      : lineBox.bottom + belowBaseline * lineSize;
  };
  // A superscript (a note call read as a word of its own) keeps its raise and its smaller size: read again, it is
  // still a call, not a number in the text.
  const raised = words.map((word) => superscript(word, baselineUnder(word), lineSize, toPage));
  const fontSize = Math.min(
    lineSize,
    wordsSize(
      words.filter((_, i) => !raised[i]),
      sy,
    ) ?? lineSize,
  );

  return words.map((word, i) => {
    const onLine = baselineUnder(word);
    const size = raised[i]?.fontSize ?? fontSize;
    const wordCids = font.encode(word.text.trim());
    const next = words[i + 1] as OcrWord | undefined;
    const width = wordWidth(word, next, sx, size);
    const natural = (wordCids.length * GLYPH_ADVANCE * size) / FONT_UNITS;
    // The space after the word is left out of the scaling: it falls in the gap to the next word.
    const cids = i < words.length - 1 ? [...wordCids, font.spaceCid] : wordCids;
    return { x: word.box.x0 * sx, y: raised[i]?.y ?? onLine, fontSize: size, scale: (100 * width) / natural, cids };
  });
}

/** The middle of the line's words' sizes, each its box's height over the height its letters reach (none without letters). */
function wordsSize(words: readonly OcrWord[], sy: number): number | undefined {
  const sizes: number[] = [];
  for (const word of words) {
    const reach = glyphReach(word.text);
    if (reach && word.box.y1 > word.box.y0) sizes.push(((word.box.y1 - word.box.y0) * sy) / (reach.above + reach.below));
  }
  return sizes.length > 0 ? median(sizes) : undefined;
}

/** A word set this far above the line's baseline (in its font sizes), and smaller than the line, is a superscript. */
const RAISE = 0.25;
const SMALLER = 0.8;

/** The size and baseline of a word set small above the line's baseline; undefined for a word on the line. */
function superscript(word: OcrWord, lineBaseline: number, lineSize: number, { sy, pageHeight }: PageTransform): { fontSize: number; y: number } | undefined {
  const reach = glyphReach(word.text);
  if (!reach) return undefined;
  const bottom = pageHeight - word.box.y1 * sy;
  const size = ((word.box.y1 - word.box.y0) * sy) / (reach.above + reach.below);
  const y = bottom + reach.below * size;
  if (y - lineBaseline < RAISE * lineSize || size > SMALLER * lineSize) return undefined;
  return { fontSize: size, y };
}

/**
 * The width the word's glyphs span, in points: its box's, unless the next word starts closer
 * than `MIN_WORD_GAP` — readers that find spaces by geometry (poppler, pdf.js) would then glue
 * the two words, so the word is narrowed (by at most half) to open the gap.
 */
function wordWidth(word: OcrWord, next: OcrWord | undefined, sx: number, fontSize: number): number {
  const boxWidth = Math.max((word.box.x1 - word.box.x0) * sx, MIN_EXTENT);
  if (!next) return boxWidth;
  const room = (next.box.x0 - word.box.x0) * sx - MIN_WORD_GAP * fontSize;
  return Math.min(boxWidth, Math.max(room, boxWidth / 2));
}

function boxInPoints(box: OcrBox, { sx, sy, pageHeight }: PageTransform): { bottom: number; width: number; height: number } {
  return {
    bottom: pageHeight - box.y1 * sy,
    width: Math.max((box.x1 - box.x0) * sx, MIN_EXTENT),
    height: Math.max((box.y1 - box.y0) * sy, MIN_EXTENT),
  };
}

/** The line's baseline if it is a usable one: finite, left to right, not steeper than 45°. */
function usableBaseline(line: OcrLine): OcrLine['baseline'] {
  const b = line.baseline;
  if (!b || ![b.x0, b.y0, b.x1, b.y1].every(Number.isFinite) || b.x1 <= b.x0) return undefined;
  return Math.abs((b.y1 - b.y0) / (b.x1 - b.x0)) <= MAX_BASELINE_SLOPE ? b : undefined;
}

/** One text object per line: the size (again where a superscript changes it), then each word's scale, position and string. */
function lineOperators(words: PlacedWord[], fontName: string): string {
  const out = [`BT /${fontName} ${num(words[0].fontSize)} Tf`];
  let size = words[0].fontSize;
  for (const word of words) {
    // A superscript's own size, and the line's again after it.
    if (num(word.fontSize) !== num(size)) out.push(`/${fontName} ${num(word.fontSize)} Tf`);
    size = word.fontSize;
    out.push(`${num(word.scale)} Tz 1 0 0 1 ${num(word.x)} ${num(word.y)} Tm ${cidsToHex(word.cids)} Tj`);
  }
  out.push('ET');
  return out.join('\n');
}

/** A PDF number: at most two decimals, no trailing zeros, never `-0`. */
function num(value: number): string {
  const text = value
    .toFixed(2)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
  return text === '-0' ? '0' : text;
}
