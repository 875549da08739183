import { sauvolaBinarize } from '../imaging/index.js';
import type { GrayImage } from '../imaging/index.js';
import type { BinarizeDecision } from '../project/index.js';

/** A window of about a line and a half of body text at any resolution: wide enough to see ink and paper. */
export const DEFAULT_WINDOW_MM = 10;
export const DEFAULT_K = 0.25;
/** The paper is looked for over this span; wider than a headline glyph, narrower than a gutter shadow's fall-off. */
const BACKGROUND_MM = 8;

export interface BinarizeOptions {
  /** Resolution of the page, to turn millimetres into pixels. */
  dpi: number;
  windowMm?: number;
  k?: number;
}

/** Odd window side in pixels for a window of `mm` millimetres at `dpi`. */
export function windowPxFor(mm: number, dpi: number): number {
  const px = Math.max(3, Math.round((mm * dpi) / 25.4));
  return px % 2 === 1 ? px : px + 1;
}

/**
 * Turn a grey page into black ink on white paper (pixels 0 or 255). Sauvola's local threshold with its window
 * given in millimetres, so the result does not depend on the resolution, taken on the page divided by its
 * paper brightness so light gradients and gutter shadows vanish, and with a contrast floor so empty paper
 * stays white.
 */
export function binarize(page: GrayImage, options: BinarizeOptions): { image: GrayImage; decision: BinarizeDecision } {
  const { dpi, windowMm = DEFAULT_WINDOW_MM, k = DEFAULT_K } = options;
  if (!(dpi > 0)) throw new RangeError(`binarize: dpi must be positive, got ${dpi}`);
  const windowPx = windowPxFor(windowMm, dpi);
  const image = sauvolaBinarize(page, { windowPx, backgroundPx: windowPxFor(BACKGROUND_MM, dpi), k });
  return { image, decision: { method: 'sauvola', windowMm, windowPx, k } };
}
