/**
 * How many bytes a conversion will write, estimated before any work for the free-space check: each export asked for,
 * and the working folder (the project) while the document converts. The figures per page are those of the example
 * bundle's cleaned camera pages (`examples/sample.aglbundle`: book pages of text at 300 dpi, a CCITT G4 page about
 * 46 KB), where a run writes within 25 % of the estimate (test/convert/space.test.ts measures it).
 */
import type { ExportRequest } from '../export/index.js';

const KIB = 1024;

/** Bytes per page. */
const PER_PAGE = {
  /** A cleaned bitonal page in CCITT G4: a TIFF in the project, an image in a PDF or a slim project. */
  page: 46 * KIB,
  /** A cleaned page stored as JPEG instead (`pdf:jpeg`). */
  jpegPage: 850 * KIB,
  /** The grey page OCR reads (`pages/<page>.ocr.jpg`), made beside a cleaned page when its text may be read. */
  readingPage: 550 * KIB,
  /** A page's OCR result (`ocr/<page>.json`: words, boxes, confidences, the engine's choices). */
  ocrResult: 36 * KIB,
  /** The same, deflated in a zip (textpack, slim project). */
  ocrResultZipped: 7 * KIB,
  /** A page's invisible text in a PDF. */
  textLayer: 6 * KIB,
  /** A page of Markdown; deflated in a textpack. */
  markdown: 2.2 * KIB,
  markdownZipped: 1 * KIB,
  /** A page of an EPUB's chapters, deflated. */
  epubText: 1.3 * KIB,
  /** A page's entry in `project.json`. */
  manifest: 1.7 * KIB,
};
/** An EPUB's cover (a JPEG of at most 60 KB) and its package files. */
const EPUB_FIXED = 50 * KIB;

/** What the estimate needs to know of one document. */
export interface DocumentSize {
  pages: number;
  /** The page images as the project stores them: cleaned pages, or pages kept as they are (a PDF's own JPEGs). */
  imageBytes: number;
  /** The pipeline cleans the pages (`book`, `sheet`); otherwise they are kept as they came (`flat`). */
  cleaned: boolean;
  /** The pages' text will be read (or is already in the project): a text layer, OCR results. */
  text: boolean;
  /** Grey reading pages are made beside the cleaned ones (text may be read, now or later). */
  reading: boolean;
  /** A source PDF the project keeps beside its pages (PDF pages kept with their own text). */
  keptSource: number;
}

/** The bytes the exports asked for write for this document. */
export function outputBytes(doc: DocumentSize, requests: readonly ExportRequest[]): number {
  return requests.reduce((total, r) => total + exportBytes(doc, r), 0);
}

function exportBytes(doc: DocumentSize, request: ExportRequest): number {
  const { pages } = doc;
  const textLayer = doc.text ? pages * PER_PAGE.textLayer : 0;
  const pdf = doc.imageBytes + textLayer + doc.keptSource;
  switch (request.format) {
    case 'pdf':
      return request.options.profile === 'jpeg' && doc.cleaned ? pages * PER_PAGE.jpegPage + textLayer + doc.keptSource : pdf;
    case 'md':
      return pages * PER_PAGE.markdown;
    case 'epub':
      return EPUB_FIXED + pages * PER_PAGE.epubText;
    case 'textpack':
      return pdf + pages * (PER_PAGE.markdownZipped + PER_PAGE.ocrResultZipped);
    case 'slim':
      return doc.imageBytes + doc.keptSource + (doc.text ? pages * PER_PAGE.ocrResultZipped : 0);
    default:
      return doc.imageBytes + textLayer;
  }
}

/** The bytes of the project folder the document is converted in, at its fullest. */
export function workingBytes(doc: DocumentSize): number {
  const { pages } = doc;
  return (
    doc.imageBytes +
    doc.keptSource +
    pages * PER_PAGE.manifest +
    (doc.reading && doc.cleaned ? pages * PER_PAGE.readingPage : 0) +
    (doc.text ? pages * PER_PAGE.ocrResult : 0)
  );
}

/** Cleaned pages in the project, at the size of the example's. */
export function cleanedPageBytes(pages: number): number {
  return pages * PER_PAGE.page;
}
