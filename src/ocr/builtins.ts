/** The engines Quire ships; the registry registers them through the same call a plugin uses. */
import { createNoneEngine } from './none.js';
import { createRemoteOcrEngine } from './remote/engine.js';
import { createTesseractEngine } from './tesseract.js';
import { createTesseractCliEngine } from './tesseract-cli.js';
import type { OcrEngine } from './types.js';

export function builtinOcrEngines(): OcrEngine[] {
  return [createTesseractEngine(), createTesseractCliEngine(), createNoneEngine(), createRemoteOcrEngine()];
}
