/** OCR: the engine interface, the registry with the built-in engines, spec parsing, language detection. */
export type {
  OcrBatchPoll,
  OcrBatchTicket,
  OcrBlock,
  OcrBox,
  OcrDocument,
  OcrDocumentOptions,
  OcrEngine,
  OcrInput,
  OcrLine,
  OcrPage,
  OcrParagraph,
  OcrWord,
} from './types.js';
export { closeOcrEngines, createOcrRegistry, findOcrEngine, getOcrEngine, listOcrEngines, registerOcrEngine, type OcrRegistry } from './registry.js';
export { parseOcrLanguages, parseOcrSpec, type OcrSpec } from './spec.js';
export { detectLanguages, type DetectOptions } from './detect.js';
export { detectDocumentLanguages, firstGuessLanguages, recognizeAuto, resolveLanguages, type LanguageDetection } from './auto.js';
export { describeOcrEngines, type OcrEngineDescription } from './describe.js';
export { languageName, toTesseractCode } from './languages.js';
export { listInstalledLanguages } from './tesseract-data.js';
export { ocrPageText } from './tesseract-result.js';
export { createTesseractEngine, type TesseractEngine, type TesseractEngineOptions } from './tesseract.js';
export { createNoneEngine } from './none.js';
export { createRemoteOcrEngine, MISSING_KEY_REASON, type RemoteOcrEngineOptions } from './remote/engine.js';
export {
  API_KEY_ENV,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  REMOTE_OCR_DESCRIPTOR,
  REMOTE_OCR_SETTINGS,
  REMOTE_OCR_SLUG,
  readRemoteOcrSettings,
  setRemoteOcrKey,
  setRemoteOcrSetting,
  type RemoteOcrSettings,
} from './remote/settings.js';
export { alignOntoLayout } from './remote/align.js';
export { createTesseractCliEngine, type TesseractCliEngine } from './tesseract-cli.js';
export { bestLocalEngine } from './best-local.js';
