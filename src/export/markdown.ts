/**
 * The `md` export: the document's structure ({@link readStructure}) written as Markdown. Pure: structure in, one
 * Markdown string out.
 *
 * - **Headings** `#` to `###`, levels clustered over the whole document.
 * - **Paragraphs** one line each; a paragraph crossing a page break is whole.
 * - **Footnotes** are Markdown footnotes: the call in the text is `[^14]` where the superscript stood, the note
 *   `[^14]: text` after the paragraph open at the end of its page. The label is the note's number (`14-2` for the
 *   second note numbered 14 in a book that numbers again by chapter; `star`, `dagger` for signs). A note nothing
 *   refers to (its number lost) is a plain paragraph.
 * - **Side notes** are blockquotes (`> Difficultés persistantes sur l'idée de Dieu.`) before the paragraph they
 *   stand beside: set apart from the text as the book sets them apart, read at the place they annotate.
 * - **Critical apparatus** lines stay together in one paragraph, one entry per line (hard line breaks), never a
 *   list.
 * - **Page markers** are HTML comments that do not show when rendered, only between blocks: `<!-- page N -->`
 *   before each page's first block, `<!-- page N (p. 305) -->` when the page's printed number is known; a page
 *   that begins inside a paragraph has its marker after that paragraph (and after the notes that follow it).
 *   `pageMarkers: false` leaves them out.
 * - **Margin reference numbers** (not line numbers) are comments where the line beside them starts:
 *   `… tamen <!-- ref 124 --> videbam …`; one that opens a paragraph stands just before it, a block of its own.
 * - **Figures** (regions the OCR read no text in) have no text to give: a comment marks where one stands
 *   (`<!-- figure on page 3 (p. 305) -->`), written with the page markers.
 * - **Escaping**: `\`, `` ` ``, `*`, `_`, `[^` and `<` before a letter are escaped everywhere; `#`, `>`, `+`, `-`,
 *   `=`, `~`, `|` and `1.`/`1)` at the start of a block. The text's Unicode is kept as it is.
 */
import type { OcrPage } from '../project/index.js';
import { readStructure, type DocumentStructure, type Inline, type StructureOptions } from './structure.js';
import { escapeInline, escapeLineStart } from './structure-text.js';

export interface MarkdownOptions extends StructureOptions {
  /** Write page markers (`<!-- page N -->`) between blocks; default true. */
  pageMarkers?: boolean;
}

/** Markdown for a whole document, pages in order. */
export function documentToMarkdown(pages: OcrPage[], options: MarkdownOptions = {}): string {
  return structureToMarkdown(readStructure(pages, options), options);
}

/** The structure as Markdown: blocks separated by blank lines, a final newline (nothing at all for no blocks). */
export function structureToMarkdown(structure: DocumentStructure, options: Pick<MarkdownOptions, 'pageMarkers'> = {}): string {
  const { pageMarkers = true } = options;
  const out: string[] = [];
  let deferred: number[] = [];
  const pageName = (page: number): string => {
    const { number, folio } = structure.pages[page];
    return `page ${number}${folio !== undefined ? ` (p. ${folio})` : ''}`;
  };
  const marker = (page: number): string => `<!-- ${pageName(page)} -->`;
  /** The text of inline content; a page break inside it is held back, to be marked after the block. */
  const inline = (content: Inline[]): string =>
    content
      .map((piece) => {
        if (piece.kind === 'text') return escapeInline(piece.text);
        if (piece.kind === 'noteCall') return `[^${piece.note}]`;
        if (piece.kind === 'marginRef') return ` <!-- ref ${piece.ref} -->`;
        deferred.push(piece.page);
        return '';
      })
      .join('')
      .trim();
  const flush = (): void => {
    if (pageMarkers) out.push(...deferred.map(marker));
    deferred = [];
  };

  for (const block of structure.blocks) {
    // A page that began inside a paragraph is marked after it, and after the notes and apparatus that follow it.
    if (block.kind !== 'footnote' && block.kind !== 'apparatus') flush();
    switch (block.kind) {
      case 'page':
        if (pageMarkers) out.push(marker(block.page));
        break;
      case 'heading':
        out.push(`${'#'.repeat(block.level)} ${inline(block.content)}`);
        break;
      case 'paragraph': {
        // A line opening with `<!--` would be an HTML block, not a paragraph: the references that open one stand
        // just before it.
        const lead = block.content.findIndex((piece) => piece.kind !== 'marginRef');
        const refs = block.content.slice(0, lead < 0 ? block.content.length : lead);
        if (refs.length) out.push(inline(refs));
        out.push(escapeLineStart(inline(block.content.slice(refs.length))));
        break;
      }
      case 'sideNote':
        out.push(`> ${escapeLineStart(inline(block.content))}`);
        break;
      case 'footnote': {
        const text = inline(block.content);
        out.push(block.id !== undefined ? `[^${block.id}]: ${text}`.trimEnd() : escapeLineStart(text));
        break;
      }
      case 'apparatus':
        // Fenced by comments, so that a reader (and a converter) sees where the apparatus starts and ends.
        out.push(`<!-- apparatus -->\n${block.lines.map((line) => escapeLineStart(inline(line))).join('\\\n')}\n<!-- /apparatus -->`);
        break;
      case 'figure':
        if (pageMarkers) out.push(`<!-- figure on ${pageName(block.page)} -->`);
        break;
    }
  }
  flush();
  return out.length ? `${out.join('\n\n')}\n` : '';
}
