/**
 * The ground floor: the document model (pages, what the pipeline decided for each, OCR words and lines), the
 * project folder and its `project.json`, page-image storage, atomic file writes and file names. It imports nothing
 * of Quire's but `errors`; every other folder takes the model from here.
 */
export * from './decisions.js';
export * from './ocr-model.js';
export * from './proofreading.js';
export * from './types.js';
export * from './paths.js';
export * from './project.js';
export * from './names.js';
export * from './entry-path.js';
export * from './files.js';
export * from './page-image.js';
