import { readPrintedPages } from '../export/index.js';
import { correctDocument } from '../ocr/index.js';
import { loadOcrPages, saveManifest, type OcrPage, type ProjectManifest, visiblePages } from '../project/index.js';

/**
 * Finish a document's text once it is read (or read before and asked of again): corrected, or put back as the
 * engine read it (`correct` false), the person's own words (`userWords`) left alone; each page's printed number and running head noted; the manifest saved.
 */
export async function finishText(doc: { dir: string; manifest: ProjectManifest }, correct: boolean, userWords: readonly string[] = []): Promise<void> {
  await correctDocument(doc.dir, doc.manifest, correct, userWords);
  await notePrintedPages(doc.dir, doc.manifest);
  await saveManifest(doc.dir, doc.manifest);
}

/**
 * Note in the project what each page prints about itself — its page number as printed and its running head — read
 * from the OCR of the whole document (running heads are found by their recurrence across pages). Pages without OCR
 * are left as they are.
 */
async function notePrintedPages(dir: string, manifest: ProjectManifest): Promise<void> {
  const ocr = await loadOcrPages(dir, manifest);
  const pages = visiblePages(manifest).filter((p) => ocr.has(p.index));
  if (pages.length === 0) return;
  const printed = readPrintedPages(
    pages.map((p) => ocr.get(p.index) as OcrPage),
    { title: manifest.name },
  );
  pages.forEach((page, i) => {
    const { folio, runningHead } = printed[i];
    if (folio === undefined && runningHead === undefined) delete page.printed;
    else page.printed = { ...(folio !== undefined ? { folio } : {}), ...(runningHead !== undefined ? { runningHead } : {}) };
  });
}
