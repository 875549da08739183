/**
 * A document's pages as proofreading meets them: their previews and the frames they came from, their recognised
 * text and words, and a person's edits of a word, written into the page's OCR file where every export reads it.
 */
import { join } from 'node:path';
import { httpError } from '../http/index.js';
import { ocrPageText } from '../convert/index.js';
import { editWord, type OcrPage, pageWords, readOcrPage, type ProjectPage, restoreWord, writeOcrPage } from '../project/index.js';
import type { FrameView, PageText, PageWords, WordEditResult } from './api-types.js';
import { countsWith } from './dictionary.js';
import { type GuiDocument, wordView } from './document-model.js';
import { busy, notFound } from './http-errors.js';
import { type PreviewSize, renderFramePreview, renderPagePreview } from './previews.js';

/** A person's change of one word: its new text, or back to the text before their edit; `was` is the text they saw. */
export interface WordChange {
  text?: string;
  was: string;
  restore?: boolean;
}

/** What an edit tells the store. */
export interface EditHooks {
  /** Words of the person's dictionary: proofreading does not mark them. */
  known: (text: string) => boolean;
  changed: (doc: GuiDocument) => void;
  keep: (doc: GuiDocument) => Promise<void>;
}

/** The document's project folder, when it has pages and no task holds it. */
export function projectOf(doc: GuiDocument): string {
  if (doc.task) throw busy();
  if (!doc.projectDir || !doc.manifest) throw httpError('no_pages', 'This document has no pages yet.');
  return doc.projectDir;
}

export function pageOf(doc: GuiDocument, index: number): ProjectPage {
  const page = doc.manifest?.pages.find((p) => p.index === index);
  if (!page) throw notFound('page');
  return page;
}

/** Count the words of every page with text again (after OCR, a rerun, a reopened project). */
export async function countWords(doc: GuiDocument, known: (text: string) => boolean): Promise<void> {
  doc.counts.clear();
  if (!doc.projectDir || !doc.manifest) return;
  for (const page of doc.manifest.pages) {
    if (!page.ocr || page.kind === 'pdf') continue;
    doc.counts.set(page.index, countsWith(await readOcr(doc.projectDir, page), known));
  }
}

function readOcr(projectDir: string, page: ProjectPage): Promise<OcrPage> {
  return readOcrPage(projectDir, page.ocr as string, page.index);
}

/** A page's recognised words, line by line, with what proofreading needs to know of each. */
export async function pageWordsOf(doc: GuiDocument, index: number, known: (text: string) => boolean): Promise<PageWords> {
  const page = pageOf(doc, index);
  if (!page.ocr || !doc.projectDir) throw httpError('no_text', `Page ${index} has no recognised text yet; run OCR from the OCR panel first.`);
  if (page.kind === 'pdf') throw httpError('kept_page', `Page ${index} is kept from its PDF with the text it had, so there is nothing to proofread.`);
  const ocr = await readOcr(doc.projectDir, page);
  const lines: PageWords['lines'] = [];
  let n = 0;
  let paragraph = 0;
  for (const block of ocr.blocks) {
    for (const para of block.paragraphs) {
      for (const line of para.lines) lines.push({ paragraph, words: line.words.map((w) => wordView(w, n++, known)) });
      paragraph++;
    }
  }
  return { index, width: ocr.width, height: ocr.height, engine: ocr.engine, languages: ocr.languages, lines, ...countsWith(ocr, known) };
}

/**
 * A person's reading of word `n` on a page (`restore`: back to the text before their edit), written into the
 * page's OCR result, where every export reads it. `was` is the text they saw: if the word reads otherwise now
 * (OCR ran again meanwhile), nothing is written.
 */
export async function editWordOf(doc: GuiDocument, index: number, n: number, change: WordChange, hooks: EditHooks): Promise<WordEditResult> {
  const projectDir = projectOf(doc);
  const page = pageOf(doc, index);
  if (!page.ocr) throw httpError('no_text', `Page ${index} has no recognised text yet; run OCR from the OCR panel first.`);
  if (page.kind === 'pdf') throw httpError('kept_page', `Page ${index} is kept from its PDF with the text it had, so there is nothing to proofread.`);
  const run = doc.editing.then(async (): Promise<WordEditResult> => {
    const ocr = await readOcr(projectDir, page);
    const current = pageWords(ocr)[n];
    if (!current) throw httpError('not_found', `Page ${index} has no word number ${n}.`);
    if (current.text !== change.was)
      throw httpError('changed', `This word now reads "${current.text}", not "${change.was}"; look at it again before changing it.`);
    if (change.restore) restoreWord(ocr, n);
    else if (change.text !== undefined) editWord(ocr, n, change.text);
    else throw httpError('bad_request', 'Give the new text of the word, or ask to restore it.');
    await writeOcrPage(projectDir, page.ocr as string, ocr);
    const counts = countsWith(ocr, hooks.known);
    doc.counts.set(index, counts);
    doc.textRevision++;
    doc.revision++;
    hooks.changed(doc);
    await hooks.keep(doc);
    return { word: wordView(pageWords(ocr)[n], n, hooks.known), page: counts };
  });
  doc.editing = run.catch(() => undefined);
  return run;
}

/** The path of a page's preview JPEG, rendered on first use. */
export async function pagePreviewOf(doc: GuiDocument, index: number, size: PreviewSize): Promise<string> {
  const page = pageOf(doc, index);
  if (!doc.projectDir) throw notFound('page');
  // A page kept from its PDF is shown as the PDF page it is.
  if (page.kind === 'pdf' && !doc.opened) throw httpError('no_image', 'This page is kept from its PDF as it is and has no page image.');
  const source = page.kind === 'pdf' ? (await frameOf(doc, page.source.frame)).path : join(doc.projectDir, page.file);
  const dest = join(doc.dir, 'previews', `r${doc.imageRevision}-p${index}-${size}.jpg`);
  await renderPagePreview(source, dest, size);
  return dest;
}

/** A frame of the input: its size in pixels (the space of the page boxes) and where its image is. */
export async function frameOf(doc: GuiDocument, index: number): Promise<FrameView & { path: string }> {
  if (!doc.opened) throw httpError('no_captures');
  const frame = doc.opened.frames.find((f) => f.index === index);
  if (!frame) throw notFound('frame');
  const path = join(doc.dir, 'previews', `frame-${index}.jpg`);
  let size = doc.frames.get(index);
  if (!size) {
    size = await renderFramePreview(frame, path);
    doc.frames.set(index, size);
  }
  return { index, input: frame.input, ...size, image: `/api/documents/${doc.id}/frames/${index}/image`, path };
}

/** The recognised text of a page, or empty text when OCR has not run on it. */
export async function pageTextOf(doc: GuiDocument, index: number): Promise<PageText> {
  const page = pageOf(doc, index);
  if (!page.ocr || !doc.projectDir) return { index, text: '' };
  const ocr = await readOcrPage(doc.projectDir, page.ocr, index);
  return { index, text: ocrPageText(ocr), engine: ocr.engine, languages: ocr.languages };
}
