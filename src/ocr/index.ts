/**
 * OCR: the engine interface (what a new engine implements and registers), the registry with the built-in engines
 * (tesseract.js, native tesseract, remote, none), spec parsing, language detection; and the correction of what was
 * read, as one verb (`correctDocument`, in `correct/`), with the dictionaries it reads.
 */
export type { OcrBatchPoll, OcrDocument, OcrDocumentOptions, OcrEngine, OcrInput } from './types.js';
export { closeOcrEngines, createOcrRegistry, findOcrEngine, getOcrEngine, listOcrEngines, registerOcrEngine } from './registry.js';
export { parseOcrLanguages, parseOcrSpec, type OcrSpec } from './spec.js';
export { detectLanguages } from './detect.js';
export {
  detectDocumentLanguages,
  firstGuessLanguages,
  otherPageLanguages,
  recognizeAuto,
  resolveLanguages,
  SAMPLE_PAGES,
  startLanguageSample,
  type LanguageSample,
} from './auto.js';
export { describeOcrEngines } from './describe.js';
export { languageName, languageTag, toTesseractCode } from './languages.js';
export { listInstalledLanguages } from './tesseract-data.js';
export { ocrPageText } from './tesseract-result.js';
export { createTesseractEngine, type TesseractEngine } from './tesseract.js';
export { createNoneEngine } from './none.js';
export { createRemoteOcrEngine, type RemoteOcrEngineOptions } from './remote/engine.js';
export {
  API_KEY_ENV,
  REMOTE_OCR_DESCRIPTOR,
  REMOTE_OCR_SETTINGS,
  REMOTE_OCR_SLUG,
  readRemoteOcrSettings,
  readRemoteOcrTimeouts,
  setRemoteOcrKey,
  setRemoteOcrSetting,
} from './remote/settings.js';
export { alignOntoLayout } from './remote/align.js';
export { createTesseractCliEngine } from './tesseract-cli.js';
export { bestLocalEngine } from './best-local.js';
export { correctDocument, openLexicon, warmCorrector, type Lexicon } from './correct/index.js';
export { looksMisoriented, MIN_ORIENTATION_CONFIDENCE, type PageOrientation } from './orientation.js';
