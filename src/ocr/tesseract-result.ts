/**
 * Tesseract's layout (blocks → paragraphs → lines → words) turned into our `OcrPage`, in the
 * pixel frame of the page we were given (tesseract may have seen an upsampled copy).
 */
import type Tesseract from 'tesseract.js';
import type { OcrBlock, OcrBox, OcrLine, OcrPage, OcrParagraph, OcrWord } from '../project/index.js';

/** How the image tesseract read maps onto the page: page pixel = tesseract pixel × scale. */
export interface OcrFrame {
  width: number;
  height: number;
  dpi: number;
  scaleX: number;
  scaleY: number;
}

/** The subset of tesseract.js's output we read (its `Block` type also drags in a back-reference to the page). */
export interface TesseractBlock {
  bbox: Tesseract.Bbox;
  paragraphs: Array<{
    bbox: Tesseract.Bbox;
    lines: Array<{
      bbox: Tesseract.Bbox;
      baseline?: Tesseract.Baseline & { has_baseline?: boolean };
      words: Array<{ text: string; confidence: number; bbox: Tesseract.Bbox }>;
    }>;
  }>;
}

const round2 = (v: number): number => Math.round(v * 100) / 100;

function clamp(v: number, max: number): number {
  return Math.min(max, Math.max(0, v));
}

function scaleBox(b: Tesseract.Bbox, frame: OcrFrame): OcrBox {
  return {
    x0: round2(clamp(b.x0 * frame.scaleX, frame.width)),
    y0: round2(clamp(b.y0 * frame.scaleY, frame.height)),
    x1: round2(clamp(b.x1 * frame.scaleX, frame.width)),
    y1: round2(clamp(b.y1 * frame.scaleY, frame.height)),
  };
}

function toLine(line: TesseractBlock['paragraphs'][number]['lines'][number], frame: OcrFrame): OcrLine | undefined {
  const words: OcrWord[] = [];
  for (const w of line.words) {
    const text = w.text.trim();
    // Tesseract reports pictures and rules as words of nothing; they carry no text to place.
    if (text === '') continue;
    words.push({ text, box: scaleBox(w.bbox, frame), confidence: round2(w.confidence) });
  }
  if (words.length === 0) return undefined;
  const result: OcrLine = { box: scaleBox(line.bbox, frame), words };
  const b = line.baseline;
  if (b && b.has_baseline !== false) {
    // Not clamped: a baseline is a line, and its ends may lie a little outside the page.
    result.baseline = { x0: round2(b.x0 * frame.scaleX), y0: round2(b.y0 * frame.scaleY), x1: round2(b.x1 * frame.scaleX), y1: round2(b.y1 * frame.scaleY) };
  }
  return result;
}

/** Our page model from tesseract's blocks; empty blocks, paragraphs and lines are dropped. */
export function toOcrPage(blocks: readonly TesseractBlock[] | null, frame: OcrFrame, languages: readonly string[]): OcrPage {
  const out: OcrBlock[] = [];
  for (const block of blocks ?? []) {
    const paragraphs: OcrParagraph[] = [];
    for (const para of block.paragraphs) {
      const lines = para.lines.map((l) => toLine(l, frame)).filter((l): l is OcrLine => l !== undefined);
      if (lines.length > 0) paragraphs.push({ box: scaleBox(para.bbox, frame), lines });
    }
    if (paragraphs.length > 0) out.push({ box: scaleBox(block.bbox, frame), paragraphs });
  }
  return { width: frame.width, height: frame.height, dpi: frame.dpi, engine: 'tesseract', languages: [...languages], blocks: out };
}

/** The page's text in reading order: words by spaces, lines by newlines, paragraphs by blank lines. */
export function ocrPageText(page: OcrPage): string {
  return page.blocks
    .flatMap((b) => b.paragraphs)
    .map((p) => p.lines.map((l) => l.words.map((w) => w.text).join(' ')).join('\n'))
    .join('\n\n');
}
