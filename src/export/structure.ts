/**
 * The document's structure as data: what a reader sees in the pages (headings, paragraphs, footnotes with their
 * calls, side notes, critical apparatus, page boundaries), read from the OCR layout of the whole document. The
 * Markdown export renders it, and a reflowing format renders the same structure.
 *
 * It is read from the geometry of the lines, not from the engine's grouping (engines group book pages badly), in
 * steps, each in its own module:
 * 1. **Rows and margins** (`structure-rows.ts`): each page's lines in reading order, with font size and baseline
 *    measured in points; text in a narrow column beside the text block (side notes, line and verse numbers) is set
 *    apart first, so it never enters a sentence.
 * 2. **Running heads and page numbers** (`structure-running.ts`): found by recurrence across pages, dropped, and
 *    kept as each page's printed number and running head ({@link PageInfo}).
 * 3. **Headings, body lines and the foot** (`structure-classify.ts`): headings by size, capitals, centring and
 *    isolation, levels clustered over the document; footnotes and apparatus at the foot.
 * 4. **Footnotes** (`structure-notes.ts`): numbered from their sequence, linked to their calls in the text.
 * 5. **Blocks** (here): paragraphs stitched across page breaks (the break kept inline), line-end hyphens decided by
 *    evidence (the document, then the language's lexicon), side notes before the paragraph they stand beside,
 *    figures (regions the OCR read no text in, found on the page images by the caller) at their place, footnotes and
 *    apparatus after the paragraph open at their page's end.
 */
import { openLexicon } from '../ocr/index.js';
import type { OcrBox, OcrPage } from '../project/index.js';
import {
  headingLevels,
  layoutPage,
  marginReferences,
  sideNotes,
  usualTextWidth,
  type HeadingItem,
  type LineItem,
  type PageLayout,
} from './structure-classify.js';
import { linkNotes, type LinkedNote, type NoteLinks } from './structure-notes.js';
import { measureDocument, pageRegions, type Row } from './structure-rows.js';
import { findRunningRows } from './structure-running.js';
import { buildDictionary, isTerminated, joinHyphenated, startsLowercase, type HyphenEvidence } from './structure-text.js';

/** A piece of running text: words, a call to a footnote, or the place in the text where a new page begins. */
export type Inline =
  | { kind: 'text'; text: string }
  /** `note` is the footnote's `id`. */
  | { kind: 'noteCall'; note: string }
  /** `page` indexes {@link DocumentStructure.pages}. */
  | { kind: 'pageBreak'; page: number }
  /** A reference number printed in the margin (`124`: a column or page of another edition) beside the line starting here. */
  | { kind: 'marginRef'; ref: string };

/** One block of the document, in reading order. */
export type Block =
  /** A page begins here, between blocks (`page` indexes {@link DocumentStructure.pages}). */
  | { kind: 'page'; page: number }
  | { kind: 'heading'; level: 1 | 2 | 3; content: Inline[] }
  | { kind: 'paragraph'; content: Inline[] }
  /** A note printed in the margin, placed before the paragraph it stands beside. */
  | { kind: 'sideNote'; content: Inline[] }
  /**
   * A footnote, after the paragraph open at the end of its page; `id` is what its calls name (absent when no call
   * refers to it: its number was lost), `marker` the number or sign as printed.
   */
  | { kind: 'footnote'; id?: string; marker?: string; content: Inline[] }
  /** Lines of a critical apparatus, kept line by line. */
  | { kind: 'apparatus'; lines: Inline[][] }
  /**
   * A region of a page the OCR could not read as text (a picture, a diagram, a ruled table), to be shown as that part
   * of the page image: `box` is in the page's OCR pixels (those of its page image).
   */
  | { kind: 'figure'; page: number; box: OcrBox };

/** What the document says about one of its pages. */
export interface PageInfo {
  /** The page's number in the document, 1-based (or as given in {@link StructureOptions.pageNumbers}). */
  number: number;
  /** The page number printed on the page (`305`, `xiv`), read from its running head or foot, or inferred. */
  folio?: string;
  /** The running head's words, its page number left out. */
  runningHead?: string;
}

export interface DocumentStructure {
  pages: PageInfo[];
  blocks: Block[];
}

export interface StructureOptions {
  /** The book's title: a top line repeating it is a running head. */
  title?: string;
  /** The number of each page, by page index (default: index + 1). */
  pageNumbers?: number[];
  /** The printed page number of each page, by page index, in place of those read from the pages (known corrections). */
  folios?: (string | undefined)[];
  /** The languages' lexicon, for line-end hyphens the document alone cannot decide ({@link openWordCheck}). */
  isWord?: (word: string) => boolean;
  /**
   * Regions of each page (by page index, in its OCR pixels) the OCR read no text in: each becomes a `figure` block at
   * its place, and the doubtful words the engine made of the picture inside it are dropped.
   */
  figures?: OcrBox[][];
}

/** Below this confidence, a word inside a figure is the engine's reading of the picture, not text. */
const FIGURE_WORD_CONFIDENCE = 60;

/** The page without the doubtful words read inside its figures (strokes of a drawing read as `| ~ =`). */
function withoutFigureWords(page: OcrPage, figures: OcrBox[] | undefined): OcrPage {
  if (!figures?.length) return page;
  const inside = (b: OcrBox): boolean => {
    const [x, y] = [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2];
    return figures.some((f) => x >= f.x0 && x < f.x1 && y >= f.y0 && y < f.y1);
  };
  const blocks = page.blocks.map((block) => ({
    ...block,
    paragraphs: block.paragraphs.map((paragraph) => ({
      ...paragraph,
      lines: paragraph.lines.map((line) => ({ ...line, words: line.words.filter((w) => w.confidence >= FIGURE_WORD_CONFIDENCE || !inside(w.box)) })),
    })),
  }));
  return { ...page, blocks };
}

/**
 * A word check over the lexicons of `languages` (tesseract codes; those without an installed dictionary are left
 * out): true when one of them spells the word this way. Undefined when none has a dictionary.
 */
export async function openWordCheck(languages: string[]): Promise<((word: string) => boolean) | undefined> {
  const lexicons = (await Promise.all([...new Set(languages)].map((language) => openLexicon(language)))).filter((l) => l !== null);
  return lexicons.length ? (word) => lexicons.some((lexicon) => lexicon.has(word)) : undefined;
}

/**
 * What each page prints about itself (its printed number and running head), read from the running heads and feet of
 * the whole document: the first steps of {@link readStructure} alone.
 */
export function readPrintedPages(pages: OcrPage[], options: Pick<StructureOptions, 'title'> = {}): { folio?: string; runningHead?: string }[] {
  const rowsByPage = pages.map((page, i) => pageRegions(page, i).rows);
  return findRunningRows(rowsByPage, measureDocument(rowsByPage), options.title, pages.map(pageHeight)).furniture;
}

/** The structure without its margin reference numbers (`md:refs=drop`). */
export function withoutMarginRefs(structure: DocumentStructure): DocumentStructure {
  const keep = (content: Inline[]): Inline[] => content.filter((piece) => piece.kind !== 'marginRef');
  const blocks = structure.blocks.map((block): Block => {
    if (block.kind === 'apparatus') return { ...block, lines: block.lines.map(keep) };
    return 'content' in block ? { ...block, content: keep(block.content) } : block;
  });
  return { ...structure, blocks };
}

/** A page's height in points. */
const pageHeight = (page: OcrPage): number => (page.height * 72) / (page.dpi > 0 ? page.dpi : 72);

/** The structure of a whole document, pages in order. Pure: OCR pages in, structure out. */
export function readStructure(ocrPages: OcrPage[], options: StructureOptions = {}): DocumentStructure {
  const pages = ocrPages.map((page, i) => withoutFigureWords(page, options.figures?.[i]));
  const regions = pages.map((page, i) => pageRegions(page, i));
  const rowsByPage = regions.map((r) => r.rows);
  const metrics = measureDocument(rowsByPage);
  const { running, furniture } = findRunningRows(rowsByPage, metrics, options.title, pages.map(pageHeight));
  options.folios?.forEach((folio, i) => {
    if (folio !== undefined && furniture[i]) furniture[i] = { ...furniture[i], folio };
  });
  const content = rowsByPage.map((rows) => rows.filter((r) => !running.has(r)));
  const textWidth = usualTextWidth(content, metrics);
  const layouts = content.map((rows, i) => layoutPage(rows, metrics, pageHeight(pages[i]), textWidth));
  const headings = layouts.flatMap((l) => l.items.flatMap((item) => (item.kind === 'heading' ? [item] : [])));
  const levelOf = headingLevels(headings, metrics.bodySize);
  const margins = regions.map((r) => sideNotes(r.margin));
  const references = regions.map((r) => marginReferences(r.margin));
  const evidence: HyphenEvidence = {
    counts: buildDictionary([...content.flat(), ...margins.flat(2)].map((r) => r.text)),
    ...(options.isWord ? { isWord: options.isWord } : {}),
  };
  const info: PageInfo[] = pages.map((_, i) => ({ number: options.pageNumbers?.[i] ?? i + 1, ...furniture[i] }));
  // Where the text sets a space before `;` `:` `?` `!` (French), one of them glued to a word is more likely a
  // misread note call. Read from the pages: a page that clearly does one or the other says so (a document may mix
  // languages), the others follow the document.
  const punctuation = content.map((rows) => {
    const words = rows.flatMap((r) => r.words.map((w) => w.text));
    return { apart: words.filter((w) => /^[;:?!»]$/u.test(w)).length, glued: words.filter((w) => /\p{L}[;:?!]$/u.test(w)).length };
  });
  const documentSpaced = punctuation.reduce((sum, p) => sum + p.apart - p.glued, 0) > 0;
  const spaced = punctuation.map(({ apart, glued }) => (apart > glued + 2 ? true : glued > apart + 2 ? false : documentSpaced));
  const links = linkNotes(layouts, (i) => spaced[i]);
  const figures = pages.map((page, i) => {
    const scale = 72 / (page.dpi > 0 ? page.dpi : 72);
    return (options.figures?.[i] ?? []).map((box) => ({ box, x0: box.x0 * scale, x1: box.x1 * scale, top: box.y0 * scale }));
  });
  const blocks = arrangeBlocks(layouts, { notes: margins, references }, figures, links, (h) => levelOf(h) as 1 | 2 | 3, evidence);
  return { pages: info, blocks };
}

/** Text as it is assembled: words (glued to what precedes them, or after a space), calls and page breaks. */
type Token = { text: string; glued: boolean } | { call: string } | { pageBreak: number } | { ref: string };

/** A block while it is assembled: its lines of tokens are joined at the end. */
type Draft =
  | { kind: 'page'; page: number }
  | { kind: 'heading'; level: 1 | 2 | 3; tokens: Token[] }
  | { kind: 'paragraph'; tokens: Token[]; lastText: string }
  | { kind: 'sideNote'; tokens: Token[] }
  | { kind: 'footnote'; id?: string; marker?: string; tokens: Token[] }
  | { kind: 'apparatus'; lines: Token[][] }
  | { kind: 'figure'; page: number; box: OcrBox };

/** A figure and where it stands on its page, in points. */
interface PlacedFigure {
  box: OcrBox;
  x0: number;
  x1: number;
  top: number;
}

type ParagraphDraft = Extract<Draft, { kind: 'paragraph' }>;

/** A body row's tokens: calls cut out of the words they are glued to, calls that found no place at the row's end. */
function rowTokens(row: Row, links: NoteLinks): Token[] {
  const tokens: Token[] = [];
  for (const word of row.words) {
    const call = links.calls.get(word);
    if (!call) {
      tokens.push({ text: word.text, glued: false });
      continue;
    }
    if (call.before) tokens.push({ text: call.before, glued: false });
    if (call.note !== undefined) tokens.push({ call: call.note });
    if (call.after) tokens.push({ text: call.after, glued: true });
  }
  for (const note of links.trailing.get(row) ?? []) tokens.push({ call: note });
  return tokens;
}

const wordTokens = (words: string[]): Token[] => words.map((text) => ({ text, glued: false }));

/**
 * Add a line to a block's tokens, joining a word hyphenated across the line end (or across a page break). The line's
 * margin references then follow the joined word.
 */
function appendLine(tokens: Token[], line: Token[], evidence: HyphenEvidence): void {
  let last = tokens.length - 1;
  while (last >= 0 && 'pageBreak' in tokens[last]) last--;
  const end = tokens[last];
  const lead = line.findIndex((t) => !('ref' in t));
  const refs = line.slice(0, lead < 0 ? line.length : lead);
  const start = line[refs.length];
  if (end && 'text' in end && start && 'text' in start && !start.glued) {
    const joined = joinHyphenated(end.text, start.text, evidence);
    if (joined !== null) {
      tokens[last] = { text: joined, glued: end.glued };
      tokens.push(...refs, ...line.slice(refs.length + 1));
      return;
    }
  }
  tokens.push(...line);
}

function tokensOfLines(lines: Token[][], evidence: HyphenEvidence): Token[] {
  const tokens: Token[] = [];
  for (const line of lines) appendLine(tokens, line, evidence);
  return tokens;
}

/** Tokens to inline content: words spaced, calls glued to the word before them, page breaks between words. */
function toInline(tokens: Token[]): Inline[] {
  const out: Inline[] = [];
  let text = '';
  let spaceDue = false;
  const flush = (): void => {
    if (text) out.push({ kind: 'text', text });
    text = '';
  };
  for (const token of tokens) {
    if ('text' in token) {
      text += (spaceDue && !token.glued ? ' ' : '') + token.text;
      spaceDue = true;
    } else if ('call' in token) {
      flush();
      out.push({ kind: 'noteCall', note: token.call });
    } else if ('ref' in token) {
      flush();
      out.push({ kind: 'marginRef', ref: token.ref });
      spaceDue = true;
    } else {
      flush();
      out.push({ kind: 'pageBreak', page: token.pageBreak });
    }
  }
  flush();
  return out;
}

function finish(draft: Draft): Block {
  switch (draft.kind) {
    case 'page':
      return draft;
    case 'heading':
      return { kind: 'heading', level: draft.level, content: toInline(draft.tokens) };
    case 'paragraph':
      return { kind: 'paragraph', content: toInline(draft.tokens) };
    case 'sideNote':
      return { kind: 'sideNote', content: toInline(draft.tokens) };
    case 'footnote':
      return {
        kind: 'footnote',
        ...(draft.id !== undefined ? { id: draft.id } : {}),
        ...(draft.marker !== undefined ? { marker: draft.marker } : {}),
        content: toInline(draft.tokens),
      };
    case 'apparatus':
      return { kind: 'apparatus', lines: draft.lines.map(toInline) };
    case 'figure':
      return draft;
  }
}

/**
 * Each margin reference number's row of the text block: the one most level with it, else the first below it, else
 * the page's last.
 */
function referencesByRow(layout: PageLayout, references: { row: Row; ref: string }[]): Map<Row, string[]> {
  const rows = layout.items.flatMap((item) => (item.kind === 'heading' ? item.rows : [item.row]));
  const byRow = new Map<Row, string[]>();
  for (const { row, ref } of references) {
    const overlap = (r: Row): number => Math.min(r.bottom, row.bottom) - Math.max(r.top, row.top);
    const level = rows.filter((r) => overlap(r) > 0).sort((a, b) => overlap(b) - overlap(a))[0];
    const anchor = level ?? rows.find((r) => r.top >= row.top) ?? rows[rows.length - 1];
    if (anchor) byRow.set(anchor, [...(byRow.get(anchor) ?? []), ref]);
  }
  return byRow;
}

/**
 * Pages to blocks. A paragraph broken across a page break is stitched back together when the page's last body line
 * does not end a sentence and the next page's first body line starts in lower case or is not indented; the break
 * stays inside it. A page's footnotes and apparatus come after the paragraph open at the page's end. A side note
 * goes before the paragraph holding the first body line level with it (or below it). A figure goes before the first
 * heading or paragraph that starts below its top (in its column); inside a paragraph that runs on past it (the line
 * below it goes on with an unfinished sentence), after that paragraph; when nothing follows it on its page, after the
 * paragraph open at the page's end. A margin reference number starts the line level with it (or the next below it).
 */
function arrangeBlocks(
  layouts: PageLayout[],
  margins: { notes: Row[][][]; references: { row: Row; ref: string }[][] },
  figures: PlacedFigure[][],
  links: NoteLinks,
  levelOf: (heading: { size: number; style: number }) => 1 | 2 | 3,
  evidence: HyphenEvidence,
): Block[] {
  const drafts: Draft[] = [];
  let open: ParagraphDraft | null = null;
  let pendingFoot: Draft[] = [];
  /** Figures waiting for the paragraph they stand in to end: they go before its notes. */
  let pendingFigures: Draft[] = [];
  const written = new Set<LinkedNote>();
  const close = (): void => {
    open = null;
    drafts.push(...pendingFigures, ...pendingFoot);
    pendingFigures = [];
    pendingFoot = [];
  };

  layouts.forEach((layout, page) => {
    // Each side note is anchored to the first body line level with it or below it (else the page's last line).
    const lines = layout.items.flatMap((item) => (item.kind === 'line' ? [item.row] : []));
    const anchored = new Map<Row, Draft[]>();
    for (const note of margins.notes[page]) {
      const anchor = lines.find((r) => r.bottom >= note[0].top) ?? lines[lines.length - 1];
      const draft: Draft = {
        kind: 'sideNote',
        tokens: tokensOfLines(
          note.map((r) => wordTokens(r.words.map((w) => w.text))),
          evidence,
        ),
      };
      if (anchor) anchored.set(anchor, [...(anchored.get(anchor) ?? []), draft]);
      else pendingFoot.push(draft);
    }

    const refsAt = referencesByRow(layout, margins.references[page]);
    const tokensOf = (row: Row): Token[] => [...(refsAt.get(row) ?? []).map((ref) => ({ ref })), ...rowTokens(row, links)];

    const first = layout.items[0];
    const stitched: ParagraphDraft | null =
      open !== null && first?.kind === 'line' && !isTerminated((open as ParagraphDraft).lastText) && (startsLowercase(first.row.text) || !first.indented)
        ? open
        : null;
    if (!stitched) {
      close();
      drafts.push({ kind: 'page', page });
    }
    // Each figure is anchored to the first item of the page starting below its top, in its column when one is.
    const figureAnchors = new Map<HeadingItem | LineItem, Draft[]>();
    for (const figure of [...figures[page]].sort((a, b) => a.top - b.top)) {
      const rowOf = (item: HeadingItem | LineItem): Row => (item.kind === 'heading' ? item.rows[0] : item.row);
      const below = layout.items.filter((item) => rowOf(item).top >= figure.top);
      const anchor = below.find((item) => Math.min(rowOf(item).x1, figure.x1) > Math.max(rowOf(item).x0, figure.x0)) ?? below[0];
      const draft: Draft = { kind: 'figure', page, box: figure.box };
      if (anchor) figureAnchors.set(anchor, [...(figureAnchors.get(anchor) ?? []), draft]);
      else pendingFigures.push(draft);
    }
    layout.items.forEach((item, k) => {
      const anchoredFigures = figureAnchors.get(item);
      // The space a figure takes is no paragraph break: a line below it that goes on with the sentence continues.
      const pastFigure =
        anchoredFigures !== undefined &&
        item.kind === 'line' &&
        open !== null &&
        !isTerminated((open as ParagraphDraft).lastText) &&
        startsLowercase(item.row.text) &&
        !item.indented;
      if (anchoredFigures) {
        const continuesParagraph =
          item.kind === 'line' && ((k === 0 && stitched !== null) || (open !== null && k > 0 && (!item.startsParagraph || pastFigure)));
        if (continuesParagraph) {
          pendingFigures.push(...anchoredFigures);
        } else {
          close();
          drafts.push(...anchoredFigures);
        }
      }
      if (item.kind === 'heading') {
        close();
        drafts.push({ kind: 'heading', level: levelOf(item), tokens: tokensOfLines(item.rows.map(tokensOf), evidence) });
        return;
      }
      const line = tokensOf(item.row);
      if (k === 0 && stitched) {
        stitched.tokens.push({ pageBreak: page });
        appendLine(stitched.tokens, line, evidence);
        stitched.lastText = item.row.text;
      } else if (open && k > 0 && (!item.startsParagraph || pastFigure)) {
        appendLine(open.tokens, line, evidence);
        open.lastText = item.row.text;
      } else {
        close();
        open = { kind: 'paragraph', tokens: line, lastText: item.row.text };
        drafts.push(open);
      }
      const notes = anchored.get(item.row);
      if (notes && open) drafts.splice(drafts.indexOf(open), 0, ...notes);
    });
    for (const item of layout.foot) {
      if (item.kind === 'apparatus') {
        pendingFoot.push({ kind: 'apparatus', lines: item.rows.map((r) => wordTokens(r.words.map((w) => w.text))) });
        continue;
      }
      const note = links.notes.get(item);
      if (!note || written.has(note)) continue;
      written.add(note);
      // A note continued on later pages already holds all its lines, and is written once, with its first part.
      pendingFoot.push({
        kind: 'footnote',
        ...(note.id !== undefined ? { id: note.id } : {}),
        ...(note.marker !== undefined ? { marker: note.marker } : {}),
        tokens: tokensOfLines(note.lines.map(wordTokens), evidence),
      });
    }
  });
  close();
  return drafts.map(finish);
}
