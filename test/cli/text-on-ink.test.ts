/**
 * The searchable PDF's invisible text sits on the printed words: the example bundle is converted with OCR, each page
 * of the PDF is rendered as a reader's viewer shows it and read again by tesseract, and the centre of every word read
 * on the rendered page must fall inside the text layer's box for that word (what a search highlights, what a
 * selection copies).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, SAMPLE } from '../helpers.js';

const run = promisify(execFile);
/** The resolution the pages are rendered and read again at, and the PDF's points per inch. */
const DPI = 300;
const PT = 72;

interface Word {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Letters and digits only, lower case: "Nicée," and "nicée" are the same word here. */
const key = (text: string): string =>
  text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

/** The text layer's words per page, in rendered pixels. */
async function textLayer(pdf: string): Promise<Word[][]> {
  const { stdout } = await run('pdftotext', ['-bbox', '-enc', 'UTF-8', pdf, '-'], { maxBuffer: 1 << 26 });
  return stdout
    .split('<page ')
    .slice(1)
    .map((page) =>
      [...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
        text: m[5]
          .replace(/&amp;/g, '&')
          .replace(/&apos;/g, "'")
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>'),
        x0: (Number(m[1]) * DPI) / PT,
        y0: (Number(m[2]) * DPI) / PT,
        x1: (Number(m[3]) * DPI) / PT,
        y1: (Number(m[4]) * DPI) / PT,
      })),
    );
}

/** The words tesseract reads on a rendered page, confidently and with at least three letters or digits. */
async function readAgain(png: string): Promise<Word[]> {
  const { stdout } = await run('tesseract', [png, 'stdout', '-l', 'eng+fra', '--psm', '3', 'tsv'], { maxBuffer: 1 << 26 });
  return stdout
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'))
    .filter((f) => f.length >= 12 && f[0] === '5' && Number(f[10]) >= 70 && key(f[11]).length >= 3)
    .map((f) => ({ text: f[11], x0: Number(f[6]), y0: Number(f[7]), x1: Number(f[6]) + Number(f[8]), y1: Number(f[7]) + Number(f[9]) }));
}

let work: string;
let pdf: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'quire-ink-'));
  const result = await runQuire(['run', SAMPLE, '--ocr-lang', 'eng+fra', '--export', 'pdf', '-o', join(work, 'out')]);
  expect(result.code, result.stderr).toBe(0);
  const [file] = await readdir(join(work, 'out'));
  pdf = join(work, 'out', file);
  await run('pdftoppm', ['-r', String(DPI), '-gray', '-png', pdf, join(work, 'page')]);
}, 600_000);

afterAll(() => rm(work, { recursive: true, force: true }));

describe('the PDF text layer', () => {
  it('covers the printed words: 99 % of the word centres read on the rendered pages fall inside their text boxes', async () => {
    const layer = await textLayer(pdf);
    const pngs = (await readdir(work)).filter((f) => f.startsWith('page') && f.endsWith('.png')).sort();
    expect(pngs).toHaveLength(layer.length);
    const printed = await Promise.all(pngs.map((png) => readAgain(join(work, png))));
    let compared = 0;
    let inside = 0;
    const outside: string[] = [];
    printed.forEach((words, p) => {
      for (const word of words) {
        const boxes = layer[p].filter((w) => key(w.text) === key(word.text));
        // A word the two readings spell differently says nothing about where the layer is.
        if (boxes.length === 0) continue;
        compared++;
        const cx = (word.x0 + word.x1) / 2;
        const cy = (word.y0 + word.y1) / 2;
        if (boxes.some((b) => cx >= b.x0 && cx <= b.x1 && cy >= b.y0 && cy <= b.y1)) inside++;
        else outside.push(`page ${p + 1}: ${word.text}`);
      }
    });
    expect(compared).toBeGreaterThan(300);
    expect(inside / compared, outside.join(', ')).toBeGreaterThanOrEqual(0.99);
  }, 120_000);
});
