/**
 * Margins read with the text by the engine: line numbers set close to a critical text (read right, read as letters,
 * glued to a hyphen) and a side note set close beside a chapter's first lines; and a critical apparatus whose lemma
 * brackets the OCR read as parentheses. What a reader finds in the Markdown.
 */
import { describe, expect, it } from 'vitest';
import { documentToMarkdown, readStructure, structureToMarkdown, withoutMarginRefs } from '../../src/export/index.js';
import { PageSetter } from './markdown-builder.js';
import {
  APPARATUS,
  APPARATUS_NOTE,
  APPARATUS_TEXT,
  MARGIN_TEXT,
  REFERENCE_BLOCKS,
  SIDE_NOTE,
  SIDE_NOTE_TEXT,
  apparatusPage,
  leftMarginPage,
  marginPage,
  referencePage,
  scoreReferences,
  sideNotePage,
} from './margin-captures.js';

/** The Markdown's blocks, the page marker left out. */
const blocks = (markdown: string): string[] =>
  markdown
    .trim()
    .split('\n\n')
    .filter((b) => !b.startsWith('<!-- page'));

describe('margins read with the text', () => {
  it('takes line numbers set half an em off the text out of the words, however the OCR read them', () => {
    // Beside lines 5, 10, 15, 20: `5`, `jd`, `15`, and `?$` glued to `cor-`.
    expect(blocks(documentToMarkdown([marginPage()]))).toEqual([MARGIN_TEXT]);
  });

  it('takes a verso’s line numbers set half an em left of the text out of the words, one read as letters', () => {
    // Beside lines 5, 10, 15, 20: `5`, `jd`, `15`, `20`, each the first word of its line as the engine read it.
    expect(blocks(documentToMarkdown([leftMarginPage()]))).toEqual([MARGIN_TEXT]);
  });

  it('keeps the numbers that end lines of a ragged page, past where most lines end, in the text', () => {
    const lines = [
      'The harvest of that year was the worst anyone',
      'remembered, and the granary held less than',
      'it had held in 1816',
      'when the summer never came; the miller said so',
      'often, and pointed to the marks on his door, at 12',
      'and 15 inches, where the flood had stood in',
      'the spring before, and nobody argued with him.',
    ];
    const setter = new PageSetter();
    lines.forEach((line) => setter.body(line, { end: true }));
    expect(blocks(documentToMarkdown([setter.page()]))).toEqual([lines.join(' ')]);
  });

  it('sets a side note read with the body lines beside it apart, as a blockquote before its paragraph', () => {
    expect(blocks(documentToMarkdown([sideNotePage()]))).toEqual([`> ${SIDE_NOTE}`, SIDE_NOTE_TEXT]);
  });
});

describe('the critical apparatus', () => {
  it('keeps the apparatus together after the text, fenced, one entry line per line, never footnotes, whatever the OCR made of its brackets', () => {
    const markdown = documentToMarkdown([apparatusPage()]);
    // The note’s call was not printed: it is called at the end of the page’s last sentence.
    expect(blocks(markdown)).toEqual([
      `${APPARATUS_TEXT}[^1]`,
      `<!-- apparatus -->\n${APPARATUS.join('\\\n')}\n<!-- /apparatus -->`,
      `[^1]: ${APPARATUS_NOTE.slice(3)}`,
    ]);
  });
});

describe('reference numbers in the margin', () => {
  it('keeps reference numbers as <!-- ref N --> markers where the line beside them starts, read apart or with the line', () => {
    expect(REFERENCE_BLOCKS[1]).toContain('incommutabilem <!-- ref 125 --> totis');
    expect(blocks(documentToMarkdown([referencePage('apart')]))).toEqual(REFERENCE_BLOCKS);
    expect(blocks(documentToMarkdown([referencePage('with-line')]))).toEqual(REFERENCE_BLOCKS);
  });

  it('drops line numbers counted in steps of five set the same way, leaving no marker', () => {
    expect(blocks(documentToMarkdown([referencePage('apart', true)]))).toEqual([MARGIN_TEXT]);
    expect(blocks(documentToMarkdown([referencePage('with-line', true)]))).toEqual([MARGIN_TEXT]);
  });

  it('leaves the reference numbers out altogether when asked (refs=drop)', () => {
    expect(blocks(structureToMarkdown(withoutMarginRefs(readStructure([referencePage('apart')]))))).toEqual([MARGIN_TEXT]);
  });
});

describe('the reference rows of the benchmark', () => {
  it('score full marks on both readings', () => {
    expect(['apart', 'with-line'].map((read) => scoreReferences(documentToMarkdown([referencePage(read as 'apart' | 'with-line')])))).toEqual([
      [4, 4],
      [4, 4],
    ]);
  });
});
