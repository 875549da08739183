/**
 * The synthetic book (`book-corpus.ts`: running heads the OCR reads differently, a side note and line numbers in the
 * margins, garbled superscript calls, notes continued across pages, an apparatus, line-end and page-end splits, real
 * hyphens, three ranks of headings) as a word-level OCR reports it: its Markdown is exactly
 * `markdown-corpus.expected.md`, and its structure says what a reflowing format needs.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentToMarkdown, structureToMarkdown } from '../../src/export/markdown.js';
import { openWordCheck, readStructure, type Block, type DocumentStructure } from '../../src/export/structure.js';
import type { OcrPage } from '../../src/project/index.js';
import { bookCorpus } from './book-corpus.js';
import { scoreCorpus } from './corpus-metrics.js';

const corpus = bookCorpus();
const pages: OcrPage[] = corpus.pages.map((p) => p.ocr);
let isWord: (word: string) => boolean;
let structure: DocumentStructure;

beforeAll(async () => {
  const check = await openWordCheck(['fra', 'lat']);
  if (!check) throw new Error('the French and Latin dictionaries (npm dictionary-fr, dictionary-la) are not installed');
  isWord = check;
  structure = readStructure(pages, { title: 'Les Confessions', isWord });
});

const textOf = (block: Block): string =>
  'content' in block ? block.content.map((piece) => (piece.kind === 'text' ? piece.text : piece.kind === 'noteCall' ? `[^${piece.note}]` : '|')).join('') : '';

describe('the Markdown of a synthetic book', () => {
  it('is exactly the expected file', () => {
    const expected = readFileSync(new URL('./markdown-corpus.expected.md', import.meta.url), 'utf8');
    expect(documentToMarkdown(pages, { title: 'Les Confessions', isWord })).toBe(expected);
  });

  it('scores full marks: no running head left, every note linked, every hyphen right, headings by rank, margins apart', () => {
    const scores = scoreCorpus(documentToMarkdown(pages, { title: 'Les Confessions', isWord }), corpus.truth);
    expect(scores.headLeaks.right).toBe(0);
    for (const measure of ['notesLinked', 'splitsJoined', 'compoundsKept', 'hyphensKept', 'headingLevels', 'lineNumbersOut', 'sideNotesApart'] as const) {
      expect({ measure, ...scores[measure] }).toEqual({ measure, right: scores[measure].total, total: scores[measure].total });
    }
    expect(scores.splitsJoined.total).toBeGreaterThanOrEqual(15);
  });

  it('leaves the page markers out with pageMarkers: false, and nothing else', () => {
    const withMarkers = documentToMarkdown(pages, { title: 'Les Confessions', isWord });
    const without = documentToMarkdown(pages, { title: 'Les Confessions', isWord, pageMarkers: false });
    expect(without).not.toContain('<!-- page');
    expect(without).toBe(withMarkers.replace(/<!-- page [^>]* -->\n\n/gu, ''));
  });

  it('joins a compound split at a line end without the lexicon only where the document shows it, and keeps the rest as before', () => {
    const markdown = documentToMarkdown(pages, { title: 'Les Confessions' });
    // Without a lexicon, a compound the document does not write elsewhere loses its hyphen…
    expect(markdown).toContain('l’arrièreplan');
    // …but one after a single letter keeps it, and so does one before a capital.
    expect(markdown).toContain('c’est-à-dire');
    expect(markdown).toContain('Jésus-Christ');
  });
});

describe('the structure of a synthetic book', () => {
  it('keeps each page’s printed number and running head, the folio read or inferred', () => {
    expect(structure.pages).toEqual([
      { number: 1, folio: '141' },
      { number: 2, folio: '142', runningHead: 'LES CONFESSIONS' },
      { number: 3, folio: '143', runningHead: 'LIVRE SEPTIEME, 1' },
      // OCR read the folio `l44`: the sequence gives it back.
      { number: 4, folio: '144', runningHead: 'LES CONFESSLONS' },
      { number: 5, folio: '145', runningHead: 'LIVRE SEPTIÈME, 2' },
      { number: 6, folio: '146', runningHead: 'LES C0NFESSIONS' },
    ]);
  });

  it('has the side note as a block of its own before the paragraph it stands beside', () => {
    const kinds = structure.blocks.slice(0, 4).map((b) => b.kind);
    expect(kinds).toEqual(['page', 'heading', 'sideNote', 'paragraph']);
    expect(textOf(structure.blocks[2])).toBe('Difficultés persistantes sur l’idée de Dieu.');
    expect(textOf(structure.blocks[3])).toMatch(/^Déjà mon adolescence/u);
  });

  it('keeps a paragraph crossing a page break whole, the break inside it where the page turns', () => {
    const crossing = structure.blocks.filter((b) => b.kind === 'paragraph' && b.content.some((piece) => piece.kind === 'pageBreak'));
    expect(crossing.map(textOf).map((t) => t.slice(t.indexOf('|') - 20, t.indexOf('|') + 12))).toEqual([
      ' je m’y tenais comme| à une plan',
      'rt de Constantinople| sans avoir',
    ]);
  });

  it('numbers the notes from their sequence, links each call, and joins the note continued on the next page', () => {
    const notes = structure.blocks.filter((b): b is Extract<Block, { kind: 'footnote' }> => b.kind === 'footnote');
    expect(notes.map((n) => n.id)).toEqual(['12', '13', '14', '15', '16', '17', '18', '19', '20', '21']);
    const calls = structure.blocks.flatMap((b) => ('content' in b ? b.content.flatMap((piece) => (piece.kind === 'noteCall' ? [piece.note] : [])) : []));
    expect(calls).toEqual(notes.map((n) => n.id));
    expect(textOf(notes[5])).toBe(
      'La comparaison de l’huile et de l’eau, qui revient souvent chez les auteurs de ce temps, se lit encore dans les commentaires les plus anciens du psautier.',
    );
  });

  it('keeps the apparatus line by line, apart from the notes', () => {
    const apparatus = structure.blocks.filter((b): b is Extract<Block, { kind: 'apparatus' }> => b.kind === 'apparatus');
    expect(apparatus.map((a) => a.lines.map((line) => line.map((piece) => (piece.kind === 'text' ? piece.text : '')).join('')))).toEqual([
      ['35 candorem] candore B | 37 omnimodarum om. P', '38 mella] mel A ‖ 40 non haec] nec haec B'],
    ]);
  });

  it('renders the same Markdown from the structure as from the pages', () => {
    expect(structureToMarkdown(structure)).toBe(documentToMarkdown(pages, { title: 'Les Confessions', isWord }));
  });
});
