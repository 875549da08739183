/**
 * End to end through a real OCR engine: pages drawn as 300-dpi images (DejaVu Serif, each word at the place the
 * typesetter gave it), read by the tesseract engine, and turned into Markdown — the three pages of the English book,
 * and two pages of the synthetic French book with its margins, garbled calls and apparatus.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentToMarkdown } from '../../src/export/markdown.js';
import { openWordCheck } from '../../src/export/structure.js';
import { createTesseractEngine } from '../../src/ocr/index.js';
import { bookCorpus, drawPage as drawCorpusPage } from './book-corpus.js';
import { bookSetters } from './markdown-book.js';
import { drawSetter, type PageSetter } from './markdown-builder.js';

const dir = mkdtempSync(join(tmpdir(), 'quire-md-ocr-'));
const engine = createTesseractEngine({ workers: 2 });

afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The page as an image file. */
async function drawPage(setter: PageSetter, file: string): Promise<void> {
  writeFileSync(file, await drawSetter(setter));
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
    // Tesseract misses the lone `1` at the foot of page 1, so that page's printed number is not known; it reads the
    // two superscript calls as other marks (`four®`): they are linked all the same.
    const expected = readFileSync(new URL('./markdown-book.expected.md', import.meta.url), 'utf8').replace('<!-- page 1 (p. 1) -->', '<!-- page 1 -->');
    expect(markdown).toBe(expected);
  });
});

describe('documentToMarkdown on pages of a French book read by tesseract', () => {
  it('sets the margins apart, drops the running heads, links the garbled calls and keeps the apparatus whole', async () => {
    // The chapter's first page (title, side note, two calls, folio at the foot) and the page with a crowded head
    // whose folio OCR misreads, a Latin quotation with line numbers in the margin, and an apparatus.
    const chosen = [0, 3].map((i) => bookCorpus().pages[i]);
    const pages = await Promise.all(
      chosen.map(async (page, i) => {
        const file = join(dir, `corpus-${i + 1}.png`);
        writeFileSync(file, await drawCorpusPage(page));
        const { width, height, dpi } = page.ocr;
        return engine.recognize({ file, width, height, dpi }, ['fra', 'lat']);
      }),
    );
    const isWord = await openWordCheck(['fra', 'lat']);
    const markdown = documentToMarkdown(pages, { title: 'Les Confessions', ...(isWord ? { isWord } : {}) });
    const blocks = markdown.trim().split('\n\n');
    const loose = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').replace(/’/gu, "'");

    expect(blocks[0]).toBe('<!-- page 1 (p. 141) -->');
    expect(blocks[1]).toBe('# LIVRE SEPTIÈME');
    expect(loose(blocks[2])).toBe("> Difficultes persistantes sur l'idee de Dieu.");
    expect(blocks[3]).toMatch(/^Déjà mon adolescence .* par les yeux\[\^12\]\. Je ne me représentais/u);
    expect(markdown).toMatch(/immuable\[\^13\]\./u);
    expect(markdown).toContain('peut-être la seule lumière');
    expect(markdown).toMatch(/^\[\^12\]: Voir plus haut/mu);
    expect(markdown).toMatch(/^\[\^13\]: Trois adjectifs/mu);
    // The head of page 4 is gone (its number kept in the page's marker), and the line numbers beside the Latin.
    expect(markdown).toContain('<!-- page 2 (p. 144) -->');
    expect(loose(markdown.replace(/<!--.*?-->/gu, ''))).not.toMatch(/CONFESS|l44|144/u);
    const latin = blocks.find((b) => b.startsWith('Quid ergo amo')) ?? '';
    expect(latin).toMatch(/non haec amo, cum amo deum meum\.$/u);
    expect(latin).not.toMatch(/\b(35|40)\b/u);
    // The apparatus: its two lines in one block between its fences, never a list.
    const apparatus = blocks.find((b) => b.startsWith('<!-- apparatus -->\n35 candorem]')) ?? '';
    expect(apparatus.split('\n').slice(1, -1).join('\n').split('\\\n')).toHaveLength(2);
    expect(apparatus).toMatch(/\n<!-- \/apparatus -->$/u);
    expect(markdown).not.toMatch(/^\d+\. /mu);
  });
});
