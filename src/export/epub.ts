/**
 * The `epub` export: the document's structure reflowed as EPUB 3 ({@link structureToEpubContent}), with its
 * languages, title, a cover made from the first page image and each figure cut from its page image, packaged by
 * {@link epubFiles}.
 */
import { join } from 'node:path';
import { readImage } from '../imaging/index.js';
import { languageTag } from '../ocr/index.js';
import { visiblePages, type OcrBox, type ProjectPage } from '../project/index.js';
import { structureToEpubContent, type FigureBlock } from './epub-content.js';
import { epubFiles, writeEpubZip, type EpubImage } from './epub-package.js';
import type { ExportTarget } from './formats.js';
import type { DocumentStructure } from './structure.js';

export interface EpubOptions {
  /** The book's authors, in order (`dc:creator`); none when unknown. */
  authors?: string[];
}

/**
 * The longest side of a figure: the width of a 6–7-inch 300-ppi reader's screen (1072–1264 px), which shows a figure at
 * most that wide; more only weighs. A black-and-white figure is a two-colour PNG and small at any size.
 */
const MAX_FIGURE_SIDE = 1200;
/**
 * The cover is the book's thumbnail in a reader's library and its first screen, not a page to read: reduced to this
 * side and quality, and smaller still until it weighs at most `MAX_COVER_BYTES` (a 300-dpi page kept whole weighed
 * 425 KB, nearly all of the sample's EPUB).
 */
const COVER_SIDE = 1000;
const COVER_QUALITY = 70;
const MAX_COVER_BYTES = 60_000;
/** Each try at a smaller cover is this share of the one before. */
const COVER_STEP = 0.8;
/** `dcterms:modified` when `SOURCE_DATE_EPOCH` does not say: fixed, so the same document gives the same bytes. */
const FIXED_MODIFIED = '2000-01-01T00:00:00Z';

/** The document's languages as BCP-47 tags, main first: those the OCR read it in (`und` when none is known). */
export function documentLanguages(target: ExportTarget): string[] {
  const listed = target.manifest.ocr?.languages ?? [];
  // A project that lists none still has its pages' own.
  const codes = listed.length > 0 ? listed : [...new Set([...target.ocr.values()].flatMap((p) => p.languages))];
  const tags = [...new Set(codes.map((c) => languageTag(c)).filter((t): t is string => t !== undefined))];
  return tags.length > 0 ? tags : ['und'];
}

/** `dcterms:modified`: from `SOURCE_DATE_EPOCH` (the reproducible-builds convention) when set, else fixed. */
function modifiedDate(): string {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  if (process.env.SOURCE_DATE_EPOCH && Number.isFinite(epoch) && epoch >= 0) return new Date(epoch * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  return FIXED_MODIFIED;
}

/** A figure of the page as an image for the package: JPEG (grey unless the page is colour), PNG from a black-and-white page. */
async function encodeFigure(
  page: ProjectPage,
  path: string,
  region: OcrBox,
  ocrSize: { width: number; height: number },
): Promise<{ data: Buffer; mediaType: EpubImage['mediaType'] }> {
  const { width = 0, height = 0 } = await readImage(path).metadata();
  const [sx, sy] = [width / ocrSize.width, height / ocrSize.height];
  const left = Math.max(0, Math.floor(region.x0 * sx));
  const top = Math.max(0, Math.floor(region.y0 * sy));
  const image = readImage(path)
    .extract({
      left,
      top,
      width: Math.max(1, Math.min(width, Math.ceil(region.x1 * sx)) - left),
      height: Math.max(1, Math.min(height, Math.ceil(region.y1 * sy)) - top),
    })
    .flatten({ background: '#ffffff' })
    .resize({ width: MAX_FIGURE_SIDE, height: MAX_FIGURE_SIDE, fit: 'inside', withoutEnlargement: true });
  if (page.kind === 'bitonal') {
    return { data: await image.greyscale().png({ compressionLevel: 9, palette: true, colours: 2, dither: 0 }).toBuffer(), mediaType: 'image/png' };
  }
  return {
    data: await image
      .toColourspace(page.kind === 'color' ? 'srgb' : 'b-w')
      .jpeg({ quality: 85, mozjpeg: false })
      .toBuffer(),
    mediaType: 'image/jpeg',
  };
}

/** The cover: the first page reduced (see `COVER_SIDE`), a JPEG of at most `MAX_COVER_BYTES`. */
async function encodeCover(page: ProjectPage, path: string): Promise<{ data: Buffer; mediaType: 'image/jpeg' }> {
  const colour = page.kind === 'color' ? 'srgb' : 'b-w';
  for (let side = COVER_SIDE; ; side = Math.round(side * COVER_STEP)) {
    const data = await readImage(path)
      .flatten({ background: '#ffffff' })
      .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
      .toColourspace(colour)
      .jpeg({ quality: COVER_QUALITY, mozjpeg: false })
      .toBuffer();
    if (data.length <= MAX_COVER_BYTES || side < 200) return { data, mediaType: 'image/jpeg' };
  }
}

/** Write the EPUB of `structure` (read from `target`'s pages) to `target.path`; returns the size written. */
export async function writeEpub(target: ExportTarget, structure: DocumentStructure, options: EpubOptions = {}): Promise<number> {
  const pages = visiblePages(target.manifest);
  const title = target.manifest.name;
  const languages = documentLanguages(target);
  const imagePath = (page: ProjectPage): string => join(target.projectDir, page.file);

  const figures: FigureBlock[] = structure.blocks.filter((b): b is FigureBlock => b.kind === 'figure' && pages[b.page]?.kind !== 'pdf');
  const images: EpubImage[] = [];
  const hrefOf = new Map<FigureBlock, { href: string; alt: string }>();
  for (const [i, figure] of figures.entries()) {
    const page = pages[figure.page];
    const ocr = target.ocr.get(page.index);
    if (!ocr) continue;
    const { data, mediaType } = await encodeFigure(page, imagePath(page), figure.box, ocr);
    const href = `images/figure-${i + 1}.${mediaType === 'image/png' ? 'png' : 'jpg'}`;
    images.push({ href, mediaType, data });
    const { number, folio } = structure.pages[figure.page];
    hrefOf.set(figure, { href, alt: `Figure on page ${number}${folio !== undefined ? ` (p. ${folio})` : ''}` });
  }
  const coverPage = pages.find((p) => p.kind !== 'pdf');
  const cover: EpubImage | undefined = coverPage ? { href: 'images/cover.jpg', ...(await encodeCover(coverPage, imagePath(coverPage))) } : undefined;

  const content = structureToEpubContent(structure, { title, language: languages[0], figureImage: (figure) => hrefOf.get(figure) });
  const files = epubFiles({ title, authors: options.authors ?? [], languages, content, ...(cover ? { cover } : {}), images, modified: modifiedDate() });
  return writeEpubZip(files, target.path);
}
