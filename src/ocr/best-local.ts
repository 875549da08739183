import { findOcrEngine, getOcrEngine } from './registry.js';
import type { OcrEngine } from './types.js';

/** The engine that always works: tesseract.js with language data from npm. */
const PORTABLE = 'tesseract';
/** Debian's native tesseract: about twice as fast, used when it is installed with the languages needed. */
const NATIVE = 'tesseract-cli';

/**
 * The local engine `auto` stands for: the native one when it runs here and has every language
 * the document needs (for `auto` languages, every language the portable engine could detect),
 * else tesseract.js.
 */
export async function bestLocalEngine(languages: readonly string[] | 'auto'): Promise<OcrEngine> {
  const portable = getOcrEngine(PORTABLE);
  const native = findOcrEngine(NATIVE);
  if (!native || !(await native.available()).ok) return portable;
  const have = new Set(native.languages());
  const need = languages === 'auto' ? portable.languages() : languages;
  return need.every((l) => have.has(l)) ? native : portable;
}
