export * from './gray.js';
export * from './analysis.js';
export * from './filters.js';
export * from './dewarp-lines.js';
export * from './dewarp-remap.js';
export * from './tiff.js';
