export { convert, type ConvertOptions, type ConvertResult, type ProgressEvent } from './convert/index.js';
export { QuireError, ERROR_CODES, type ErrorCode } from './errors.js';
export { VERSION } from './version.js';
export * from './project/index.js';
export { PRESETS } from './pipeline/index.js';
