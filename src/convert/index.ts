/**
 * The conversion core, as named verbs: `checkConversions` (everything that can be refused, before any work),
 * `openDocument` (an input or a project, as a project folder), `processPages` (frames through the pipeline),
 * `recognize` (OCR), `writeExports` (all of a document's files, as one transaction), `send`; `convert()` composes
 * them. The CLI, the job server's worker and the web app convert through this module only.
 */
export {
  cancelProjectOcr,
  checkProjectOcr,
  convert,
  readyOcr,
  recognize,
  type ConvertEngine,
  type ConvertFn,
  type ConvertOptions,
  type ConvertResult,
  type OcrCheck,
  type OcrPending,
} from './convert.js';
export type { RecognizeOptions } from './recognize.js';
export { checkConversions, refusedInputs, type CheckedDocument, type CheckedRun, type CheckOptions, type OpenedSource } from './check.js';
export { DEFAULT_MARGIN_MM, openDocument, processPages, type OpenedDocument, type OpenOptions, type ProcessOptions } from './document.js';
export type { OcrPagesRead, ProgressEvent } from './progress.js';
export { send, type Sendable } from './send.js';
export { writeExports, type WriteExportsOptions, type WrittenExport } from './write-exports.js';
export { listPagePlugins, openProcessorSteps, parseStepList, registerOcrPlugins, useOcrPlugin, type ProcessorSteps, type StepRequest } from './page-plugins.js';

/*
 * What the faces (CLI, web app, job server) need of the engine's folders, passed on from here so that they reach
 * the engine through this module only (the "imports" column of DESIGN.md, checked by test/architecture.test.ts):
 * what the registries hold, for `quire list` and the web app's cards, and the few checks and readers a face runs
 * before or after a conversion.
 */
export { inputType, openImages, openInput, frameSharp, type OpenedInput, type SourceFrame } from '../ingest/index.js';
export { checkHandSetPages, isPresetName, outOfFocus, PRESETS } from '../pipeline/index.js';
export {
  API_KEY_ENV,
  closeOcrEngines,
  describeOcrEngines,
  languageName,
  ocrPageText,
  parseOcrSpec,
  REMOTE_OCR_DESCRIPTOR,
  REMOTE_OCR_SETTINGS,
  REMOTE_OCR_SLUG,
  setRemoteOcrKey,
  setRemoteOcrSetting,
} from '../ocr/index.js';
export { exportRegistry, listExports, parseExportList, type ExportRequest } from '../export/index.js';
