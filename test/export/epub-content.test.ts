/**
 * The EPUB's content documents from a structure given by hand (one rule each: where chapters split, where notes go,
 * what a note without a call becomes, what XML cannot hold), and figures placed in the structure read from pages.
 */
import { describe, expect, it } from 'vitest';
import { structureToEpubContent } from '../../src/export/epub-content.js';
import { structureToMarkdown } from '../../src/export/markdown.js';
import { readStructure, withoutMarginRefs, type Block, type DocumentStructure, type Inline } from '../../src/export/structure.js';
import type { OcrPage } from '../../src/project/index.js';
import { PageSetter, setWords } from './markdown-builder.js';
import { parseXml, XHTML_NS } from './epub-read.js';
import { MARGIN_TEXT, referencePage } from './margin-captures.js';

const text = (t: string): Inline => ({ kind: 'text', text: t });
const heading = (level: 1 | 2 | 3, t: string): Block => ({ kind: 'heading', level, content: [text(t)] });
const para = (...content: Inline[]): Block => ({ kind: 'paragraph', content });
const page = (n: number): Block => ({ kind: 'page', page: n });

function content(blocks: Block[], pages = 3, options: { maxChapterChars?: number } = {}): ReturnType<typeof structureToEpubContent> {
  const structure: DocumentStructure = { pages: Array.from({ length: pages }, (_, i) => ({ number: i + 1, folio: String(i + 11) })), blocks };
  return structureToEpubContent(structure, { title: 'A Book', language: 'en', ...options });
}

/** Each chapter's top-level elements, as `tag: text` (page marks as `page N`). */
function outline(xhtml: string): string[] {
  const section = parseXml(xhtml, 'application/xhtml+xml').getElementsByTagNameNS(XHTML_NS, 'section')[0];
  return Array.from(section.childNodes)
    .filter((n) => n.nodeType === n.ELEMENT_NODE)
    .map((n) => {
      const e = n as unknown as Element;
      return e.localName === 'span'
        ? `page ${e.getAttribute('aria-label')}`
        : `${e.localName}${e.getAttribute('class') ? `.${e.getAttribute('class')}` : ''}: ${e.textContent}`;
    });
}

describe('chapters', () => {
  it('start at the level of heading the book uses more than once, the page mark before a heading going with it', () => {
    const { chapters, toc } = content([
      page(0),
      heading(1, 'The Book'),
      heading(2, 'One'),
      para(text('First.')),
      page(1),
      heading(2, 'Two'),
      heading(3, 'A part'),
      para(text('Second.')),
      heading(3, 'Another part'),
      para(text('Third.')),
    ]);
    expect(chapters.map((c) => outline(c.xhtml))).toEqual([
      ['page 11', 'h1: The Book', 'h2: One', 'p: First.'],
      ['page 12', 'h2: Two', 'h3: A part', 'p: Second.', 'h3: Another part', 'p: Third.'],
    ]);
    expect(chapters.map((c) => c.title)).toEqual(['The Book', 'Two']);
    expect(toc.map((t) => [t.level, t.label, t.href])).toEqual([
      [1, 'The Book', 'chapter-1.xhtml#heading-1'],
      [2, 'One', 'chapter-1.xhtml#heading-2'],
      [2, 'Two', 'chapter-2.xhtml#heading-3'],
      [3, 'A part', 'chapter-2.xhtml#heading-4'],
      [3, 'Another part', 'chapter-2.xhtml#heading-5'],
    ]);
  });

  it('keep the text before the first heading in a file of its own, and cut a long chapter at a page boundary', () => {
    const long = 'word '.repeat(60).trim();
    const { chapters } = content([page(0), para(text(long)), page(1), para(text(long)), page(2), para(text(long))], 3, { maxChapterChars: 400 });
    expect(chapters.map((c) => outline(c.xhtml).map((line) => line.slice(0, 7)))).toEqual([
      ['page 11', 'p: word'],
      ['page 12', 'p: word'],
      ['page 13', 'p: word'],
    ]);
    expect(chapters.map((c) => c.title)).toEqual(['A Book', 'A Book', 'A Book']);
    const untitled = content([heading(1, 'Only'), para(text('Text.'))]).chapters;
    expect(untitled).toHaveLength(1);
  });

  it('are one empty content document when the document has nothing at all, since a publication needs one', () => {
    const { chapters, toc, pages } = content([], 0);
    expect(chapters.map((c) => [c.file, c.title])).toEqual([['chapter-1.xhtml', 'A Book']]);
    expect(outline(chapters[0].xhtml)).toEqual([]);
    expect(toc).toEqual([]);
    expect(pages).toEqual([]);
  });
});

describe('notes', () => {
  it('go to the chapter that calls them, link both ways, and a note without a call is a paragraph', () => {
    const { chapters } = content([
      page(0),
      heading(2, 'One'),
      para(text('Called here'), { kind: 'noteCall', note: '7' }, text(' and again'), { kind: 'noteCall', note: '7' }, text('.')),
      page(1),
      heading(2, 'Two'),
      para(text('Text.')),
      { kind: 'footnote', id: '7', marker: '7', content: [text('The note.')] },
      { kind: 'footnote', content: [text('A note whose number was lost.')] },
    ]);
    expect(outline(chapters[0].xhtml)).toEqual(['page 11', 'h2: One', 'p: Called here7 and again7.', 'aside.footnote: 7 The note.']);
    expect(outline(chapters[1].xhtml)).toEqual(['page 12', 'h2: Two', 'p: Text.', 'p.note: A note whose number was lost.']);
    const first = chapters[0].xhtml;
    expect(first).toContain('<sup><a epub:type="noteref" role="doc-noteref" class="noteref" id="ref-7" href="#note-7">7</a></sup>');
    expect(first).toContain('id="ref-7-2" href="#note-7"');
    expect(first).toContain(
      '<aside epub:type="footnote" role="doc-footnote" class="footnote" id="note-7"><p><a class="noteback" href="#ref-7">7</a> The note.</p></aside>',
    );
  });
});

describe('text', () => {
  it('is escaped, and characters XML cannot hold are dropped', () => {
    const { chapters } = content([heading(1, 'Q & A <1>'), para(text('A "quoted" <b> & \u0007bell\u0000 \uD800 fine.'))]);
    const xhtml = chapters[0].xhtml;
    expect(() => parseXml(xhtml, 'application/xhtml+xml')).not.toThrow();
    expect(outline(xhtml)).toEqual(['h1: Q & A <1>', 'p: A "quoted" <b> & bell  fine.']);
    expect(chapters[0].title).toBe('Q & A <1>');
  });

  it('keeps an apparatus line by line, side notes beside the text, and page marks only for printed numbers', () => {
    const structure: DocumentStructure = {
      pages: [{ number: 1, folio: 'xiv' }, { number: 2 }],
      blocks: [
        page(0),
        { kind: 'sideNote', content: [text('In the margin.')] },
        para(text('Before'), { kind: 'pageBreak', page: 1 }, text(' after.')),
        { kind: 'apparatus', lines: [[text('3 a] b P')], [text('4 c om. Q')]] },
      ],
    };
    const { chapters, pages } = structureToEpubContent(structure, { title: 'T', language: 'la' });
    expect(outline(chapters[0].xhtml)).toEqual(['page xiv', 'aside.sidenote: In the margin.', 'p: Before after.', 'aside.apparatus: 3 a] b P\n4 c om. Q']);
    expect(chapters[0].xhtml).toContain('<aside class="apparatus"><p>3 a] b P<br/>\n4 c om. Q</p></aside>');
    expect(pages).toEqual([{ label: 'xiv', href: 'chapter-1.xhtml#page-1' }]);
    expect(chapters[0].xhtml).toContain('lang="la" xml:lang="la"');
  });
});

describe('margin reference numbers', () => {
  it('are a small bracketed number where their line starts, and nothing once dropped', () => {
    const structure = readStructure([referencePage('apart')]);
    const { chapters } = structureToEpubContent(structure, { title: 'T', language: 'la' });
    expect(chapters[0].xhtml).toContain('<p><span class="margin-ref">[124]</span> Iam mortua erat');
    expect(chapters[0].xhtml).toContain('incommutabilem <span class="margin-ref">[125]</span> totis');
    const dropped = structureToEpubContent(withoutMarginRefs(structure), { title: 'T', language: 'la' });
    expect(outline(dropped.chapters[0].xhtml)).toEqual([`p: ${MARGIN_TEXT}`]);
  });
});

describe('figures in the structure', () => {
  const LINE = 'The rain had not stopped since the morning and the';

  /** A page: two paragraphs, a gap between them (or inside the second), and the words OCR made of a picture. */
  function pageWithGap(gapInsideParagraph: boolean): { ocr: OcrPage; figure: { x0: number; y0: number; x1: number; y1: number } } {
    const setter = new PageSetter().paragraph(`${LINE} hardly more than mud.`).body(LINE, { indent: 1.5 });
    if (!gapInsideParagraph) setter.body('the end of it.', { end: true });
    setter.skip(8);
    if (gapInsideParagraph) setter.body('and so it went on until the evening came down.', { end: true });
    else setter.paragraph(`${LINE} the last paragraph of the page.`, { indent: 1.5 });
    const ocr = setter.page();
    const top = setter.set[gapInsideParagraph ? 2 : 3].baseline + 40;
    const figure = { x0: 400, y0: top, x1: 1300, y1: top + 380 };
    // What an engine reads in a drawing: a few low-confidence marks.
    const junk = setWords('|| ~= ee', 600, top + 200, 46).map((w) => ({ ...w, confidence: 21 }));
    ocr.blocks.push({ box: figure, paragraphs: [{ box: figure, lines: [{ box: figure, words: junk }] }] });
    return { ocr, figure };
  }

  it('stand between the paragraphs they separate, the marks OCR made of them dropped', () => {
    const { ocr, figure } = pageWithGap(false);
    const structure = readStructure([ocr], { figures: [[figure]] });
    expect(structure.blocks.map((b) => b.kind)).toEqual(['page', 'paragraph', 'paragraph', 'figure', 'paragraph']);
    expect(structure.blocks[3]).toEqual({ kind: 'figure', page: 0, box: figure });
    const markdown = structureToMarkdown(structure);
    expect(markdown).not.toMatch(/~=|\|\|/);
    expect(markdown).toContain('the end of it.\n\n<!-- figure on page 1 -->\n\nThe rain');
    expect(structureToMarkdown(structure, { pageMarkers: false })).not.toContain('figure');
    // Without the figure, the marks are text.
    expect(structureToMarkdown(readStructure([ocr]))).toMatch(/~=/);
  });

  it('inside a paragraph that runs on past them, come after it', () => {
    const { ocr, figure } = pageWithGap(true);
    const structure = readStructure([ocr], { figures: [[figure]] });
    expect(structure.blocks.map((b) => b.kind)).toEqual(['page', 'paragraph', 'paragraph', 'figure']);
    expect(structureToMarkdown(structure)).toContain(`${LINE} and so it went on until the evening came down.\n\n<!-- figure on page 1 -->\n`);
  });

  it('on a page with no text, stand where the page is', () => {
    const text = new PageSetter().paragraph(`${LINE} hardly more than mud.`).page();
    const plate: OcrPage = { ...text, blocks: [] };
    const figure = { x0: 200, y0: 300, x1: 1500, y1: 2000 };
    const structure = readStructure([text, plate, text], { figures: [[], [figure], []] });
    expect(structure.blocks.map((b) => (b.kind === 'page' || b.kind === 'figure' ? `${b.kind} ${b.page}` : b.kind))).toEqual([
      'page 0',
      'paragraph',
      'page 1',
      'figure 1',
      'page 2',
      'paragraph',
    ]);
  });
});
