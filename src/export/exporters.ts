/** The exporters Quire ships, each with its writer, and the registry format lists are parsed against. */
import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ERROR_CODES, QuireError } from '../errors.js';
import { type OcrBox, type OcrPage, replaceAtomically, visiblePages, writeFileAtomically } from '../project/index.js';
import { ExportRegistry, type Exporter, type ExportRequest, type ExportTarget } from './formats.js';
import { writeEpub } from './epub.js';
import { findFigures } from './figures.js';
import { structureToMarkdown } from './markdown.js';
import { openWordCheck, readStructure, withoutMarginRefs, type DocumentStructure } from './structure.js';
import { PDF_PROFILES, type PdfProfile } from './pdf-profiles.js';
import { pdfPagesFromProject, writePdf, type PdfOutputPage } from './pdf.js';
import { writeSlim } from './slim.js';

export const pdfExporter: Exporter = {
  name: 'pdf',
  description: 'PDF, one page per page image, with an invisible searchable text layer when OCR ran',
  extension: '.pdf',
  options: {
    profile: {
      values: PDF_PROFILES,
      description:
        'how page images are stored: auto (G4 for black-and-white pages, JPEG for the others), g4 (every page black and white), jpeg (every page JPEG)',
    },
  },
  shorthand: 'profile',
  sendable: true,
  async write(target, options) {
    const profile = (options.profile as PdfProfile | undefined) ?? 'auto';
    const { bytes } = await writePdf(pdfPages(target), target.path, { profile, title: target.manifest.name });
    return bytes;
  },
};

export const slimExporter: Exporter = {
  name: 'slim',
  description: 'Slim project: project.json and the final page images, to reopen or export again later',
  extension: '.quire',
  options: {},
  async write(target) {
    const { bytes } = await writeSlim(target.projectDir, target.manifest, target.path);
    return bytes;
  },
};

export const markdownExporter: Exporter = {
  name: 'md',
  description: 'Markdown from the OCR layout: headings, paragraphs, linked footnotes, side notes, in reading order (turns on OCR)',
  extension: '.md',
  options: {
    pages: { values: ['on', 'off'], description: 'page markers between paragraphs: on (default, <!-- page N --> comments) or off' },
    refs: {
      values: ['keep', 'drop'],
      description: 'reference numbers printed in the margin: keep (default, <!-- ref 124 --> where their line starts) or drop',
    },
  },
  needsOcr: true,
  sendable: true,
  async write(target, options) {
    const structure = await documentStructure(target);
    const text = Buffer.from(structureToMarkdown(options.refs === 'drop' ? withoutMarginRefs(structure) : structure, { pageMarkers: options.pages !== 'off' }));
    await writeFileAtomically(target.path, text);
    return text.length;
  },
};

export const epubExporter: Exporter = {
  name: 'epub',
  description: 'EPUB 3 for e-readers: the text reflowed by chapter, with linked footnotes, table of contents, page list, language and cover (turns on OCR)',
  extension: '.epub',
  options: {
    author: { description: 'the book\'s author, for the reader\'s library (several joined by " & ")' },
    refs: { values: ['keep', 'drop'], description: 'reference numbers printed in the margin: keep (default, a small [124] where their line starts) or drop' },
  },
  needsOcr: true,
  sendable: true,
  async write(target, options) {
    const read = await documentStructure(target);
    const structure = options.refs === 'drop' ? withoutMarginRefs(read) : read;
    const authors =
      typeof options.author === 'string'
        ? options.author
            .split(' & ')
            .map((a) => a.trim())
            .filter((a) => a !== '')
        : [];
    return writeEpub(target, structure, { authors });
  },
};

export const textpackExporter: Exporter = {
  name: 'textpack',
  description: 'OCR textpack: a zip of the searchable PDF, the Markdown and the raw OCR result (turns on OCR)',
  extension: '_OCR.textpack',
  options: {},
  needsOcr: true,
  sendable: true,
  async write(target) {
    const ocrPages = ocrPagesInOrder(target);
    const pdfTemp = join(target.projectDir, `textpack-source-${process.pid}.pdf`);
    try {
      await writePdf(pdfPages(target), pdfTemp, { profile: 'auto', title: target.manifest.name });
      return await replaceAtomically(target.path, async (temp) => {
        const zip = new (await import('yazl')).default.ZipFile();
        zip.addFile(pdfTemp, 'source.pdf', { compress: false });
        zip.addBuffer(Buffer.from(structureToMarkdown(await documentStructure(target))), 'text.md');
        zip.addBuffer(Buffer.from(JSON.stringify(ocrPages)), 'ocr.json');
        zip.end();
        await pipeline(zip.outputStream, createWriteStream(temp));
        return (await stat(temp)).size;
      });
    } finally {
      await rm(pdfTemp, { force: true });
    }
  },
};

/** The project's visible pages for the PDF writer, each with its OCR layer when it has one. */
function pdfPages(target: ExportTarget): PdfOutputPage[] {
  const pages = visiblePages(target.manifest);
  return pdfPagesFromProject(target.projectDir, target.manifest).map((p, i) => {
    // A page kept from the source PDF has its own text: no layer goes over it.
    const ocr = p.kind === 'pdf' ? undefined : target.ocr.get(pages[i].index);
    return ocr ? { ...p, ocr } : p;
  });
}

/**
 * The structure of the project's document, from the OCR of its visible pages; line-end hyphens are checked against
 * the lexicons of the languages the OCR read, and the page images are looked at for the regions the OCR read no text
 * in (figures).
 */
export async function documentStructure(target: ExportTarget): Promise<DocumentStructure> {
  const pages = ocrPagesInOrder(target);
  const languages = target.manifest.ocr?.languages ?? [...new Set(pages.flatMap((p) => p.languages))];
  const isWord = await openWordCheck(languages);
  const visible = visiblePages(target.manifest);
  // The printed numbers the project keeps (read when the OCR ran, perhaps corrected since) win over a new reading.
  const folios = visible.map((p) => p.printed?.folio);
  const figures: OcrBox[][] = [];
  // One page at a time: a long book must not hold all its images at once.
  // Figures add to the text: a page image that cannot be read gives none, and the text is still written.
  for (const [i, page] of visible.entries()) {
    figures.push(page.kind === 'pdf' ? [] : await findFigures(join(target.projectDir, page.file), pages[i]).catch(() => []));
  }
  return readStructure(pages, {
    title: target.manifest.name,
    ...(isWord ? { isWord } : {}),
    ...(folios.some((f) => f !== undefined) ? { folios } : {}),
    ...(figures.some((f) => f.length > 0) ? { figures } : {}),
  });
}

/** The OCR of every visible page, in reading order; a format made from text cannot do without it. */
function ocrPagesInOrder(target: ExportTarget): OcrPage[] {
  const pages = visiblePages(target.manifest);
  if (pages.some((p) => !target.ocr.has(p.index))) {
    throw new QuireError(ERROR_CODES.USAGE, 'Markdown, EPUB and textpack exports need OCR; run again with --ocr auto.');
  }
  return pages.map((p) => target.ocr.get(p.index) as OcrPage);
}

/** The exporters Quire ships; a later format registers the same way. */
export const exportRegistry = new ExportRegistry([pdfExporter, markdownExporter, epubExporter, textpackExporter, slimExporter]);

/** Parse a `--export` format list against the built-in exporters. */
export function parseExportList(spec: string): ExportRequest[] {
  return exportRegistry.parse(spec);
}

/** The exporters for `quire list exports`. */
export function listExports(): Exporter[] {
  return exportRegistry.list();
}
