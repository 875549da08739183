import type { Box } from '../imaging/index.js';

/** Pipeline presets. `book`: a camera frame of an open book (two pages). `sheet`: one page. `flat`: clean scan, no geometry. */
export type PresetName = 'book' | 'sheet' | 'flat';

/** Where a page was found in its source frame. */
export interface PageRegion {
  /** `single` when the frame holds one page. */
  side: 'left' | 'right' | 'single';
  /** The page's crop in frame pixels, margin included. */
  box: Box;
  /** The text area found inside that page, in frame pixels. */
  content: Box;
}

export interface SplitDecision {
  pages: PageRegion[];
  /** x of the gutter in frame pixels, when the frame was split. */
  gutterX?: number;
}

export interface DeskewDecision {
  /** Degrees, counter-clockwise positive: the page was rotated by `-angle` to straighten it. */
  angle: number;
  /** 0..1, how sure the estimate is (peak sharpness). */
  confidence: number;
}

export interface BinarizeDecision {
  method: 'sauvola';
  windowMm: number;
  windowPx: number;
  k: number;
}

export interface DpiEstimate {
  dpi: number;
  linePitchPx: number;
  xHeightPx: number;
}

export type { DewarpDecision } from './dewarp.js';
