import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yazl from 'yazl';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, PDFString, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuireError } from '../../src/errors.js';
import { writePageImage } from '../../src/project/page-image.js';
import { pdfPagesFromProject, writePdf, type PdfOutputPage } from '../../src/export/pdf.js';
import { writeSlim } from '../../src/export/slim.js';
import { openSlim } from '../../src/ingest/slim.js';
import type { ProjectManifest, ProjectPage } from '../../src/project/types.js';
import { bitonalPage, listImages, removeTempDirs, tempDir, tool } from './helpers.js';

let root: string;
/** Three A6 pages of Times text; page 1 links to page 3, to page 2, to a web address, and has a form field. */
let source: string;
let image: PdfOutputPage;

afterAll(removeTempDirs);

beforeAll(async () => {
  root = tempDir('kept');
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const pages = ['First page words', 'Second page words', 'Third page words'].map((text) => {
    const page = doc.addPage([297.6, 419.5]);
    page.drawText(text, { x: 30, y: 350, size: 14, font });
    return page;
  });
  const ctx = doc.context;
  const rect = [30, 300, 200, 320];
  const field = ctx.register(ctx.obj({ FT: 'Tx', T: PDFString.of('name'), Kids: [] }));
  const annotations = [
    ctx.obj({ Type: 'Annot', Subtype: 'Link', Rect: rect, Dest: [pages[2].ref, 'Fit'], P: pages[0].ref }),
    ctx.obj({ Type: 'Annot', Subtype: 'Link', Rect: rect, A: { S: 'GoTo', D: [pages[1].ref, 'Fit'] } }),
    ctx.obj({ Type: 'Annot', Subtype: 'Link', Rect: rect, A: { S: 'URI', URI: PDFString.of('https://example.org/') } }),
    ctx.obj({ Type: 'Annot', Subtype: 'Widget', Rect: rect, Parent: field, P: pages[0].ref }),
  ].map((a) => ctx.register(a));
  const kids = ctx.lookup(field, PDFDict).lookup(PDFName.of('Kids'), PDFArray);
  kids.push(annotations[3]);
  pages[0].node.set(PDFName.of('Annots'), ctx.obj(annotations));
  // The field has a widget on page 2 as well: following the field from page 1 would reach page 2.
  const other = ctx.register(ctx.obj({ Type: 'Annot', Subtype: 'Widget', Rect: rect, Parent: field, P: pages[1].ref }));
  kids.push(other);
  pages[1].node.set(PDFName.of('Annots'), ctx.obj([other]));
  source = join(root, 'source.pdf');
  writeFileSync(source, await doc.save());

  const file = await writePageImage(bitonalPage(600, 400), 'bitonal', 300, join(root, 'scan'));
  image = { file, kind: 'bitonal', width: 600, height: 400, dpi: 300 };
});

const pageText = (pdf: string, n: number): string => tool('pdftotext', ['-raw', '-f', String(n), '-l', String(n), pdf, '-']).trim();

/** Every page object in the file, in the page tree or not: a copied page must not drag others along. */
async function pageObjects(pdf: string): Promise<number> {
  const doc = await PDFDocument.load(readFileSync(pdf));
  return doc.context.enumerateIndirectObjects().filter(([, o]) => o instanceof PDFDict && o.get(PDFName.of('Type')) === PDFName.of('Page')).length;
}

describe('pages kept from a source PDF', () => {
  it('are copied untouched, in their place among image pages, with no text layer added', async () => {
    const out = join(root, 'mixed.pdf');
    await writePdf([{ kind: 'pdf', file: source, page: 2 }, image, { kind: 'pdf', file: source, page: 1 }], out);
    tool('qpdf', ['--check', out]);
    expect([1, 2, 3].map((n) => pageText(out, n))).toEqual(['Second page words', '', 'First page words']);
    expect(tool('pdffonts', [out])).toMatch(/^Times-Roman\s/m);
    expect(listImages(out).map((i) => i.page)).toEqual([2]);
    expect(await pageObjects(out)).toBe(3);
  });

  it('keep their links to pages that are copied too, and lose those to pages that are not', async () => {
    const out = join(root, 'links.pdf');
    await writePdf(
      [
        { kind: 'pdf', file: source, page: 1 },
        { kind: 'pdf', file: source, page: 3 },
      ],
      out,
    );
    tool('qpdf', ['--check', out]);
    // Neither the link to page 2 nor the form field brings page 2 into the file.
    expect(await pageObjects(out)).toBe(2);
    const doc = await PDFDocument.load(readFileSync(out));
    const [first, third] = doc.getPages();
    const annots = first.node
      .lookup(PDFName.of('Annots'), PDFArray)
      .asArray()
      .map((a) => doc.context.lookup(a, PDFDict));
    expect(annots).toHaveLength(4);
    const [toThird, toSecond, web, widget] = annots;
    expect(toThird.lookup(PDFName.of('Dest'), PDFArray).get(0)).toBe(third.ref);
    expect(toSecond.has(PDFName.of('A'))).toBe(false);
    expect(web.lookup(PDFName.of('A'), PDFDict).get(PDFName.of('URI'))).toBeInstanceOf(PDFString);
    expect(widget.has(PDFName.of('Parent'))).toBe(false);
    expect(first.node.get(PDFName.of('Annots'))).toBeDefined();
    expect(third.ref).toBeInstanceOf(PDFRef);
  });

  it('refuse a missing source PDF and a page it does not have', async () => {
    const missing = writePdf([{ kind: 'pdf', file: join(root, 'nope.pdf'), page: 1 }], join(root, 'x.pdf'));
    await expect(missing).rejects.toThrow(/source PDF of page 1 is missing/);
    const beyond = writePdf([image, { kind: 'pdf', file: source, page: 4 }], join(root, 'y.pdf'));
    await expect(beyond).rejects.toThrow(/Page 2 is page 4 of the source PDF, which has 3 pages/);
    await expect(beyond).rejects.toBeInstanceOf(QuireError);
  });
});

describe('a slim project with kept pages', () => {
  const keptPage = (index: number, pdfPage: number): ProjectPage => ({
    index,
    file: 'source.pdf',
    kind: 'pdf',
    pdfPage,
    width: 1240,
    height: 1748,
    dpi: 300,
    source: { input: `book.pdf#${pdfPage}`, frame: pdfPage, side: 'single' },
    decisions: { preset: 'flat', inputDpi: { value: 300, source: 'pdf' } },
  });
  const manifestOf = (pages: ProjectPage[]): ProjectManifest => ({
    format: 'quire-project',
    version: 1,
    name: 'book',
    created: '2024-01-01T00:00:00Z',
    inputs: ['book.pdf'],
    pages,
  });

  async function slimOf(files: Record<string, Buffer | string>): Promise<string> {
    const path = join(root, `hand-made-${Object.keys(files).length}-${Math.random().toString(36).slice(2)}.quire`);
    const zip = new yazl.ZipFile();
    for (const [name, data] of Object.entries(files)) zip.addBuffer(Buffer.from(data), name);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    writeFileSync(path, Buffer.concat(chunks));
    return path;
  }

  it('carries the source PDF and reopens to the same pages', async () => {
    const dir = join(root, 'proj');
    mkdirSync(dir);
    writeFileSync(join(dir, 'source.pdf'), readFileSync(source));
    const manifest = manifestOf([keptPage(1, 3), keptPage(2, 1)]);
    const slim = join(root, 'book.quire');
    await writeSlim(dir, manifest, slim);
    const reopened = await openSlim(slim, join(root, 'reopened'));
    const out = join(root, 'reopened.pdf');
    await writePdf(pdfPagesFromProject(reopened.dir, reopened.manifest), out);
    expect([1, 2].map((n) => pageText(out, n))).toEqual(['Third page words', 'First page words']);
    rmSync(dir, { recursive: true });
  });

  it('is refused when the source PDF is missing, unreadable or short of the page, or the page number is missing', async () => {
    const pdf = readFileSync(source);
    const cases: Array<[Record<string, Buffer | string>, RegExp]> = [
      [{ 'project.json': JSON.stringify(manifestOf([keptPage(1, 1)])) }, /source PDF of page 1 is missing/],
      [{ 'project.json': JSON.stringify(manifestOf([keptPage(1, 1)])), 'source.pdf': 'not a pdf' }, /source PDF of page 1 .* cannot be read/],
      [{ 'project.json': JSON.stringify(manifestOf([keptPage(1, 1), keptPage(2, 7)])), 'source.pdf': pdf }, /page 7 of its source PDF, which has 3 pages/],
      [{ 'project.json': JSON.stringify(manifestOf([{ ...keptPage(1, 1), pdfPage: undefined }])), 'source.pdf': pdf }, /unusable entry for page 1/],
    ];
    for (const [files, message] of cases) {
      const slim = await slimOf(files);
      await expect(openSlim(slim, join(root, `open-${Math.random().toString(36).slice(2)}`))).rejects.toThrow(message);
    }
  });
});
