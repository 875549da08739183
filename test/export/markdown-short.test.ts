/**
 * Running heads on captures too short for a head to recur (one, two, four pages), titles that repeat, and printed
 * page numbers checked by their sequence: what a reader finds in the Markdown, and what the project keeps.
 */
import { describe, expect, it } from 'vitest';
import { documentToMarkdown, readPrintedPages } from '../../src/export/index.js';
import { pageRangeIn } from '../../src/export/structure-running.js';
import { PageSetter } from './markdown-builder.js';
import { scoreCapture, shortCaptures } from './short-captures.js';

const captures = shortCaptures();
const capture = (start: string): (typeof captures)[number] => {
  const found = captures.find((c) => c.name.startsWith(start));
  if (!found) throw new Error(`no capture ${start}`);
  return found;
};

/** The Markdown's blocks, page markers left in. */
const blocks = (markdown: string): string[] => markdown.trim().split('\n\n');

describe('titles that repeat', () => {
  it('keeps a chapter title set large on each page that opens with it, on a three-page scan', () => {
    const md = documentToMarkdown(capture('three pages, the first two opening with a title set large').pages);
    expect(blocks(md).filter((b) => b.startsWith('#'))).toEqual(['# LIVRE PREMIER — UN JUSTE', '# LIVRE PREMIER']);
  });

  it('keeps the same title set a little larger than the body at the top of two pages', () => {
    const md = documentToMarkdown(capture('three pages, the first two opening with the same title').pages);
    expect(blocks(md).filter((b) => b.startsWith('#'))).toEqual(['# LIVRE PREMIER', '# LIVRE PREMIER']);
  });

  it('keeps a title in body capitals that opens a chapter below white space, on every page it opens', () => {
    const md = documentToMarkdown(capture('two pages opening a chapter').pages);
    expect(blocks(md).filter((b) => b.startsWith('#'))).toEqual(['# CHAPITRE PREMIER', '# CHAPITRE PREMIER']);
  });
});

describe('running heads told by their look', () => {
  it('drops the head of a one-page capture, set small and centred with its folio at the outer edge, and keeps it in the project', () => {
    const { pages } = capture('one page, its head set small and centred');
    const md = documentToMarkdown(pages);
    expect(blocks(md)[0]).toBe('<!-- page 1 (p. 576) -->');
    expect(md).not.toContain('CONFESSIONUM');
    expect(md).toContain('Il y avait alors dans la ville');
    expect(readPrintedPages(pages)).toEqual([{ folio: '576', runningHead: 'VII, I, 1-2 CONFESSIONUM' }]);
  });

  it('drops a head in body capitals that the text crowds, its folio at the far end', () => {
    const md = documentToMarkdown(capture('one page, its head in body capitals').pages);
    expect(blocks(md).slice(0, 2)).toEqual(['<!-- page 1 (p. 577) -->', expect.stringMatching(/^Les années passaient/u)]);
  });

  it('drops a one-page capture’s head whose folio stands an em and a half off, nearer than a full line', () => {
    const md = documentToMarkdown(capture('one page, its folio an em and a half').pages);
    expect(md).not.toContain('CONFESSIONUM');
    expect(blocks(md)[0]).toBe('<!-- page 1 (p. 576) -->');
  });

  it('drops a one-page capture’s head set in small capitals with no folio beside it, and keeps it in the project', () => {
    const { pages } = capture('one page, its head in small capitals');
    const md = documentToMarkdown(pages);
    expect(blocks(md).slice(0, 2)).toEqual(['<!-- page 1 (p. 577) -->', expect.stringMatching(/^Les années passaient/u)]);
    expect(readPrintedPages(pages)).toEqual([{ folio: '577', runningHead: 'LES CONFESSIONS' }]);
  });

  it('drops the differing verso and recto heads of a two-page spread, set in small capitals', () => {
    const md = documentToMarkdown(capture('two pages, a spread').pages);
    expect(md).not.toMatch(/CONFESSIONS|SEPTIÈME/u);
    expect(blocks(md).filter((b) => b.startsWith('<!--'))).toEqual(['<!-- page 1 (p. 576) -->', '<!-- page 2 (p. 577) -->']);
  });

  it('keeps a page’s first line that ends with a number when it is a loosely justified body line', () => {
    const page = new PageSetter()
      .body('Le concile se tint enfin à Rimini en 359')
      .paragraph('et les évêques y vinrent de tout l’Occident, nombreux et décidés à ne rien céder de la foi de Nicée.');
    expect(blocks(documentToMarkdown([page.page()]))).toEqual([
      '<!-- page 1 -->',
      'Le concile se tint enfin à Rimini en 359 et les évêques y vinrent de tout l’Occident, nombreux et décidés à ne rien céder de la foi de Nicée.',
    ]);
  });

  it('leaves a one-page capture’s first line in capitals at the body’s size, without a folio, as a heading', () => {
    const page = new PageSetter()
      .centred('LE SECOND LIVRE')
      .skip(1)
      .paragraph('Il y avait alors dans la ville un homme que tout le monde connaissait.', { indent: 1.5 });
    expect(blocks(documentToMarkdown([page.page()]))[1]).toBe('# LE SECOND LIVRE');
  });
});

describe('printed page numbers', () => {
  it('drops the heads of a four-page capture, each read once, and mends a misread folio from its neighbours, the first page’s too', () => {
    const { pages } = capture('four pages, pp. 576–579');
    const md = documentToMarkdown(pages);
    expect(blocks(md).filter((b) => b.startsWith('<!--'))).toEqual([
      '<!-- page 1 (p. 576) -->',
      '<!-- page 2 (p. 577) -->',
      '<!-- page 3 (p. 578) -->',
      '<!-- page 4 (p. 579) -->',
    ]);
    expect(readPrintedPages(pages).map((p) => p.runningHead)).toEqual([
      'VII, I, 1-2 CONFESSIONUM',
      'CONFESSIONS VII, I, 1-2',
      'VIl, II, 3 CONEESSIONVM',
      'CONFESSIONS VII, II, 3',
    ]);
  });

  it('mends a misread folio from the page range the capture’s name gives, where too few neighbours can', () => {
    const { pages } = capture('four pages, pp. 576–579');
    const folios = (md: string): string[] => blocks(md).filter((b) => b.startsWith('<!-- page'));
    // Two pages, the first read 516: no two neighbours to mend it from.
    expect(folios(documentToMarkdown(pages.slice(0, 2)))).toEqual(['<!-- page 1 (p. 516) -->', '<!-- page 2 (p. 577) -->']);
    expect(folios(documentToMarkdown(pages.slice(0, 2), { title: 'Confessions, pp. 576-577' }))).toEqual([
      '<!-- page 1 (p. 576) -->',
      '<!-- page 2 (p. 577) -->',
    ]);
    // One page, the range in a bundle's file name.
    expect(readPrintedPages(pages.slice(0, 1), { title: 'confessions-pp576-579' })[0].folio).toBe('576');
    // A range the pages do not bear out changes nothing.
    expect(folios(documentToMarkdown(pages.slice(1, 3), { title: 'Confessions, pp. 12-13' }))).toEqual([
      '<!-- page 1 (p. 577) -->',
      '<!-- page 2 (p. 578) -->',
    ]);
  });

  it('gives a page that prints no folio its number from a page range that holds the capture exactly', () => {
    const { pages } = capture('four pages, pp. 576–579');
    // A chapter's first page: its text only, no head, no folio.
    const noFolio = new PageSetter()
      .paragraph(
        'Un soir d’hiver pourtant la porte de sa maison resta ouverte, et la lumière brûla jusqu’à l’aube ; les voisins, inquiets, n’osèrent pas entrer.',
        { indent: 1.5 },
      )
      .page();
    const printed = readPrintedPages([noFolio, pages[1]], { title: 'Confessions VII, pp. 576–577' }).map((p) => p.folio);
    expect(printed).toEqual(['576', '577']);
  });

  it('reads a page range from a capture’s name, and no range from other numbers', () => {
    expect(pageRangeIn('Confessions, pp. 576-579')).toEqual({ first: 576, last: 579 });
    expect(pageRangeIn('confessions_pp576-579')).toEqual({ first: 576, last: 579 });
    expect(pageRangeIn('Saint Augustin p. 576')).toEqual({ first: 576, last: 576 });
    expect(pageRangeIn('Livre VII, pages 576–79')).toEqual({ first: 576, last: 579 });
    expect(pageRangeIn('Lettres 1914-1918')).toBeNull();
    expect(pageRangeIn('Chapitre 3')).toBeNull();
    expect(pageRangeIn('Rapport, p. 3')).toEqual({ first: 3, last: 3 });
  });

  it('scores full marks on every short capture of the benchmark', () => {
    for (const c of captures) {
      const score = scoreCapture(documentToMarkdown(c.pages), c);
      expect({ name: c.name, ...score }).toEqual({
        name: c.name,
        titles: [c.titles.length, c.titles.length],
        heads: [c.heads.length, c.heads.length],
        folios: [c.folios.length, c.folios.length],
      });
    }
  });
});
