export * from './types.js';
export * from './paths.js';
export * from './project.js';
