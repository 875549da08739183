/**
 * The `epub` export's text: the document's structure ({@link readStructure}) as XHTML content documents, the same
 * structure the Markdown export writes, reflowed. Pure: structure in, files' text out.
 *
 * - **Files**: one per chapter. A new file starts at each top-level heading — the highest heading level the
 *   document uses more than once (a book's title set once above its chapters does not count), else its highest —
 *   once the file holds text; a very long chapter is cut further at a page boundary, since some reading systems
 *   slow down on large files.
 * - **Headings** `h1`–`h3` at their levels, each with an id the navigation links to.
 * - **Footnotes** are EPUB 3 notes: the call is `<a epub:type="noteref">` in a superscript, the note an
 *   `<aside epub:type="footnote">` where the Markdown puts it (after the paragraph open at the end of its page;
 *   at the end of the chapter that calls it when that page opens the next chapter), opening with its number linked
 *   back to the call. Reading systems show it in a pop-up. A note nothing refers to is a paragraph of class `note`.
 * - **Side notes** are `<aside class="sidenote">` before the paragraph they stand beside, shown in the text.
 * - **Critical apparatus** lines stay one block, one entry per line.
 * - **Margin reference numbers** are a small `<span class="margin-ref">[124]</span>` where the line beside them starts.
 * - **Page breaks**: where a page with a known printed number begins, an empty
 *   `<span epub:type="pagebreak">` named by that number, for the page list.
 * - **Figures** are `<figure><img/></figure>` of the page image's region, where the caller has the image.
 */
import type { Block, DocumentStructure, Inline } from './structure.js';

export type FigureBlock = Extract<Block, { kind: 'figure' }>;

/** One content document of the package. */
export interface EpubChapter {
  /** Its file name in the package, beside the navigation document (`chapter-1.xhtml`). */
  file: string;
  /** Its first heading's text, else the book's title. */
  title: string;
  xhtml: string;
}

/** A heading as the navigation lists it. */
export interface TocEntry {
  label: string;
  /** `chapter-2.xhtml#heading-3`. */
  href: string;
  level: 1 | 2 | 3;
}

/** A printed page as the page list names it. */
export interface PageTarget {
  /** The number printed on the page (`305`, `xiv`). */
  label: string;
  href: string;
}

export interface EpubContent {
  chapters: EpubChapter[];
  toc: TocEntry[];
  pages: PageTarget[];
}

export interface EpubContentOptions {
  /** The book's title: the `<title>` of files that open without a heading. */
  title: string;
  /** BCP-47 tag of the main language (`fr`). */
  language: string;
  /**
   * The image of a figure (the `n`th of the document, from 1), relative to the content documents, and its text
   * alternative; a figure without one is left out.
   */
  figureImage?: (figure: FigureBlock, n: number) => { href: string; alt: string } | undefined;
  /** A chapter longer than this many characters of XHTML is cut at its next page boundary (default 200,000). */
  maxChapterChars?: number;
  /** The stylesheet, relative to the content documents. */
  stylesheet?: string;
}

/** Characters XML 1.0 does not allow (C0 controls but tab and line ends, lone surrogates), and C1 controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

/** Text for XML content or a double-quoted attribute value; characters XML cannot hold are dropped. */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML, '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
}

/** A token safe in an XML id (`14`, `3-2`, `star` stay as they are). */
function idPart(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The text of inline content, calls and page breaks left out, spaces collapsed. */
export function plainText(content: Inline[]): string {
  return content
    .map((piece) => (piece.kind === 'text' ? piece.text : ''))
    .join('')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** The level of heading that starts a chapter (see the module's note); undefined when the document has none. */
export function chapterLevel(blocks: readonly Block[]): number | undefined {
  const counts = new Map<number, number>();
  for (const b of blocks) if (b.kind === 'heading') counts.set(b.level, (counts.get(b.level) ?? 0) + 1);
  const levels = [...counts.keys()].sort((a, b) => a - b);
  return levels.find((level) => (counts.get(level) ?? 0) >= 2) ?? levels[0];
}

/** The blocks of each file (see the module's note). */
function splitChapters(blocks: readonly Block[], maxChars: number): Block[][] {
  const level = chapterLevel(blocks);
  const files: Block[][] = [[]];
  let hasText = false;
  let size = 0;
  const startFile = (): void => {
    const current = files[files.length - 1];
    // The page markers just before a chapter's heading belong to the chapter: its first page starts there.
    let keep = current.length;
    while (keep > 0 && current[keep - 1].kind === 'page') keep--;
    files.push(current.splice(keep));
    hasText = false;
    size = 0;
  };
  for (const block of blocks) {
    const opensChapter = block.kind === 'heading' && level !== undefined && block.level <= level;
    if ((opensChapter && hasText) || (block.kind === 'page' && size > maxChars)) startFile();
    files[files.length - 1].push(block);
    if (block.kind !== 'page' && block.kind !== 'heading') hasText = true;
    size += roughSize(block);
  }
  const filled = files.filter((f) => f.length > 0);
  // A document with no text still has one (empty) content document: a publication needs one.
  return filled.length > 0 ? keepNotesWithCalls(filled) : [[]];
}

/**
 * A note printed on a page where the next chapter starts comes after that chapter's first paragraphs: it moves to
 * the end of the chapter that calls it, so a reading system without pop-ups shows it with its chapter.
 */
function keepNotesWithCalls(files: Block[][]): Block[][] {
  const firstCall = new Map<string, number>();
  files.forEach((blocks, i) => {
    for (const block of blocks) {
      for (const content of inlineOf(block)) {
        for (const piece of content) if (piece.kind === 'noteCall' && !firstCall.has(piece.note)) firstCall.set(piece.note, i);
      }
    }
  });
  return files.map((blocks, i) => {
    const moved = files.flatMap((other, j) => (j > i ? other.filter((b) => b.kind === 'footnote' && b.id !== undefined && firstCall.get(b.id) === i) : []));
    const kept = blocks.filter((b) => !(b.kind === 'footnote' && b.id !== undefined && (firstCall.get(b.id) ?? i) < i));
    return [...kept, ...moved];
  });
}

/** The pieces of inline content a block holds. */
function inlineOf(block: Block): Inline[][] {
  switch (block.kind) {
    case 'page':
    case 'figure':
      return [];
    case 'apparatus':
      return block.lines;
    default:
      return [block.content];
  }
}

function roughSize(block: Block): number {
  const inline = (content: Inline[]): number => content.reduce((n, p) => n + (p.kind === 'text' ? p.text.length : 120), 0);
  switch (block.kind) {
    case 'page':
    case 'figure':
      return 120;
    case 'apparatus':
      return block.lines.reduce((n, line) => n + inline(line) + 8, 40);
    default:
      return inline(block.content) + 60;
  }
}

/** The structure as the content documents of an EPUB, with the headings and printed pages they hold. */
export function structureToEpubContent(structure: DocumentStructure, options: EpubContentOptions): EpubContent {
  const { maxChapterChars = 200_000, stylesheet = 'style.css' } = options;
  const files = splitChapters(structure.blocks, maxChapterChars);
  const fileName = (i: number): string => `chapter-${i + 1}.xhtml`;

  // Where every note and every first call to it lands, so links resolve across files.
  const noteFile = new Map<string, number>();
  const markerOf = new Map<string, string>();
  const firstCall = new Map<string, number>();
  files.forEach((blocks, i) => {
    for (const block of blocks) {
      if (block.kind === 'footnote' && block.id !== undefined) {
        noteFile.set(block.id, i);
        markerOf.set(block.id, block.marker ?? block.id);
      }
      for (const content of inlineOf(block)) {
        for (const piece of content) if (piece.kind === 'noteCall' && !firstCall.has(piece.note)) firstCall.set(piece.note, i);
      }
    }
  });
  const callsSeen = new Map<string, number>();
  const headingCount = { n: 0 };
  const figureCount = { n: 0 };
  const toc: TocEntry[] = [];
  const pages: PageTarget[] = [];

  const chapters = files.map((blocks, i): EpubChapter => {
    const here = fileName(i);
    const link = (file: number, id: string): string => `${file === i ? '' : fileName(file)}#${id}`;
    const pageBreak = (page: number): string => {
      const info = structure.pages[page];
      if (info?.folio === undefined) return '';
      const id = `page-${info.number}`;
      pages.push({ label: info.folio, href: `${here}#${id}` });
      const label = escapeXml(info.folio);
      return `<span epub:type="pagebreak" role="doc-pagebreak" id="${id}" title="${label}" aria-label="${label}"></span>`;
    };
    const inline = (content: Inline[]): string =>
      content
        .map((piece) => {
          if (piece.kind === 'text') return escapeXml(piece.text);
          if (piece.kind === 'pageBreak') return pageBreak(piece.page);
          if (piece.kind === 'marginRef') return ` <span class="margin-ref">[${escapeXml(piece.ref)}]</span>`;
          const file = noteFile.get(piece.note);
          const label = escapeXml(markerOf.get(piece.note) ?? piece.note);
          if (file === undefined) return `<sup>${label}</sup>`;
          const seen = (callsSeen.get(piece.note) ?? 0) + 1;
          callsSeen.set(piece.note, seen);
          const id = `ref-${idPart(piece.note)}${seen > 1 ? `-${seen}` : ''}`;
          return `<sup><a epub:type="noteref" role="doc-noteref" class="noteref" id="${id}" href="${link(file, `note-${idPart(piece.note)}`)}">${label}</a></sup>`;
        })
        .join('')
        .trim();

    let title: string | undefined;
    const body: string[] = [];
    for (const block of blocks) {
      switch (block.kind) {
        case 'page': {
          const span = pageBreak(block.page);
          if (span) body.push(span);
          break;
        }
        case 'heading': {
          const id = `heading-${++headingCount.n}`;
          const text = plainText(block.content);
          title ??= text || undefined;
          toc.push({ label: text || `${options.title} (${headingCount.n})`, href: `${here}#${id}`, level: block.level });
          body.push(`<h${block.level} id="${id}">${inline(block.content)}</h${block.level}>`);
          break;
        }
        case 'paragraph':
          body.push(`<p>${inline(block.content)}</p>`);
          break;
        case 'sideNote':
          body.push(`<aside class="sidenote"><p>${inline(block.content)}</p></aside>`);
          break;
        case 'footnote': {
          if (block.id === undefined) {
            body.push(`<p class="note">${inline(block.content)}</p>`);
            break;
          }
          const id = idPart(block.id);
          const back = firstCall.has(block.id)
            ? `<a class="noteback" href="${link(firstCall.get(block.id) as number, `ref-${id}`)}">`
            : '<span class="noteback">';
          const close = firstCall.has(block.id) ? '</a>' : '</span>';
          body.push(
            `<aside epub:type="footnote" role="doc-footnote" class="footnote" id="note-${id}"><p>${back}${escapeXml(block.marker ?? block.id)}${close} ${inline(block.content)}</p></aside>`,
          );
          break;
        }
        case 'apparatus':
          body.push(`<aside class="apparatus"><p>${block.lines.map(inline).join('<br/>\n')}</p></aside>`);
          break;
        case 'figure': {
          const image = options.figureImage?.(block, ++figureCount.n);
          if (image)
            body.push(`<figure class="figure" id="figure-${figureCount.n}"><img src="${escapeXml(image.href)}" alt="${escapeXml(image.alt)}"/></figure>`);
          break;
        }
      }
    }
    const opensChapter = blocks.some((b) => b.kind === 'heading') && blocks.find((b) => b.kind !== 'page')?.kind === 'heading';
    const section = opensChapter ? '<section epub:type="chapter" role="doc-chapter">' : '<section>';
    return {
      file: here,
      title: title ?? options.title,
      xhtml: xhtmlDocument(title ?? options.title, options.language, stylesheet, `${section}\n${body.join('\n')}\n</section>`),
    };
  });
  return { chapters, toc, pages };
}

/** An XHTML content document around `body`. */
export function xhtmlDocument(title: string, language: string, stylesheet: string, body: string, bodyAttributes = ''): string {
  const lang = escapeXml(language);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE html>',
    `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="${lang}" xml:lang="${lang}">`,
    '<head>',
    '<meta charset="UTF-8"/>',
    `<title>${escapeXml(title)}</title>`,
    `<link rel="stylesheet" type="text/css" href="${escapeXml(stylesheet)}"/>`,
    '</head>',
    `<body${bodyAttributes}>`,
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
