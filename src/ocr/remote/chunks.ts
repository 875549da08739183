/**
 * Cutting a document into the PDFs the service takes: at most 1000 pages and 50 MB each. Chunks are planned from
 * the page image sizes (a PDF of them is those bytes plus a little per page), then made; one that still comes out
 * too large is halved until it fits.
 */
import { ERROR_CODES, QuireError } from '../../errors.js';
import { formatBytes } from '../../util/index.js';
import type { OcrDocument } from '../types.js';

export interface ChunkLimits {
  maxPages: number;
  maxBytes: number;
}

export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { maxPages: 1000, maxBytes: 50 * 1024 * 1024 };

/** A PDF's own bytes beyond its images: the file's frame, and each page's objects. */
const PDF_OVERHEAD = 16 * 1024;
const PAGE_OVERHEAD = 2 * 1024;

export interface ChunkRange {
  from: number;
  to: number;
}

export interface Chunk extends ChunkRange {
  pdf: Uint8Array;
}

function tooLarge(page: number, bytes: number, limits: ChunkLimits): QuireError {
  return new QuireError(
    ERROR_CODES.USAGE,
    `Page ${page} is too large for the remote OCR service (${formatBytes(bytes)}; it takes at most ${formatBytes(limits.maxBytes)} per document).`,
  );
}

/** Page ranges `[from, to)` in order, each within the limits by the estimate. */
export function planChunks(pageBytes: readonly number[], limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): ChunkRange[] {
  const ranges: ChunkRange[] = [];
  let from = 0;
  let bytes = PDF_OVERHEAD;
  for (let i = 0; i < pageBytes.length; i++) {
    const page = pageBytes[i] + PAGE_OVERHEAD;
    if (PDF_OVERHEAD + page > limits.maxBytes) throw tooLarge(i + 1, pageBytes[i], limits);
    if (i > from && (i - from >= limits.maxPages || bytes + page > limits.maxBytes)) {
      ranges.push({ from, to: i });
      from = i;
      bytes = PDF_OVERHEAD;
    }
    bytes += page;
  }
  if (pageBytes.length > from) ranges.push({ from, to: pageBytes.length });
  return ranges;
}

/** Make the PDF of a range; one over the size limit is made again as two halves. */
export async function makeChunks(document: OcrDocument, range: ChunkRange, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): Promise<Chunk[]> {
  const pdf = await document.pdf(range.from, range.to);
  if (pdf.length <= limits.maxBytes) return [{ ...range, pdf }];
  if (range.to - range.from === 1) throw tooLarge(range.from + 1, pdf.length, limits);
  const mid = range.from + Math.floor((range.to - range.from) / 2);
  return [...(await makeChunks(document, { from: range.from, to: mid }, limits)), ...(await makeChunks(document, { from: mid, to: range.to }, limits))];
}
