/**
 * The `epub` export end to end on two synthetic books written as projects: the Greek one (title, three chapters,
 * notes, a paragraph across a page break, a drawing no OCR reads, black-and-white G4 pages) and the French corpus
 * (side notes, Latin with line numbers, garbled note calls, a note continued over a page, an apparatus, headings of
 * three ranks, grey pages). Judged by Debian's epubcheck and calibre, and against the Markdown export of the same
 * project.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epubExporter, exportRegistry, type ExportTarget } from '../../src/export/index.js';
import { figureRegions } from '../../src/export/figures.js';
import { bookCorpus, drawPage } from './book-corpus.js';
import { greekPages, SHIP, writeProject } from './epub-book.js';
import {
  elements,
  epubcheck,
  epubFootnotes,
  epubTextBlocks,
  epubType,
  hasEpubcheck,
  markdownFootnotes,
  markdownHeadings,
  markdownTextBlocks,
  openEpub,
  problems,
  XHTML_NS,
  type OpenedEpub,
} from './epub-read.js';
import { readZipEntries } from '../helpers.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { drawSetter, PageSetter } from './markdown-builder.js';

const CI = process.env.CI === 'true';
const markdown = exportRegistry.get('md');

interface Written {
  target: ExportTarget;
  epub: string;
  md: string;
  opened: OpenedEpub;
}

/** Write the project's EPUB (with `options`) and Markdown, and open the EPUB. */
async function exportBoth(target: ExportTarget, options: Record<string, string | true> = {}): Promise<Written> {
  await epubExporter.write(target, options);
  const mdPath = target.path.replace(/\.epub$/, '.md');
  await markdown?.write({ ...target, path: mdPath }, {});
  return { target, epub: target.path, md: readFileSync(mdPath, 'utf8'), opened: await openEpub(target.path) };
}

let greek: Written;
let french: Written;

beforeAll(async () => {
  const greekTarget = await writeProject(tempDir('epub-greek'), 'Το λιμάνι', await greekPages(), { languages: ['ell'], kind: 'bitonal', extension: '.epub' });
  greek = await exportBoth(greekTarget, { author: 'Ελένη Μαρκάκη & Jean Dupont' });
  const corpus = bookCorpus();
  // One page drawn at a time: several @napi-rs/canvas drawings and encodes at once crashed this test's process on a
  // loaded machine (3 of 4 runs side by side; none one at a time).
  const pages = [];
  for (const page of corpus.pages) pages.push({ ocr: page.ocr, png: await drawPage(page) });
  const frenchTarget = await writeProject(tempDir('epub-french'), 'Les Confessions', pages, { languages: ['fra', 'lat'], kind: 'gray', extension: '.epub' });
  french = await exportBoth(frenchTarget);
}, 300_000);

afterAll(removeTempDirs);

describe('the epub export', () => {
  it.skipIf(!hasEpubcheck() && !CI)(
    'passes Debian’s epubcheck with no error and no warning',
    async () => {
      expect(hasEpubcheck(), "Debian's epubcheck is missing: apt-get install epubcheck").toBe(true);
      const reports = await epubcheck([greek.epub, french.epub]);
      for (const report of reports) {
        expect(problems(report.messages), report.path).toEqual([]);
        expect(report.code, report.path).toBe(0);
      }
    },
    120_000,
  );

  it('reads like the Markdown: the same text block by block, notes aside', () => {
    for (const book of [greek, french]) {
      const blocks = epubTextBlocks(book.opened);
      expect(blocks).toEqual(markdownTextBlocks(book.md));
      expect(blocks.length).toBeGreaterThan(8);
    }
    expect(epubTextBlocks(greek.opened)).toContain('ΚΕΦΑΛΑΙΟ ΔΕΥΤΕΡΟ');
    expect(epubTextBlocks(french.opened)).toContain('Difficultés persistantes sur l’idée de Dieu.');
  });

  it('links every note call to its footnote, and each footnote back to its call', () => {
    for (const book of [greek, french]) {
      const { opened } = book;
      const notes = epubFootnotes(opened);
      const wanted = markdownFootnotes(book.md);
      expect(wanted.size).toBeGreaterThan(2);
      expect([...notes.keys()].sort()).toEqual([...wanted.keys()].map((id) => `note-${id}`).sort());
      for (const [id, text] of wanted) expect(notes.get(`note-${id}`), id).toBe(text);

      const calls = opened.spine.flatMap((path) =>
        elements(opened.doc(path), XHTML_NS, 'a')
          .filter((a) => epubType(a) === 'noteref')
          .map((a) => ({ path, a })),
      );
      expect(calls.length).toBe((book.md.match(/(?<!\\)\[\^[^\]\s]+\](?!:)/gu) ?? []).length);
      for (const { path, a } of calls) {
        const [file, id] = (a.getAttribute('href') as string).split('#');
        const target = opened.doc(file ? posix.join(posix.dirname(path), file) : path).getElementById(id);
        expect(target?.localName, a.getAttribute('href') as string).toBe('aside');
        expect(epubType(target as never)).toBe('footnote');
      }
      for (const path of opened.spine) {
        for (const aside of elements(opened.doc(path), XHTML_NS, 'aside').filter((n) => epubType(n) === 'footnote')) {
          const back = aside.getElementsByTagNameNS(XHTML_NS, 'a')[0];
          const [file, id] = (back.getAttribute('href') as string).split('#');
          const call = opened.doc(file ? posix.join(posix.dirname(path), file) : path).getElementById(id);
          expect(call && epubType(call), aside.getAttribute('id') as string).toBe('noteref');
        }
      }
    }
  });

  it('splits the book into chapters at its top-level headings, and lists every heading in the navigation', () => {
    const { opened } = greek;
    // The title is set once above three chapters: each chapter is a file of its own.
    expect(opened.spine.map((p) => posix.basename(p))).toEqual(['cover.xhtml', 'chapter-1.xhtml', 'chapter-2.xhtml', 'chapter-3.xhtml']);
    for (const book of [greek, french]) {
      const nav = book.opened.doc(book.opened.nav);
      const toc = elements(nav, XHTML_NS, 'nav').find((n) => epubType(n) === 'toc');
      const links = elements(toc as never, XHTML_NS, 'a');
      expect(links.map((a) => a.textContent)).toEqual(markdownHeadings(book.md));
      for (const a of links) {
        const [file, id] = (a.getAttribute('href') as string).split('#');
        const heading = book.opened.doc(posix.join(book.opened.root, file)).getElementById(id);
        expect(heading?.localName).toMatch(/^h[1-3]$/);
        expect(heading?.textContent?.replace(/\s+/g, ' ').trim()).toContain(a.textContent as string);
      }
      // The NCX lists the same headings for EPUB 2 reading systems.
      const ncx = book.opened.text(posix.join(book.opened.root, 'toc.ncx'));
      expect([...ncx.matchAll(/<text>([^<]*)<\/text>/g)].map((m) => m[1]).slice(1)).toEqual(links.map((a) => a.textContent?.replace(/&/g, '&amp;')));
    }
    // Heading levels nest: the chapters under the book's title.
    const greekToc = greek.opened.text(greek.opened.nav);
    expect(greekToc).toMatch(/ΤΟ ΛΙΜΑΝΙ<\/a>\s*<ol>\s*<li><a href="chapter-1\.xhtml#heading-2">ΚΕΦΑΛΑΙΟ ΠΡΩΤΟ/u);
  });

  it('lists the printed pages, each link landing where its page begins', () => {
    const expectPages = (book: Written, folios: string[]): void => {
      const nav = book.opened.doc(book.opened.nav);
      const list = elements(nav, XHTML_NS, 'nav').find((n) => epubType(n) === 'page-list');
      const links = elements(list as never, XHTML_NS, 'a');
      expect(links.map((a) => a.textContent)).toEqual(folios);
      for (const a of links) {
        const [file, id] = (a.getAttribute('href') as string).split('#');
        const mark = book.opened.doc(posix.join(book.opened.root, file)).getElementById(id);
        expect(mark && epubType(mark)).toBe('pagebreak');
        expect(mark?.getAttribute('aria-label')).toBe(a.textContent);
      }
    };
    expectPages(greek, ['1', '2', '3', '4']);
    expectPages(french, ['141', '142', '143', '144', '145', '146']);
    // Page 2 of the Greek book begins inside a paragraph: its mark is there, between two words.
    const first = greek.opened.text(posix.join(greek.opened.root, 'chapter-1.xhtml'));
    expect(first).toMatch(/κι αυτός σε<span epub:type="pagebreak"[^>]* id="page-2"[^>]*><\/span> μακρινά λιμάνια/u);
  });

  it('declares the languages the OCR read, the title and the authors', () => {
    expect(greek.opened.languages).toEqual(['el']);
    expect(french.opened.languages).toEqual(['fr', 'la']);
    expect(greek.opened.titles).toEqual(['Το λιμάνι']);
    expect(french.opened.titles).toEqual(['Les Confessions']);
    expect(greek.opened.creators).toEqual(['Ελένη Μαρκάκη', 'Jean Dupont']);
    expect(french.opened.creators).toEqual([]);
    for (const book of [greek, french]) {
      const lang = book.opened.languages[0];
      for (const path of [...book.opened.spine, book.opened.nav]) {
        const html = book.opened.doc(path).documentElement;
        expect(html?.getAttribute('lang')).toBe(lang);
        expect(html?.getAttributeNS('http://www.w3.org/XML/1998/namespace', 'lang')).toBe(lang);
      }
    }
    // Contents is named in the book's language.
    expect(french.opened.text(french.opened.nav)).toContain('<h1>Table des matières</h1>');
  });

  it('has a cover made from the first page, reduced to a thumbnail of at most 60 KB', async () => {
    for (const book of [greek, french]) {
      const cover = [...book.opened.items.values()].find((i) => i.properties === 'cover-image');
      expect(cover?.mediaType).toBe('image/jpeg');
      const image = book.opened.entries.find((e) => e.name === cover?.path)?.data as Buffer;
      const { width = 0, height = 0, format } = await sharp(image).metadata();
      expect(format).toBe('jpeg');
      const page = book.target.manifest.pages[0];
      expect(Math.max(width, height)).toBeLessThanOrEqual(1000);
      expect(Math.max(width, height)).toBeGreaterThanOrEqual(400);
      expect(image.length).toBeLessThanOrEqual(60_000);
      // The whole book of a few pages, its cover and figure included, is small enough to mail to a reader.
      expect(statSync(book.epub).size).toBeLessThanOrEqual(150_000);
      expect(width / height).toBeCloseTo(page.width / page.height, 2);
      expect(book.opened.spine[0]).toBe(posix.join(book.opened.root, 'cover.xhtml'));
    }
  });

  it('keeps the drawing the OCR could not read as that region of the page image, in its place', async () => {
    const { opened } = greek;
    const figures = opened.spine.flatMap((path) => elements(opened.doc(path), XHTML_NS, 'figure').map((f) => ({ path, f })));
    expect(figures).toHaveLength(1);
    const { path, f } = figures[0];
    // Between the paragraph above it and the one below it on page 3.
    const text = opened.text(path);
    expect(text.indexOf('στις μακρινές θάλασσες.</p>')).toBeLessThan(text.indexOf('<figure'));
    expect(text.indexOf('<figure')).toBeLessThan(text.indexOf('<p>Ο Νίκος άκουγε'));
    const img = f.getElementsByTagNameNS(XHTML_NS, 'img')[0];
    expect(img.getAttribute('alt')).toBe('Figure on page 3 (p. 3)');
    const image = opened.entries.find((e) => e.name === posix.join(posix.dirname(path), img.getAttribute('src') as string))?.data as Buffer;
    // A black-and-white page gives a two-colour PNG the size of the drawing (at the page's 300 dpi), a little margin kept.
    const { width = 0, height = 0, format } = await sharp(image).metadata();
    expect(format).toBe('png');
    expect(width).toBeGreaterThanOrEqual(SHIP.x1 - SHIP.x0);
    expect(width).toBeLessThan(SHIP.x1 - SHIP.x0 + 60);
    expect(height).toBeGreaterThanOrEqual(SHIP.y1 - SHIP.y0 - 20);
    expect(height).toBeLessThan(SHIP.y1 - SHIP.y0 + 60);
    // The Markdown marks where it stands.
    expect(greek.md).toContain('<!-- figure on page 3 (p. 3) -->');
    expect(elements(french.opened.doc(french.opened.spine[1]), XHTML_NS, 'figure')).toHaveLength(0);
  });

  it('is zipped as EPUB requires, and the same project gives the same bytes in any time zone', async () => {
    const entries = await readZipEntries(greek.epub);
    expect(entries[0]).toMatchObject({ name: 'mimetype', compressionMethod: 0, extraFieldLength: 0 });
    expect(entries[0].data.toString()).toBe('application/epub+zip');
    expect(readFileSync(greek.epub).subarray(30, 38).toString()).toBe('mimetype');
    const again = { ...greek.target, path: greek.epub.replace(/\.epub$/, '-again.epub') };
    const zone = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati';
    try {
      await epubExporter.write(again, { author: 'Ελένη Μαρκάκη & Jean Dupont' });
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    expect(Buffer.compare(readFileSync(again.path), readFileSync(greek.epub))).toBe(0);
    // Another text is another book: its identifier changes with it.
    expect(french.opened.identifier).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(french.opened.identifier).not.toBe(greek.opened.identifier);
  });

  it.skipIf(!existsSync('/usr/bin/ebook-convert') && !CI)(
    'is read by calibre, Greek text and all',
    async () => {
      const out = greek.epub.replace(/\.epub$/, '.txt');
      await promisify(execFile)('ebook-convert', [greek.epub, out], { maxBuffer: 1 << 24 });
      const text = readFileSync(out, 'utf8');
      expect(text).toContain('Ο Νίκος βοηθούσε τη γιαγιά του στο καφενείο');
      expect(text).toContain('ΚΕΦΑΛΑΙΟ ΤΡΙΤΟ');
    },
    120_000,
  );
});

describe('the epub of a document with no heading, and of one with no text', () => {
  let plain: Written;
  let empty: Written;

  beforeAll(async () => {
    const prose = new PageSetter().paragraph('Just one paragraph & nothing else <here>, with no heading at all and no page number anywhere.');
    // The project lists no language: the pages' own (English) is declared.
    plain = await exportBoth(
      await writeProject(tempDir('epub-plain'), 'Plain', [{ ocr: prose.page(), png: await drawSetter(prose) }], { languages: [], extension: '.epub' }),
    );
    const blank = new PageSetter();
    // A language code no table knows: the book's language is declared undetermined.
    empty = await exportBoth(
      await writeProject(tempDir('epub-empty'), 'Empty', [{ ocr: blank.page(), png: await drawSetter(blank) }], { languages: ['xyz_abc'], extension: '.epub' }),
    );
  }, 60_000);

  it.skipIf(!hasEpubcheck() && !CI)(
    'passes Debian’s epubcheck with no error and no warning',
    async () => {
      expect(hasEpubcheck(), "Debian's epubcheck is missing: apt-get install epubcheck").toBe(true);
      for (const report of await epubcheck([plain.epub, empty.epub])) {
        expect(problems(report.messages), report.path).toEqual([]);
        expect(report.code, report.path).toBe(0);
      }
    },
    120_000,
  );

  it('shows the text after the cover in one content document, the navigation pointing at it under the title', () => {
    expect(epubTextBlocks(plain.opened)).toEqual(['Just one paragraph & nothing else <here>, with no heading at all and no page number anywhere.']);
    expect(epubTextBlocks(plain.opened)).toEqual(markdownTextBlocks(plain.md));
    expect(epubTextBlocks(empty.opened)).toEqual([]);
    expect(markdownTextBlocks(empty.md)).toEqual([]);
    for (const [book, title] of [
      [plain, 'Plain'],
      [empty, 'Empty'],
    ] as const) {
      expect(book.opened.spine.map((p) => posix.basename(p))).toEqual(['cover.xhtml', 'chapter-1.xhtml']);
      expect(book.opened.titles).toEqual([title]);
      const nav = book.opened.doc(book.opened.nav);
      const toc = elements(nav, XHTML_NS, 'nav').find((n) => epubType(n) === 'toc');
      expect(elements(toc as never, XHTML_NS, 'a').map((a) => [a.textContent, a.getAttribute('href')])).toEqual([[title, 'chapter-1.xhtml']]);
      // No printed page number: no page list.
      expect(elements(nav, XHTML_NS, 'nav').some((n) => epubType(n) === 'page-list')).toBe(false);
    }
  });

  it('declares the pages’ language when the project lists none, and an undetermined one for a code no table knows', () => {
    expect(plain.opened.languages).toEqual(['en']);
    expect(empty.opened.languages).toEqual(['und']);
    const html = empty.opened.doc(empty.opened.spine[1]).documentElement;
    expect(html?.getAttribute('lang')).toBe('und');
    expect(empty.opened.text(empty.opened.nav)).toContain('<h1>Contents</h1>');
  });
});

describe('figureRegions', () => {
  it('finds the drawing and nothing in the text, nor a shadow along the page edge', async () => {
    const pages = await greekPages();
    const gray = async (png: Buffer, shadow = false): Promise<{ width: number; height: number; data: Uint8Array }> => {
      const image = sharp(png).greyscale().resize({ width: 437, height: 620, fit: 'fill' });
      const { data, info } = await (
        shadow ? image.composite([{ input: { create: { width: 30, height: 620, channels: 3, background: '#333' } }, left: 0, top: 0 }]) : image
      )
        .greyscale()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return { width: info.width, height: info.height, data: new Uint8Array(data) };
    };
    const found = figureRegions(await gray(pages[SHIP.page - 1].png), pages[SHIP.page - 1].ocr);
    expect(found).toHaveLength(1);
    const [box] = found;
    // Found at a quarter of the page's resolution, given back in its pixels, within a few of them.
    expect(Math.abs(box.x0 - SHIP.x0)).toBeLessThan(40);
    expect(Math.abs(box.x1 - SHIP.x1)).toBeLessThan(40);
    expect(Math.abs(box.y0 - SHIP.y0)).toBeLessThan(40);
    expect(Math.abs(box.y1 - SHIP.y1)).toBeLessThan(40);
    for (const i of [0, 1, 3]) expect(figureRegions(await gray(pages[i].png, true), pages[i].ocr), `page ${i + 1}`).toEqual([]);
    // Text the OCR missed is not lost: a page whose OCR read nothing is one region, all its text.
    const unread = figureRegions(await gray(pages[1].png), { ...pages[1].ocr, blocks: [] });
    expect(unread.length).toBeGreaterThan(0);
  });
});

describe('epub export beside the others', () => {
  it('is listed with the formats, needs OCR and is offered to destinations', () => {
    const epub = exportRegistry.get('epub');
    expect(epub).toMatchObject({ extension: '.epub', needsOcr: true, sendable: true });
    expect(exportRegistry.parse('pdf+epub:author=Jane Austen')).toEqual([
      { format: 'pdf', options: {} },
      { format: 'epub', options: { author: 'Jane Austen' } },
    ]);
  });
});
