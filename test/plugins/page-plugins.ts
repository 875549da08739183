// Helpers for the processor and OCR engine plugin tests: synthetic pages with known ink, and page plugin fixtures
// placed into an app data folder and accepted as they are, as `quire plugins accept` would.
import { cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { recordAcceptance } from '../../src/plugins/index.js';
import { FIXTURES } from './helpers.js';

/** A white page with `rows` lines of "letters" (15×25 px blocks, 10 px apart) starting at (200, 300), 60 px line pitch. */
export function textPage(width: number, height: number, rows = 10, letters = 40): Uint8Array {
  const pixels = new Uint8Array(width * height).fill(255);
  for (let r = 0; r < rows; r++) {
    for (let l = 0; l < letters; l++) fill(pixels, width, 200 + l * 25, 300 + r * 60, 15, 25, 0);
  }
  return pixels;
}

export function fill(pixels: Uint8Array, width: number, x: number, y: number, w: number, h: number, value: number): void {
  for (let yy = y; yy < y + h; yy++) pixels.fill(value, yy * width + x, yy * width + x + w);
}

export function inkCount(pixels: Uint8Array): number {
  let n = 0;
  for (const p of pixels) if (p < 128) n++;
  return n;
}

/** Put fixture `fixtures/pages/<name>` into `<APP_DATA>/plugins/<processors|ocr>/<name>/` and accept it. */
export function placePagePlugin(appData: string, kind: 'processor' | 'ocr', name: string): string {
  const target = join(appData, 'plugins', kind === 'processor' ? 'processors' : 'ocr', name);
  mkdirSync(dirname(target), { recursive: true });
  cpSync(join(FIXTURES, 'pages', name), target, { recursive: true });
  recordAcceptance(name, target, appData);
  return target;
}
