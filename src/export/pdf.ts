import { writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { concatTransformationMatrix, drawObject, PDFDocument, PDFName, type PDFPage, type PDFRef, popGraphicsState, pushGraphicsState } from 'pdf-lib';
import { describeError, isQuireError, QuireError } from '../errors.js';
import type { OcrPage } from '../project/index.js';
import { fileSystemError, type PageKind, type ProjectManifest, replaceAtomically, visiblePages } from '../project/index.js';
import { UnicodeCidFont } from './cid-font.js';
import { g4ImageOf, jpegImageOf, type PdfImageData } from './pdf-images.js';
import { copyKeptPages } from './pdf-kept-pages.js';
import { deflatedStream } from './pdf-deflate.js';
import { PDF_PROFILES, type PdfProfile } from './pdf-profiles.js';
import { textLayerContent } from './text-layer.js';
import { VERSION } from '../version.js';

/** A page of the output PDF: a page image, or a page kept from a source PDF. */
export type PdfOutputPage = PdfPageInput | PdfKeptPageInput;

/** A page image. */
export interface PdfPageInput {
  /** Absolute path of the page image. */
  file: string;
  kind: PageKind;
  width: number;
  height: number;
  dpi: number;
  /** The page's OCR result: drawn over the image as invisible, searchable Unicode text. */
  ocr?: OcrPage;
}

/** A page copied as it is from another PDF (its own content, fonts and text; no text layer is added). */
export interface PdfKeptPageInput {
  kind: 'pdf';
  /** Absolute path of the source PDF. */
  file: string;
  /** 1-based page number in the source PDF. */
  page: number;
}

export interface PdfOptions {
  profile?: PdfProfile;
  /** The document name; defaults to the output file's stem. */
  title?: string;
  /** Checked between pages: an aborted export leaves no file. */
  signal?: AbortSignal;
}

const POINTS_PER_INCH = 72;
/** The page resource name of the text layer's font. */
const TEXT_FONT_RESOURCE = 'OcrText';

/**
 * Write an image PDF, one page per page image, each page exactly the image's size at its dpi.
 * G4 and JPEG data are copied from the page files whenever they already have the right form.
 * Pages with an OCR result get an invisible text layer over the image. Kept pages are copied
 * from their source PDF untouched, in their place among the others. The file appears whole
 * or not at all.
 */
export async function writePdf(pages: PdfOutputPage[], outPath: string, options: PdfOptions = {}): Promise<{ pages: number; bytes: number }> {
  const { profile = 'auto', title = basename(outPath, extname(outPath)), signal } = options;
  if (!PDF_PROFILES.includes(profile)) {
    throw new QuireError('usage', `Unknown PDF profile "${String(profile)}"; valid profiles are: ${PDF_PROFILES.join(', ')}.`);
  }
  if (pages.length === 0) throw new QuireError('output', 'There are no pages to put in the PDF.');

  const doc = await PDFDocument.create({ updateMetadata: false });
  describeDocument(doc, title);
  const text = new TextLayer(doc);
  const kept = await copyKeptPages(
    doc,
    pages.flatMap((page, i) => (page.kind === 'pdf' ? [{ file: page.file, page: page.page, number: i + 1 }] : [])),
  );
  for (const [i, page] of pages.entries()) {
    if (signal?.aborted) throw new QuireError('cancelled', 'The export was cancelled.');
    const copy = kept.get(i + 1);
    if (page.kind === 'pdf' || copy) {
      if (copy) doc.addPage(copy);
      continue;
    }
    const image = await pageImageFor(page, profile, i + 1);
    const pdfPage = addImagePage(doc, page, image);
    if (page.ocr) text.addTo(pdfPage, page.ocr, i + 1);
  }
  text.finish();
  const bytes = await doc.save({ useObjectStreams: true });

  try {
    await replaceAtomically(outPath, (temp) => writeFile(temp, bytes));
  } catch (e) {
    throw await fileSystemError(e, outPath);
  }
  return { pages: pages.length, bytes: bytes.length };
}

/** The pages of a project a PDF shows: visible ones, in document order. */
export function pdfPagesFromProject(projectDir: string, manifest: ProjectManifest): PdfOutputPage[] {
  return visiblePages(manifest).map((page): PdfOutputPage => {
    const file = join(projectDir, page.file);
    if (page.kind === 'pdf') return { kind: 'pdf', file, page: page.pdfPage ?? NaN };
    return { file, kind: page.kind, width: page.width, height: page.height, dpi: page.dpi };
  });
}

/** The PDF page size in points. */
export function pageSizeInPoints(page: Pick<PdfPageInput, 'width' | 'height' | 'dpi'>): { width: number; height: number } {
  return { width: pixelsToPoints(page.width, page.dpi), height: pixelsToPoints(page.height, page.dpi) };
}

/** Multiply before dividing: one rounding instead of two, so exact sizes stay exact. */
function pixelsToPoints(pixels: number, dpi: number): number {
  return (pixels * POINTS_PER_INCH) / dpi;
}

function describeDocument(doc: PDFDocument, title: string): void {
  const now = new Date();
  doc.setTitle(title);
  doc.setProducer(`Quire ${VERSION}`);
  doc.setCreator('Quire');
  doc.setCreationDate(now);
  doc.setModificationDate(now);
}

async function pageImageFor(page: PdfPageInput, profile: PdfProfile, number: number): Promise<PdfImageData> {
  if (!(page.width > 0 && page.height > 0 && page.dpi > 0)) {
    throw new QuireError('bad_project', `Page ${number} has no usable size or resolution.`, JSON.stringify(page));
  }
  const asG4 = profile === 'g4' || (profile === 'auto' && page.kind === 'bitonal');
  try {
    return asG4 ? await g4ImageOf(page.file, page.dpi) : await jpegImageOf(page.file, page.kind);
  } catch (e) {
    if (isQuireError(e)) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new QuireError('bad_project', `The image of page ${number} is missing.`, page.file);
    }
    throw new QuireError('bad_image', `The image of page ${number} could not be read.`, `${page.file}: ${describeError(e)}`);
  }
}

function addImagePage(doc: PDFDocument, page: PdfPageInput, image: PdfImageData): PDFPage {
  const size = pageSizeInPoints(page);
  const pdfPage = doc.addPage([size.width, size.height]);
  const name = pdfPage.node.newXObject('Page', imageXObject(doc, image));
  // A G4 tile can be wider than the page (padding to 16 pixels): draw it at the page's scale
  // from the left edge and let the page box cut the padding off.
  const drawnWidth = image.encoding === 'ccitt' && image.columns !== image.width ? pixelsToPoints(image.columns, page.dpi) : size.width;
  pdfPage.pushOperators(pushGraphicsState(), concatTransformationMatrix(drawnWidth, 0, 0, size.height, 0, 0), drawObject(name), popGraphicsState());
  return pdfPage;
}

/**
 * The invisible text of all pages: one shared font, written once every page is known (the
 * font's ToUnicode map lists the characters outside the BMP that the pages use).
 */
class TextLayer {
  private readonly cids = new UnicodeCidFont();
  private fontRef?: PDFRef;

  constructor(private readonly doc: PDFDocument) {}

  /** Draw `ocr` over the page in a content stream of its own, after the image. */
  addTo(pdfPage: PDFPage, ocr: OcrPage, number: number): void {
    if (!(ocr.width > 0 && ocr.height > 0)) {
      const detail = JSON.stringify({ width: ocr.width, height: ocr.height });
      throw new QuireError('bad_project', `The OCR result of page ${number} has no usable page size.`, detail);
    }
    const content = textLayerContent(ocr, pdfPage.getSize(), this.cids, TEXT_FONT_RESOURCE);
    if (content === '') return;
    this.fontRef ??= this.doc.context.nextRef();
    // Our pages have no other fonts: a fixed resource name cannot clash.
    pdfPage.node.setFontDictionary(PDFName.of(TEXT_FONT_RESOURCE), this.fontRef);
    pdfPage.node.addContentStream(this.doc.context.register(deflatedStream(this.doc.context, content)));
  }

  /** Write the font, if any page used it. */
  finish(): void {
    if (this.fontRef) this.cids.writeTo(this.doc.context, this.fontRef);
  }
}

function imageXObject(doc: PDFDocument, image: PdfImageData): PDFRef {
  const common = { Type: 'XObject', Subtype: 'Image' };
  const stream =
    image.encoding === 'ccitt'
      ? doc.context.stream(image.data, {
          ...common,
          Width: image.columns,
          Height: image.rows,
          ColorSpace: 'DeviceGray',
          BitsPerComponent: 1,
          Filter: 'CCITTFaxDecode',
          // The tile may hold more rows than the page: /Rows makes the decoder stop at the page.
          DecodeParms: { K: -1, Columns: image.columns, Rows: image.rows, BlackIs1: image.blackIs1 ? true : undefined },
        })
      : doc.context.stream(image.data, {
          ...common,
          Width: image.width,
          Height: image.height,
          ColorSpace: image.components === 3 ? 'DeviceRGB' : 'DeviceGray',
          BitsPerComponent: 8,
          Filter: 'DCTDecode',
        });
  return doc.context.register(stream);
}
