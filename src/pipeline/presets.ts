import type { PresetName } from '../project/index.js';

export interface Preset {
  name: PresetName;
  description: string;
  /** Look for two pages in a frame and split them at the gutter; null keeps the frame as one page, untouched. */
  spread: 'auto' | 'single' | null;
  /** The registered page steps each page goes through, in order (see `steps.ts`). */
  steps: readonly string[];
  /** The resolution pages end at; null keeps the input's. */
  targetDpi: number | null;
}

export const PRESETS: Record<PresetName, Preset> = {
  book: {
    name: 'book',
    description:
      'camera frames of an open book: find the pages, split the spread, straighten, clean to black on white (default for scan bundles and camera photos)',
    spread: 'auto',
    steps: ['deskew', 'dewarp', 'resample', 'binarize', 'crop'],
    targetDpi: 300,
  },
  sheet: {
    name: 'sheet',
    description:
      'one page per image (a phone photo of a sheet, a scanned page): find the page, straighten, clean to black on white (default for scanned PDFs and images)',
    spread: 'single',
    steps: ['deskew', 'dewarp', 'resample', 'binarize', 'crop'],
    targetDpi: 300,
  },
  flat: {
    name: 'flat',
    description: 'clean scans and digital pages: no geometry and no cleaning, the page images are kept as they are (default for vector PDFs)',
    spread: null,
    steps: [],
    targetDpi: null,
  },
};

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
