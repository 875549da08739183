export * from './types.js';
export * from './paths.js';
export * from './project.js';
export * from './names.js';
