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
 *    footnotes and apparatus after the paragraph open at their page's end.
 */
import { openLexicon } from '../ocr/index.js';
import type { OcrPage } from '../project/index.js';
import { headingLevels, layoutPage, sideNotes, usualTextWidth, type PageLayout } from './structure-classify.js';
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
  | { kind: 'pageBreak'; page: number };

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
  | { kind: 'apparatus'; lines: Inline[][] };

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
  return findRunningRows(rowsByPage, measureDocument(rowsByPage), options.title).furniture;
}

/** The structure of a whole document, pages in order. Pure: OCR pages in, structure out. */
export function readStructure(pages: OcrPage[], options: StructureOptions = {}): DocumentStructure {
  const regions = pages.map((page, i) => pageRegions(page, i));
  const rowsByPage = regions.map((r) => r.rows);
  const metrics = measureDocument(rowsByPage);
  const { running, furniture } = findRunningRows(rowsByPage, metrics, options.title);
  options.folios?.forEach((folio, i) => {
    if (folio !== undefined && furniture[i]) furniture[i] = { ...furniture[i], folio };
  });
  const content = rowsByPage.map((rows) => rows.filter((r) => !running.has(r)));
  const textWidth = usualTextWidth(content, metrics);
  const layouts = content.map((rows, i) => layoutPage(rows, metrics, (pages[i].height * 72) / (pages[i].dpi > 0 ? pages[i].dpi : 72), textWidth));
  const headings = layouts.flatMap((l) => l.items.flatMap((item) => (item.kind === 'heading' ? [item] : [])));
  const levelOf = headingLevels(headings, metrics.bodySize);
  const margins = regions.map((r) => sideNotes(r.margin));
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
  const blocks = arrangeBlocks(layouts, margins, links, (h) => levelOf(h) as 1 | 2 | 3, evidence);
  return { pages: info, blocks };
}

/** Text as it is assembled: words (glued to what precedes them, or after a space), calls and page breaks. */
type Token = { text: string; glued: boolean } | { call: string } | { pageBreak: number };

/** A block while it is assembled: its lines of tokens are joined at the end. */
type Draft =
  | { kind: 'page'; page: number }
  | { kind: 'heading'; level: 1 | 2 | 3; tokens: Token[] }
  | { kind: 'paragraph'; tokens: Token[]; lastText: string }
  | { kind: 'sideNote'; tokens: Token[] }
  | { kind: 'footnote'; id?: string; marker?: string; tokens: Token[] }
  | { kind: 'apparatus'; lines: Token[][] };

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
    tokens.push({ call: call.note });
    if (call.after) tokens.push({ text: call.after, glued: true });
  }
  for (const note of links.trailing.get(row) ?? []) tokens.push({ call: note });
  return tokens;
}

const wordTokens = (words: string[]): Token[] => words.map((text) => ({ text, glued: false }));

/** Add a line to a block's tokens, joining a word hyphenated across the line end (or across a page break). */
function appendLine(tokens: Token[], line: Token[], evidence: HyphenEvidence): void {
  let last = tokens.length - 1;
  while (last >= 0 && 'pageBreak' in tokens[last]) last--;
  const end = tokens[last];
  const start = line[0];
  if (end && 'text' in end && start && 'text' in start && !start.glued) {
    const joined = joinHyphenated(end.text, start.text, evidence);
    if (joined !== null) {
      tokens[last] = { text: joined, glued: end.glued };
      tokens.push(...line.slice(1));
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
  }
}

/**
 * Pages to blocks. A paragraph broken across a page break is stitched back together when the page's last body line
 * does not end a sentence and the next page's first body line starts in lower case or is not indented; the break
 * stays inside it. A page's footnotes and apparatus come after the paragraph open at the page's end. A side note
 * goes before the paragraph holding the first body line level with it (or below it).
 */
function arrangeBlocks(
  layouts: PageLayout[],
  margins: Row[][][],
  links: NoteLinks,
  levelOf: (heading: { size: number; style: number }) => 1 | 2 | 3,
  evidence: HyphenEvidence,
): Block[] {
  const drafts: Draft[] = [];
  let open: ParagraphDraft | null = null;
  let pendingFoot: Draft[] = [];
  const written = new Set<LinkedNote>();
  const close = (): void => {
    open = null;
    drafts.push(...pendingFoot);
    pendingFoot = [];
  };

  layouts.forEach((layout, page) => {
    // Each side note is anchored to the first body line level with it or below it (else the page's last line).
    const lines = layout.items.flatMap((item) => (item.kind === 'line' ? [item.row] : []));
    const anchored = new Map<Row, Draft[]>();
    for (const note of margins[page]) {
      const anchor = lines.find((r) => r.bottom >= note[0].top) ?? lines[lines.length - 1];
      const draft: Draft = { kind: 'sideNote', tokens: tokensOfLines(note.map((r) => wordTokens(r.words.map((w) => w.text))), evidence) };
      if (anchor) anchored.set(anchor, [...(anchored.get(anchor) ?? []), draft]);
      else pendingFoot.push(draft);
    }

    const first = layout.items[0];
    const stitched: ParagraphDraft | null =
      open !== null && first?.kind === 'line' && !isTerminated((open as ParagraphDraft).lastText) && (startsLowercase(first.row.text) || !first.indented)
        ? open
        : null;
    if (!stitched) {
      close();
      drafts.push({ kind: 'page', page });
    }
    layout.items.forEach((item, k) => {
      if (item.kind === 'heading') {
        close();
        drafts.push({ kind: 'heading', level: levelOf(item), tokens: tokensOfLines(item.rows.map((r) => rowTokens(r, links)), evidence) });
        return;
      }
      const line = rowTokens(item.row, links);
      if (k === 0 && stitched) {
        stitched.tokens.push({ pageBreak: page });
        appendLine(stitched.tokens, line, evidence);
        stitched.lastText = item.row.text;
      } else if (open && k > 0 && !item.startsParagraph) {
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
