import { givePageBytes, levelBackground, sauvolaBinarize, unsharpMaskNative } from '../imaging/index.js';
import type { GrayImage } from '../imaging/index.js';
import type { BinarizeDecision } from '../project/index.js';

/** A window of about a line and a half of body text at any resolution: wide enough to see ink and paper. */
export const DEFAULT_WINDOW_MM = 10;
/** Sauvola's k for a page at its own resolution (a scan). */
export const DEFAULT_K = 0.25;
/**
 * Sauvola's k for small camera type once sharpened: its hairlines and the crossbars of small letters stay paler than
 * a scan's, and a higher k drops them (on the quality benchmark, k 0.5 erased most horizontal strokes at an x-height
 * of 8 px; 0.15 read best).
 */
export const SHARPENED_K = 0.15;
/** The paper is looked for over this span; wider than a headline glyph, narrower than a gutter shadow's fall-off. */
const BACKGROUND_MM = 8;
/**
 * Sharpening before the threshold, for pages enlarged from a camera's resolution: a Gaussian of this width (page
 * pixels at 300 dpi) taken off this many times. Blur spreads small letters' strokes and closes their counters (the
 * eye of an e fills and it reads c); sharpening restores the contrast of both before the threshold decides.
 * Measured on the quality benchmark: word recall of the bitonal page 0.83 → 0.90 on camera pages.
 */
const SHARPEN_SIGMA_MM = 0.127;
const SHARPEN_AMOUNT = 2;
/** Enlargements from which sharpening starts and is full: a scan near its final resolution needs none. */
const SHARPEN_FROM_SCALE = 1.25;
const SHARPEN_FULL_SCALE = 2;

export interface BinarizeOptions {
  /** Resolution of the page, to turn millimetres into pixels. */
  dpi: number;
  windowMm?: number;
  /** Sauvola's k; default from the sharpening (see `SHARPENED_K`). */
  k?: number;
  /** How much the page was enlarged to reach `dpi` (the resample step's scale): small camera type is sharpened. */
  enlargedBy?: number;
  /** Make the grey page OCR reads (default true); false when nothing will read it, which saves a pass over the page. */
  reading?: boolean;
}

/** Odd window side in pixels for a window of `mm` millimetres at `dpi`. */
export function windowPxFor(mm: number, dpi: number): number {
  const px = Math.max(3, Math.round((mm * dpi) / 25.4));
  return px % 2 === 1 ? px : px + 1;
}

/** How much to sharpen a page enlarged `scale` times before thresholding it: none for a scan, full for webcam type. */
export function thresholdSharpening(scale: number): number {
  const t = (scale - SHARPEN_FROM_SCALE) / (SHARPEN_FULL_SCALE - SHARPEN_FROM_SCALE);
  return Math.round(SHARPEN_AMOUNT * Math.min(1, Math.max(0, t)) * 100) / 100;
}

/**
 * Turn a grey page into black ink on white paper (pixels 0 or 255), and hand back the grey page OCR should read
 * (unless `reading` is false).
 *
 * The page is first divided by its paper brightness (`levelBackground`): light gradients and gutter shadows vanish,
 * every grey of the strokes stays — that levelled page is `reading`, what tesseract reads best (its LSTM reads the
 * greys the threshold throws away). For the bitonal page, a page enlarged from a camera's resolution is sharpened
 * (see `SHARPEN_AMOUNT`), then Sauvola's local threshold decides, its window given in millimetres so the result
 * does not depend on the resolution, with a contrast floor so empty paper stays white.
 */
export async function binarize(page: GrayImage, options: BinarizeOptions): Promise<{ image: GrayImage; reading?: GrayImage; decision: BinarizeDecision }> {
  const { dpi, windowMm = DEFAULT_WINDOW_MM, enlargedBy = 1, reading: wantReading = true } = options;
  if (!(dpi > 0)) throw new RangeError(`binarize: dpi must be positive, got ${dpi}`);
  const windowPx = windowPxFor(windowMm, dpi);
  const backgroundPx = windowPxFor(BACKGROUND_MM, dpi);
  const reading = wantReading ? levelBackground(page, { windowPx, backgroundPx }) : undefined;
  const amount = thresholdSharpening(enlargedBy);
  // Contrast-adaptive: the more a page is sharpened, the lower k, down to SHARPENED_K.
  const k = options.k ?? Math.round((DEFAULT_K - (DEFAULT_K - SHARPENED_K) * (amount / SHARPEN_AMOUNT)) * 1000) / 1000;
  const sigmaPx = Math.round(((SHARPEN_SIGMA_MM * dpi) / 25.4) * 100) / 100;
  // The threshold levels the page itself (its contrast floor must see the sensor noise as it is, not amplified).
  const source = amount > 0 ? await unsharpMaskNative(page, sigmaPx, amount) : page;
  const image = sauvolaBinarize(source, { windowPx, backgroundPx, k });
  if (source !== page) givePageBytes(source);
  return {
    image,
    ...(reading ? { reading } : {}),
    decision: { method: 'sauvola', windowMm, windowPx, k, ...(amount > 0 ? { sharpen: { sigmaPx, amount } } : {}) },
  };
}
