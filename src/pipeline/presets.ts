import type { PresetName } from './types.js';

export interface Preset {
  name: PresetName;
  description: string;
  /** Look for two pages in a frame and split them at the gutter. */
  spread: 'auto' | 'single' | null;
  deskew: boolean;
  binarize: boolean;
  /** Resample to this resolution; null keeps the input's pixels. */
  targetDpi: number | null;
}

export const PRESETS: Record<PresetName, Preset> = {
  book: {
    name: 'book',
    description: 'camera frames of an open book: find the pages, split the spread, straighten, clean to black on white (default for scan bundles and camera photos)',
    spread: 'auto',
    deskew: true,
    binarize: true,
    targetDpi: 300,
  },
  sheet: {
    name: 'sheet',
    description: 'one page per image (a phone photo of a sheet, a scanned page): find the page, straighten, clean to black on white (default for scanned PDFs and images)',
    spread: 'single',
    deskew: true,
    binarize: true,
    targetDpi: 300,
  },
  flat: {
    name: 'flat',
    description: 'clean scans and digital pages: no geometry and no cleaning, the page images are kept as they are (default for vector PDFs)',
    spread: null,
    deskew: false,
    binarize: false,
    targetDpi: null,
  },
};

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
