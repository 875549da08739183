/**
 * What the pipeline decided for a page, as `project.json` records it: where the page was found in its frame, how it
 * was straightened and thresholded. The pipeline makes these; the project keeps them; the web app draws them.
 */

/** An axis-aligned rectangle in pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Pipeline presets. `book`: a camera frame of an open book (two pages). `sheet`: one page. `flat`: clean scan, no geometry. */
export type PresetName = 'book' | 'sheet' | 'flat';

/**
 * The pages of one frame as a person set them by hand (the web app's page view, `quire run --page-box`), in the
 * frame's pixels: the box of each page (one, or two: the left page, then the right), or only where a spread splits
 * (`splitX`: each side of it is a page, found inside its half). It replaces the automatic split and crop of that frame.
 */
export type HandSetPages = { boxes: Box[] } | { splitX: number };

/** Where a page was found in its source frame. */
export interface PageRegion {
  /** `single` when the frame holds one page. */
  side: 'left' | 'right' | 'single';
  /** The page's crop in frame pixels, margin included. */
  box: Box;
  /** The text area found inside that page, in frame pixels. */
  content: Box;
}

export interface DeskewDecision {
  /** Degrees, counter-clockwise positive: the page was rotated by `-angle` to straighten it. */
  angle: number;
  /** 0..1, how sure the estimate is (peak sharpness). */
  confidence: number;
}

export interface DewarpDecision {
  /** False when the page was left as it was (too few text lines, or lines already straight). */
  applied: boolean;
  /** Text lines the correction was built from. */
  lines: number;
  /** Largest vertical shift of the (first) correction, px. */
  maxShiftPx: number;
  /** 2 when a strong curl was straightened a second time, from the lines of the first result. */
  passes?: number;
  /**
   * RMS distance of the measured baseline samples from their fitted curves, px: the letter-shape noise the fit
   * saw, and about how wavy the lines stay once straightened.
   */
  residualPx: number;
}

export interface BinarizeDecision {
  method: 'sauvola';
  windowMm: number;
  windowPx: number;
  k: number;
  /** Unsharp mask applied to a page enlarged from a camera's resolution before the threshold (page pixels). */
  sharpen?: { sigmaPx: number; amount: number };
}

/**
 * The sharpening before a camera page is enlarged: the edge blur measured (source pixels), the unsharp mask's amount,
 * and its width when wider than the usual 1.1 px; or, for a blurred capture, the deconvolution instead (amount 0).
 */
export interface SharpenDecision {
  edgeBlurPx: number | null;
  amount: number;
  sigmaPx?: number;
  deconvolved?: { sigmaPx: number; rounds: number };
}

/** A value a processor plugin recorded about a page: plain JSON. */
export type FactValue = string | number | boolean;
