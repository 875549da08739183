/**
 * The pipeline: a frame in, its final page images out. Steps are registered by name; a preset lists the ones it runs;
 * the pool runs frames on worker threads with bounded concurrency.
 */
export { createFramePool, defaultWorkerCount, type FramePool } from './pool.js';
export type { FramePage, FrameTask } from './process.js';
export { isPresetName, PRESETS, type Preset } from './presets.js';
export { pageStep, registerStep, type PageState, type PageStep } from './steps.js';
export { addPageSizes, dropPageGuesses, finishPage, matchPageSizes, speculativeCanvas, type FinishedPage, type PageSizeSamples } from './page-size.js';
export { turnPage } from './orientation.js';
export { outOfFocus } from './resample.js';
export type { ExtraStep, ExtraStepFacts, ExtraStepOutcome, ExtraStepPage, ExtraStepRunner } from './extra-steps.js';
export { checkHandSetPages, MIN_PAGE_BOX } from './hand-set.js';
