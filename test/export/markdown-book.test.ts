/**
 * End to end: three typeset pages of a book with a known structure (title and chapter heading, running heads
 * and page numbers, indented paragraphs, a hyphenated word and a kept compound at line ends, a paragraph crossing
 * a page break, footnotes) give exactly the Markdown in `markdown-book.expected.md`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentToMarkdown } from '../../src/export/markdown.js';
import type { OcrPage } from '../../src/project/index.js';
import { bookSetters } from './markdown-book.js';

function bookPages(): OcrPage[] {
  return bookSetters().map((s) => s.page());
}

describe('documentToMarkdown on a typeset book', () => {
  it('gives the expected Markdown file exactly', () => {
    const expected = readFileSync(new URL('./markdown-book.expected.md', import.meta.url), 'utf8');
    const markdown = documentToMarkdown(bookPages(), { title: 'Pride and Prejudice' });
    expect(markdown).toBe(expected);
  });

  it('reads the same pages recognised at another resolution the same way', () => {
    const scaled = bookPages().map((page) => scalePage(page, 0.5));
    expect(documentToMarkdown(scaled)).toBe(documentToMarkdown(bookPages()));
  });

  it('ignores how the engine grouped lines into blocks and paragraphs', () => {
    const regrouped = bookPages().map((page) => {
      const lines = page.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
      // One block per line, in reverse order: the worst an engine could do.
      return { ...page, blocks: lines.reverse().map((line) => ({ box: line.box, paragraphs: [{ box: line.box, lines: [line] }] })) };
    });
    expect(documentToMarkdown(regrouped)).toBe(documentToMarkdown(bookPages()));
  });
});

function scalePage(page: OcrPage, factor: number): OcrPage {
  const box = (b: { x0: number; y0: number; x1: number; y1: number }): typeof b => ({
    x0: Math.round(b.x0 * factor),
    y0: Math.round(b.y0 * factor),
    x1: Math.round(b.x1 * factor),
    y1: Math.round(b.y1 * factor),
  });
  return {
    ...page,
    width: Math.round(page.width * factor),
    height: Math.round(page.height * factor),
    dpi: page.dpi * factor,
    blocks: page.blocks.map((b) => ({
      box: box(b.box),
      paragraphs: b.paragraphs.map((p) => ({
        box: box(p.box),
        lines: p.lines.map((l) => ({ box: box(l.box), words: l.words.map((w) => ({ ...w, box: box(w.box) })) })),
      })),
    })),
  };
}
