/** Helpers on tesseract's results: how the image it read maps onto the page, and a page's plain text. */
import type { OcrPage } from '../project/index.js';

/** How the image tesseract read maps onto the page: page pixel = tesseract pixel × scale. */
export interface OcrFrame {
  width: number;
  height: number;
  dpi: number;
  scaleX: number;
  scaleY: number;
}

/** The page's text in reading order: words by spaces, lines by newlines, paragraphs by blank lines. */
export function ocrPageText(page: OcrPage): string {
  return page.blocks
    .flatMap((b) => b.paragraphs)
    .map((p) => p.lines.map((l) => l.words.map((w) => w.text).join(' ')).join('\n'))
    .join('\n\n');
}
