/**
 * The `md` export: free-flowing Markdown from the OCR layout, in reading order across pages. Pure: OCR pages in,
 * one Markdown string out.
 *
 * It works from the geometry of the lines, not from the engine's paragraph grouping (engines group book pages
 * badly). The rules, in the order they apply:
 *
 * 1. **Rows.** Each page is flattened to lines in reading order (top to bottom; a page with two columns side by
 *    side is read left column first, lines crossing the gutter cutting the columns into bands). Lines side by side
 *    at the same height are one row. Each row gets a font size estimated from its glyph boxes and letters (so a
 *    line in capitals compares with a mixed-case one; a tilted line's slope is taken off) and a baseline. All
 *    measures are in points, so pages at different resolutions compare. Body size (the size most characters are
 *    set in) and line pitch are measured over the document; margins per page and column.
 * 2. **Running heads, running feet, page numbers** are dropped: see {@link findRunningRows} (lone page numbers;
 *    the book title or a chapter title repeated at the top of pages; short text repeated at the same edge of
 *    nearby pages, digits and small OCR differences aside; a short top line with a page number at its far end).
 *    The chapter's own title on its first page is kept.
 * 3. **Footnotes**: the rows below a short rule (OCR reads it as dashes) in the lower part of a page, or below the
 *    last large gap at the foot of a page when set smaller than the body (or at body size when they start with a
 *    number the text above refers to), see {@link findNotesStart}. Each note is its own block, written as a
 *    Markdown ordered-list item carrying the note's own number (`1. text`; `¹`, `(1)` and `[1]` become `1.`), or
 *    the note's sign (`\* text`, `† text`). A note continued from the previous page (no number on its first line,
 *    the previous note stopping mid-sentence) is joined to the previous note. A page's notes come after the
 *    paragraph that is open at the page's end, i.e. after the paragraph continued onto the next page. Plain
 *    paragraphs rather than `[^1]:` definitions, because renderers drop definitions nothing refers to, and the
 *    references in the text are too unreliable in OCR to link.
 * 4. **Headings** (see {@link layoutPage}): rows set 1.2× the body size or more with space above; short rows in
 *    capitals or centred that stand apart by space above and below; a short row alone between spaces that starts
 *    like a title and does not end like a sentence. Levels come from font size clustered over the whole document
 *    (`#` for the largest cluster, then `##`, then `###` for everything smaller), so the same kind of title gets
 *    the same level everywhere.
 * 5. **Paragraphs**: lines are joined with spaces; a new paragraph starts after extra space (≈ 1.4× the usual
 *    leading), at a first line indented by more than half an em, or after a line that ends a sentence short of the
 *    right edge. A paragraph broken across a page break is stitched back together when the page's last body line
 *    does not end a sentence and the next page's first body line starts in lower case or is not indented.
 * 6. **Hyphenation** at line ends is undone (`mo-` + `ment` → `moment`), but the hyphen is kept when the joined
 *    word is rarer in the document than the hyphenated one (`twenty-` + `four` stays `twenty-four` when
 *    `twenty-four` appears elsewhere), when the second part is capitalised (`Anglo-Saxon`) or after a digit.
 * 7. **Page boundaries** are HTML comments that do not show when rendered: `<!-- page N -->` on its own line
 *    before each page, or inside the paragraph at the point where a stitched paragraph crosses onto page N.
 *    N is `pageNumbers[i]` when given, else the page's position (1-based).
 * 8. **Escaping**: `\`, `` ` ``, `*`, `_` and `<` before a letter are escaped everywhere; `#`, `>`, `+`, `-`, `=`,
 *    `~`, `|` and `1.`/`1)` at the start of a block. The text's Unicode is kept as it is.
 */
import type { OcrPage } from '../project/index.js';
import { findRunningRows, headingLevels, layoutPage, usualTextWidth, type PageLayout } from './structure-classify.js';
import { measureDocument, pageRows, type Row } from './structure-rows.js';
import {
  buildDictionary,
  escapeInline,
  escapeLineStart,
  isTerminated,
  joinHyphenated,
  startsLowercase,
  type NoteMarker,
} from './structure-text.js';

export interface MarkdownOptions {
  /** The book's title: a top line repeating it is a running head. It is not written out. */
  title?: string;
  /** The number to write in each page's `<!-- page N -->` comment, by page index (default: index + 1). */
  pageNumbers?: number[];
}

/** The words of one line of a block; `pageMark` when this line is the first of a new page inside a paragraph. */
interface TextLine {
  words: string[];
  pageMark?: number;
}

type Block =
  | { kind: 'page'; number: number }
  | { kind: 'heading'; level: number; lines: TextLine[] }
  | { kind: 'paragraph'; lines: TextLine[]; lastText: string }
  | { kind: 'note'; marker: NoteMarker | null; lines: TextLine[] };

type Paragraph = Extract<Block, { kind: 'paragraph' }>;
type Note = Extract<Block, { kind: 'note' }>;

const wordsOf = (row: Row): TextLine => ({ words: row.words.map((w) => w.text) });

/** Markdown for a whole document, pages in order. See the module comment for the rules. */
export function documentToMarkdown(pages: OcrPage[], options: MarkdownOptions = {}): string {
  const { title, pageNumbers } = options;
  const rowsByPage = pages.map((page, i) => pageRows(page, i));
  const metrics = measureDocument(rowsByPage);
  const running = findRunningRows(rowsByPage, metrics, title);
  const content = rowsByPage.map((rows) => rows.filter((r) => !running.has(r)));
  const textWidth = usualTextWidth(content, metrics);
  const layouts = content.map((rows, i) => layoutPage(rows, metrics, (pages[i].height * 72) / (pages[i].dpi > 0 ? pages[i].dpi : 72), textWidth));
  const levelOf = headingLevels(layouts.flatMap((l) => l.items.flatMap((item) => (item.kind === 'heading' ? [item.size] : []))));
  const dictionary = buildDictionary(rowsByPage.flat().map((r) => r.text));
  const blocks = arrangeBlocks(layouts, levelOf, (i) => pageNumbers?.[i] ?? i + 1);
  return blocks.length ? `${blocks.map((b) => renderBlock(b, dictionary)).join('\n\n')}\n` : '';
}

/** Pages to blocks: paragraphs stitched across page breaks, footnotes after the paragraph open at their page's end. */
function arrangeBlocks(layouts: PageLayout[], levelOf: (size: number) => number, pageNumber: (index: number) => number): Block[] {
  const blocks: Block[] = [];
  let open: Paragraph | null = null;
  let pendingNotes: Note[] = [];
  let lastNote: Note | null = null;
  const close = (): void => {
    open = null;
    blocks.push(...pendingNotes);
    pendingNotes = [];
  };

  layouts.forEach((layout, index) => {
    const number = pageNumber(index);
    const first = layout.items[0];
    const stitched: Paragraph | null =
      open !== null && first?.kind === 'line' && !isTerminated(open.lastText) && (startsLowercase(first.row.text) || !first.indented)
        ? open
        : null;
    if (!stitched) {
      close();
      blocks.push({ kind: 'page', number });
    }
    layout.items.forEach((item, k) => {
      if (item.kind === 'heading') {
        close();
        blocks.push({ kind: 'heading', level: levelOf(item.size), lines: item.rows.map(wordsOf) });
        return;
      }
      const line = wordsOf(item.row);
      if (k === 0 && stitched) {
        stitched.lines.push({ ...line, pageMark: number });
        stitched.lastText = item.row.text;
      } else if (open && k > 0 && !item.startsParagraph) {
        open.lines.push(line);
        open.lastText = item.row.text;
      } else {
        close();
        open = { kind: 'paragraph', lines: [line], lastText: item.row.text };
        blocks.push(open);
      }
    });
    for (const note of layout.notes) {
      const lines = note.rows.map(wordsOf);
      // A note without a number at the top of the notes continues the last one, if that one stopped mid-sentence.
      const lastText = lastNote?.lines[lastNote.lines.length - 1]?.words.join(' ') ?? '';
      if (note.marker === null && lastNote && !isTerminated(lastText)) {
        lastNote.lines.push(...lines);
        continue;
      }
      if (note.marker) lines[0] = { words: [note.marker.rest, ...lines[0].words.slice(1)].filter((w) => w !== '') };
      lastNote = { kind: 'note', marker: note.marker, lines };
      pendingNotes.push(lastNote);
    }
  });
  close();
  return blocks;
}

/** The lines of a block as one line of Markdown: words joined by spaces, hyphenated line ends joined, page marks inside. */
function renderLines(lines: TextLine[], dictionary: ReadonlyMap<string, number>): string {
  const out: string[] = [];
  let lastWord: { raw: string; at: number } | null = null;
  for (const line of lines) {
    const words = [...line.words];
    if (lastWord && words.length > 0) {
      const joined = joinHyphenated(lastWord.raw, words[0], dictionary);
      if (joined !== null) {
        out[lastWord.at] = escapeInline(joined);
        lastWord = { raw: joined, at: lastWord.at };
        words.shift();
      }
    }
    if (line.pageMark !== undefined) out.push(`<!-- page ${line.pageMark} -->`);
    for (const word of words) {
      out.push(escapeInline(word));
      lastWord = { raw: word, at: out.length - 1 };
    }
  }
  return out.join(' ');
}

function renderBlock(block: Block, dictionary: ReadonlyMap<string, number>): string {
  switch (block.kind) {
    case 'page':
      return `<!-- page ${block.number} -->`;
    case 'heading':
      return `${'#'.repeat(block.level)} ${renderLines(block.lines, dictionary)}`;
    case 'paragraph':
      return escapeLineStart(renderLines(block.lines, dictionary));
    case 'note': {
      const text = escapeLineStart(renderLines(block.lines, dictionary));
      if (!block.marker) return text;
      const marker = block.marker.numeric ? `${block.marker.marker}.` : escapeInline(block.marker.marker);
      return text ? `${marker} ${text}` : marker;
    }
  }
}
