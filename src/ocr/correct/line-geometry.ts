/**
 * Where a page's letters stand: the x-height of its small letters, and a line's baseline at any point along it. The
 * steps that look at the ink beside a word (note calls, full stops) measure marks against these.
 */
import type { OcrLine, OcrPage } from '../../project/index.js';
import { pageWords } from '../../project/index.js';

/** Words set in small letters only: their box is the x-height, which the page's marks are measured against. */
const X_HEIGHT_WORD = /^[aceimnorsuvwxz]{2,}[.,;:]?$/u;
/** Fewer such words than this and the page's x-height is a guess. */
const MIN_WORDS = 5;

/** The page's x-height in its own pixels: the median box height of its words in small letters; undefined with too few. */
export function pageXHeight(page: OcrPage): number | undefined {
  const heights = pageWords(page)
    .filter((w) => X_HEIGHT_WORD.test(w.text))
    .map((w) => w.box.y1 - w.box.y0);
  if (heights.length < MIN_WORDS) return undefined;
  return heights.sort((a, b) => a - b)[Math.floor(heights.length / 2)];
}

/** The y of a line's baseline at x (the engine's fit, or the line box's bottom without one). */
export function baselineAt(line: Pick<OcrLine, 'baseline' | 'box'>, x: number): number {
  const fit = line.baseline;
  if (!fit) return line.box.y1;
  return fit.x1 === fit.x0 ? fit.y0 : fit.y0 + ((fit.y1 - fit.y0) * (x - fit.x0)) / (fit.x1 - fit.x0);
}
