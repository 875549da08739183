/** Export: the exporters (each with its writer), the format-list parser and the registry they are named in. */
export { ExportRegistry, type Exporter, type ExportRequest, type ExportTarget } from './formats.js';
export { documentStructure, epubExporter, exportRegistry, listExports, parseExportList, pdfExporter } from './exporters.js';
export { writePdf, pdfPagesFromProject, type PdfOutputPage, type PdfPageInput } from './pdf.js';
export { writeSlim } from './slim.js';
export { documentToMarkdown, structureToMarkdown, type MarkdownOptions } from './markdown.js';
export {
  openWordCheck,
  readPrintedPages,
  readStructure,
  withoutMarginRefs,
  type Block,
  type DocumentStructure,
  type Inline,
  type PageInfo,
  type StructureOptions,
} from './structure.js';
