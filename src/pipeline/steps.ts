/**
 * The page steps a preset lists, registered by name. Each step takes the page as the steps before it
 * left it, records what it decided, and hands it on; the name is also the step's timing key.
 */
import { cropPadded, type GrayImage } from '../imaging/index.js';
import type { PageKind, ProjectPage } from '../project/index.js';
import { binarize } from './binarize.js';
import { deskew } from './deskew.js';
import { dewarp } from './dewarp.js';
import { cropToContent, normalizeResolution, readingScale } from './resample.js';

/** One page on its way through the steps. */
export interface PageState {
  image: GrayImage;
  kind: PageKind;
  /** Resolution of `image` as it stands, dots per inch. */
  dpi: number;
  /** Resolution the page ends at (the preset's, else the input's). */
  targetDpi: number;
  /** Margin kept around the text when cropping, millimetres. */
  marginMm: number;
  /**
   * The page OCR reads when it is not `image`: the grey page before the threshold, background levelled, always the
   * same size as `image` (steps that change the geometry change both).
   */
  reading?: GrayImage;
  /** Whether `reading` is made at all (default true): false when the run reads no text (see `FrameTask.reading`). */
  makeReading?: boolean;
  decisions: ProjectPage['decisions'];
  /**
   * The text's scale as the resolution estimate measured it, in pixels of the page at `decisions.inputDpi`; absent
   * when the resolution was stated rather than measured. Processor plugins get it scaled to the page as it stands.
   */
  measuredText?: { xHeightPx: number; linePitchPx: number };
}

export interface PageStep {
  name: string;
  run(page: PageState): Promise<void>;
}

const steps = new Map<string, PageStep>();

/** Make a step available to presets by its name. */
export function registerStep(step: PageStep): void {
  if (steps.has(step.name)) throw new Error(`pipeline step "${step.name}" is already registered`);
  steps.set(step.name, step);
}

/** The registered step of that name; a preset naming an unknown step is a programming error. */
export function pageStep(name: string): PageStep {
  const step = steps.get(name);
  if (!step) throw new Error(`no pipeline step is called "${name}"; known steps: ${[...steps.keys()].join(', ')}`);
  return step;
}

registerStep({
  name: 'deskew',
  async run(page) {
    const straight = await deskew(page.image);
    page.image = straight.image;
    page.decisions.deskew = straight.decision;
  },
});

registerStep({
  name: 'dewarp',
  async run(page) {
    const flattened = await dewarp(page.image, { dpi: page.dpi });
    page.image = flattened.image;
    page.decisions.dewarp = flattened.decision;
  },
});

registerStep({
  name: 'resample',
  async run(page) {
    const resampled = await normalizeResolution(page.image, page.dpi, page.targetDpi);
    page.image = resampled.image;
    page.dpi = page.targetDpi;
    page.decisions.scale = Math.round(resampled.scale * 100) / 100;
    if (resampled.sharpening) page.decisions.sharpen = resampled.sharpening;
    const ocrScale = readingScale(resampled.sharpening?.edgeBlurPx, resampled.scale);
    if (ocrScale !== undefined) page.decisions.ocrScale = ocrScale;
  },
});

registerStep({
  name: 'binarize',
  async run(page) {
    const clean = await binarize(page.image, { dpi: page.dpi, enlargedBy: page.decisions.scale ?? 1, reading: page.makeReading });
    page.image = clean.image;
    if (clean.reading) page.reading = clean.reading;
    page.decisions.binarize = clean.decision;
    page.kind = 'bitonal';
  },
});

registerStep({
  name: 'crop',
  async run(page) {
    // A bitonal page is cut and padded for G4 (see `padForG4`) in one copy, as is its reading image.
    const cropped = cropToContent(page.image, { dpi: page.dpi, marginMm: page.marginMm, widthMultiple: page.kind === 'bitonal' ? 16 : 1 });
    page.image = cropped.image;
    if (page.reading) page.reading = cropPadded(page.reading, cropped.box, page.image.width);
    page.decisions.crop = cropped.box;
  },
});
