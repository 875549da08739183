/**
 * End to end through a real OCR engine: the three book pages drawn as 300-dpi images (DejaVu Serif, each word
 * at the place the typesetter gave it), read by the tesseract engine, and turned into Markdown.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, describe, expect, it } from 'vitest';
import { documentToMarkdown } from '../../src/export/markdown.js';
import { createTesseractEngine } from '../../src/ocr/index.js';
import { bookSetters } from './markdown-book.js';
import type { PageSetter } from './markdown-builder.js';

const dir = mkdtempSync(join(tmpdir(), 'quire-md-ocr-'));
const engine = createTesseractEngine({ workers: 2 });

afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The page as an image: every word drawn in DejaVu Serif at its box, scaled across to the box's width. */
async function drawPage(setter: PageSetter, file: string): Promise<void> {
  const { width, height } = setter.frame;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#000';
  setter.lines.forEach((words, i) => {
    const { baseline, size } = setter.set[i];
    ctx.font = `${size}px "DejaVu Serif"`;
    for (const w of words) {
      ctx.save();
      ctx.translate(w.box.x0, baseline);
      ctx.scale((w.box.x1 - w.box.x0) / ctx.measureText(w.text).width, 1);
      ctx.fillText(w.text, 0, 0);
      ctx.restore();
    }
  });
  writeFileSync(file, await canvas.encode('png'));
}

describe('documentToMarkdown on pages read by tesseract', () => {
  it('gives the structure of the typeset book', async () => {
    const setters = bookSetters();
    const pages = await Promise.all(
      setters.map(async (setter, i) => {
        const file = join(dir, `page-${i + 1}.png`);
        await drawPage(setter, file);
        const { width, height, dpi } = setter.frame;
        return engine.recognize({ file, width, height, dpi }, ['eng']);
      }),
    );
    const markdown = documentToMarkdown(pages, { title: 'Pride and Prejudice' });
    const expected = readFileSync(new URL('./markdown-book.expected.md', import.meta.url), 'utf8');
    // Tesseract reads the two superscript note references as other marks (`®`, `?`); everything else is exact.
    const withoutReferences = (text: string): string => text.replace(/(four|Michaelmas)[^\s,]/g, '$1');
    expect(withoutReferences(markdown)).toBe(withoutReferences(expected));
  });
});
