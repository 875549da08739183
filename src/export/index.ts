/** Export: the exporters (each with its writer), the format-list parser and the registry they are named in. */
export { ExportRegistry, type ExportOption, type Exporter, type ExportRequest, type ExportTarget } from './formats.js';
export { documentStructure, exportRegistry, listExports, markdownExporter, parseExportList, pdfExporter, slimExporter, textpackExporter } from './exporters.js';
export { writePdf, pdfPagesFromProject, pageSizeInPoints, type PdfKeptPageInput, type PdfOptions, type PdfOutputPage, type PdfPageInput } from './pdf.js';
export { PDF_PROFILES, type PdfProfile } from './pdf-profiles.js';
export { openSlim, writeSlim } from './slim.js';
export { readTiffLayout, singleG4Segment, type G4Segment, type TiffLayout } from './tiff.js';
export { documentToMarkdown, structureToMarkdown, type MarkdownOptions } from './markdown.js';
export { openWordCheck, readPrintedPages, readStructure, type Block, type DocumentStructure, type Inline, type PageInfo, type StructureOptions } from './structure.js';
