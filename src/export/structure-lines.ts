/**
 * The document's structure, its ground: the engine's lines as words in points (1/72 in), cut where a wide gap shows
 * that two things stand on one line (a number in the margin beside a body line).
 */
import type { OcrPage } from '../project/index.js';
import { median } from '../util/index.js';

export interface Word {
  text: string;
  /** Digits the correction step read in a raised mark at the word's end that the text does not show (a lost note call). */
  raised?: string;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
}

export interface Line {
  words: Word[];
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  /** A reference number the engine read with a body line, cut off it: it goes to its margin. */
  reference?: boolean;
}

/** The value at fraction `q` of the sorted values (nearest rank). */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function lineOf(words: Word[]): Line {
  return {
    words,
    x0: Math.min(...words.map((w) => w.x0)),
    x1: Math.max(...words.map((w) => w.x1)),
    top: Math.min(...words.map((w) => w.top)),
    bottom: Math.max(...words.map((w) => w.bottom)),
  };
}

/**
 * Words further apart than this many line heights, and far wider apart than the line's other words (a justified
 * line spreads all its spaces alike), are not one line: a number in the margin beside a body line.
 */
const LINE_GAP = 1.6;

/** A line's words in pieces, cut where a gap far wider than the line's word spaces separates them. */
function splitAtGaps(words: Word[]): Word[][] {
  const sorted = [...words].sort((a, b) => a.x0 - b.x0);
  const height = median(sorted.map((w) => w.bottom - w.top));
  const gaps = sorted.slice(1).map((w, k) => w.x0 - sorted[k].x1);
  const pieces: Word[][] = [[sorted[0]]];
  gaps.forEach((gap, k) => {
    const others = gaps.filter((_, j) => j !== k);
    const wide = others.length ? gap > LINE_GAP * height && gap > 3 * median(others) : gap > 3 * height;
    if (wide) pieces.push([sorted[k + 1]]);
    else pieces[pieces.length - 1].push(sorted[k + 1]);
  });
  return pieces;
}

/**
 * The engine's lines, as words in points, cut at wide gaps; the engine's blocks and paragraphs are ignored (they
 * group book pages badly).
 */
export function pageLines(page: OcrPage): Line[] {
  const scale = 72 / (page.dpi > 0 ? page.dpi : 72);
  const lines: Line[] = [];
  for (const block of page.blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        // On a tilted or curved page a word's box is taller than its glyphs by the rise across it: keep the band
        // the glyphs cover at the word's middle.
        const b = line.baseline;
        const slope = b && b.x1 !== b.x0 ? Math.abs((b.y1 - b.y0) / (b.x1 - b.x0)) : 0;
        const words = line.words
          .map((w) => {
            const [x0, x1, top, bottom] = [w.box.x0 * scale, w.box.x1 * scale, w.box.y0 * scale, w.box.y1 * scale];
            const rise = Math.min(slope * (x1 - x0), 0.5 * (bottom - top)) / 2;
            return { text: w.text.trim(), ...(w.raised ? { raised: w.raised } : {}), x0, x1, top: top + rise, bottom: bottom - rise };
          })
          .filter((w) => w.text !== '' && w.x1 > w.x0 && w.bottom > w.top);
        if (words.length > 0) lines.push(...splitAtGaps(words).map(lineOf));
      }
    }
  }
  return lines;
}
