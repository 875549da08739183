/**
 * Pages copied from a source PDF into the output as they are (a born-digital page that already had its text): the
 * original content stream, fonts and images, untouched. What would drag other pages of the source along with a
 * copied page is cut first: annotations' back-links to their page, form widgets' links to their field (the output
 * has no form), article beads; links to another page of the source point to its copy, or are dropped when that page
 * is not in the output.
 */
import { readFile } from 'node:fs/promises';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRef, type PDFObject, type PDFPage } from 'pdf-lib';
import { describeError, QuireError } from '../errors.js';

/** A page to copy: the source PDF file, the page's 1-based number in it, and its 1-based position in the output. */
export interface KeptPageRequest {
  file: string;
  page: number;
  number: number;
}

const DEST = PDFName.of('Dest');
const ACTION = PDFName.of('A');
const GOTO_DEST = PDFName.of('D');

/**
 * Copy every kept page into `doc` (not yet placed in its page tree), each source PDF read and copied in one pass
 * so fonts and images its pages share are copied once. Returns the copies by output position.
 */
export async function copyKeptPages(doc: PDFDocument, requests: KeptPageRequest[]): Promise<Map<number, PDFPage>> {
  const copies = new Map<number, PDFPage>();
  const byFile = new Map<string, KeptPageRequest[]>();
  for (const request of requests) byFile.set(request.file, [...(byFile.get(request.file) ?? []), request]);
  for (const [file, wanted] of byFile) {
    const source = await loadSource(file, wanted[0].number);
    const count = source.getPageCount();
    const outside = wanted.find((r) => !(Number.isInteger(r.page) && r.page >= 1 && r.page <= count));
    if (outside) {
      throw new QuireError('bad_project', `Page ${outside.number} is page ${outside.page} of the source PDF, which has ${count} pages.`, file);
    }
    const pageIndex = new Map(source.getPages().map((p, i) => [p.ref.toString(), i]));
    for (const index of new Set(wanted.map((r) => r.page - 1))) detachPage(source.getPage(index), pageIndex);
    const copied = await doc.copyPages(
      source,
      wanted.map((r) => r.page - 1),
    );
    // A link to a source page that is in the output goes to the first copy of it.
    const copyOf = new Map<number, PDFRef>();
    wanted.forEach((r, k) => {
      if (!copyOf.has(r.page - 1)) copyOf.set(r.page - 1, copied[k].ref);
      copies.set(r.number, copied[k]);
    });
    for (const page of copied) relink(page, copyOf);
  }
  return copies;
}

async function loadSource(file: string, number: number): Promise<PDFDocument> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw new QuireError('bad_project', `The source PDF of page ${number} is missing.`, `${file}: ${describeError(e)}`);
  }
  try {
    return await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false });
  } catch (e) {
    throw new QuireError('bad_project', `The source PDF of page ${number} cannot be read.`, `${file}: ${describeError(e)}`);
  }
}

/**
 * Cut what links a page of the source to other pages, in the source document (read for this copy only): page
 * references in link destinations become the page's index, a number `relink` maps to the copy.
 */
function detachPage(page: PDFPage, pageIndex: Map<string, number>): void {
  page.node.delete(PDFName.of('B'));
  for (const annotation of annotationsOf(page)) {
    annotation.delete(PDFName.of('P'));
    if (annotation.get(PDFName.of('Subtype'))?.toString() === '/Widget') annotation.delete(PDFName.of('Parent'));
    for (const dest of destinationsOf(annotation)) {
      const target = dest.get(0);
      // Already marked: two links may share one destination.
      if (target instanceof PDFNumber) continue;
      const index = target instanceof PDFRef ? pageIndex.get(target.toString()) : undefined;
      // A reference to anything else than a page of this PDF is not a destination we can follow.
      dest.set(0, PDFNumber.of(index ?? -1));
    }
  }
}

/** Point each link of a copied page at the copy of its target page; drop the link's target when that page is not copied. */
function relink(page: PDFPage, copyOf: Map<number, PDFRef>): void {
  for (const annotation of annotationsOf(page)) {
    for (const dest of destinationsOf(annotation)) {
      const target = dest.get(0);
      // Already relinked: two links may share one destination.
      if (target instanceof PDFRef) continue;
      const ref = target instanceof PDFNumber ? copyOf.get(target.asNumber()) : undefined;
      if (ref) dest.set(0, ref);
      else {
        annotation.delete(DEST);
        annotation.delete(ACTION);
      }
    }
  }
}

function annotationsOf(page: PDFPage): PDFDict[] {
  const annots = page.node.lookup(PDFName.of('Annots'));
  if (!(annots instanceof PDFArray)) return [];
  return annots.asArray().flatMap((a) => {
    const dict = page.doc.context.lookup(a);
    return dict instanceof PDFDict ? [dict] : [];
  });
}

/** The explicit destinations of a link: its `/Dest` array, or the `/D` array of its go-to action. */
function destinationsOf(annotation: PDFDict): PDFArray[] {
  const out: PDFArray[] = [];
  const direct = lookupArray(annotation, DEST);
  if (direct) out.push(direct);
  const action = annotation.lookup(ACTION);
  if (action instanceof PDFDict && action.get(PDFName.of('S'))?.toString() === '/GoTo') {
    const viaAction = lookupArray(action, GOTO_DEST);
    if (viaAction) out.push(viaAction);
  }
  return out.filter((dest) => dest.size() > 0);
}

function lookupArray(dict: PDFDict, key: PDFName): PDFArray | undefined {
  const value: PDFObject | undefined = dict.lookup(key);
  return value instanceof PDFArray ? value : undefined;
}
