export * from './gray.js';
