/**
 * The ground floor: the document model (pages, what the pipeline decided for each, OCR words and lines), the
 * project folder and its `project.json`, page-image storage, atomic file writes and output transactions, file names,
 * and file-system failures worded for people. It imports nothing of Quire's but `errors` and `util`; every other
 * folder takes the model from here.
 */
export * from './decisions.js';
export * from './ocr-model.js';
export * from './ocr-page.js';
export * from './proofreading.js';
export * from './types.js';
export * from './paths.js';
export * from './project.js';
export * from './names.js';
export * from './entry-path.js';
export * from './files.js';
export * from './file-errors.js';
export * from './leftovers.js';
export * from './output-folder.js';
export * from './page-image.js';
