/**
 * The `none` engine: recognises nothing. A page comes back with its size and no blocks, so the
 * rest of the chain (text layer, Markdown) can be tested without OCR, and a user can ask for
 * image-only output explicitly.
 */
import type { OcrEngine } from './types.js';

export function createNoneEngine(): OcrEngine {
  return {
    name: 'none',
    display: 'No OCR',
    description: 'Recognises no text: pages get no text layer.',
    options: [],
    async available() {
      return { ok: true };
    },
    // Empty: the spec parser then accepts any language it can map, which is what tests want.
    languages() {
      return [];
    },
    async recognize(page, languages) {
      return { width: page.width, height: page.height, dpi: page.dpi, engine: 'none', languages: [...languages], blocks: [] };
    },
  };
}
