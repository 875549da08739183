/**
 * `quire`: the package's public surface, for an embedder (a program that converts with Quire) and a plugin author.
 * The verbs of a conversion with their options and results, what the registries hold, the typed errors, the
 * version, and the types of the plugin contract. A plugin itself imports `quire/plugin-api` only (the sandbox gives
 * it nothing else). Anything not named here is internal and may change without notice; see docs/architecture.md.
 */
export {
  cancelProjectOcr,
  checkConversions,
  checkProjectOcr,
  convert,
  type CheckedDocument,
  type CheckedRun,
  type CheckOptions,
  type ConvertOptions,
  type ConvertResult,
  type ExportRequest,
  type OcrCheck,
  type OcrPending,
  type ProgressEvent,
  type WrittenExport,
} from './convert/index.js';
export { describeOcrEngines, languageName, listExports, PRESETS } from './convert/index.js';
export type { PresetName, ProjectOcr } from './project/index.js';
export { QuireError, ERROR_CODES, isQuireError, type ErrorCode } from './errors.js';
export { VERSION } from './version.js';
export {
  API_VERSION,
  type BookMeta,
  type CheckKind,
  type DestinationClass,
  type DestinationContext,
  type Field,
  type FieldValue,
  type OcrEnginePluginClass,
  type ProcessorClass,
} from './plugin-api/index.js';
