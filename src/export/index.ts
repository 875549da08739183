/** Export: the format-list parser and the writers (image PDF, slim project) and page image files. */
export {
  ExportRegistry,
  exportRegistry,
  listExports,
  parseExportList,
  pdfExporter,
  markdownExporter,
  textpackExporter,
  slimExporter,
  type ExportOption,
  type Exporter,
  type ExportRequest,
} from './formats.js';
export { writePageImage, encodeBitonalTiff, encodePageJpeg, PAGE_JPEG_QUALITY, type PageRaster } from './page-image.js';
export { writePdf, pdfPagesFromProject, pageSizeInPoints, type PdfKeptPageInput, type PdfOptions, type PdfOutputPage, type PdfPageInput } from './pdf.js';
export { PDF_PROFILES, type PdfProfile } from './pdf-profiles.js';
export { openSlim, writeSlim } from './slim.js';
export { readTiffLayout, singleG4Segment, type G4Segment, type TiffLayout } from './tiff.js';
export { documentToMarkdown, type MarkdownOptions } from './markdown.js';
export { replaceAtomically, writeFileAtomically } from './files.js';
