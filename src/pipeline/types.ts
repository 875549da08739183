import type { PageRegion } from '../project/index.js';

export type { BinarizeDecision, DeskewDecision, DewarpDecision, PageRegion, PresetName } from '../project/index.js';

export interface SplitDecision {
  pages: PageRegion[];
  /** x of the gutter in frame pixels, when the frame was split. */
  gutterX?: number;
}

export interface DpiEstimate {
  dpi: number;
  linePitchPx: number;
  xHeightPx: number;
}
