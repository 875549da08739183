/**
 * Pages set by hand in the page view: a person drags the split or the edges of a page box on the capture, and that
 * frame is made again with the boxes they set (its text read again when the document has text). The boxes are kept
 * in the document's folder (`page-boxes.json`, by frame), so a restart, a Rerun and every export keep them.
 */
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { checkHandSetPages, openDocument, processPages, readyOcr, recognize } from '../convert/index.js';
import { type HandSetPages, type ProjectPage, saveManifest } from '../project/index.js';
import type { GuiDocument, TaskReporter } from './documents.js';
import { notFound } from './http-errors.js';
import { readPageBoxes, savePageBoxes } from './page-box-file.js';

/**
 * Check the pages set for a frame against its capture's size (one sentence when they do not fit), before anything
 * is kept or made.
 */
export function checkFramePages(pages: HandSetPages, frame: { index: number; width: number; height: number; input: string }): void {
  checkHandSetPages(pages, frame, `frame ${frame.index} of ${frame.input}`);
}

export interface RemakeFrame {
  doc: GuiDocument;
  frame: number;
  /** The pages set by hand for it; null goes back to the automatic split and crop. */
  pages: HandSetPages | null;
  userWords: readonly string[];
  signal: AbortSignal;
  report: TaskReporter;
}

/**
 * Make the frame again in a folder of its own with its pages as set (or as found, `pages` null): its new pages (and
 * their text, read with the document's engine and languages when it has text) take the place of its old ones in the
 * project, and the boxes are kept, only once they are whole. Other pages, their text and corrections, are left as
 * they are.
 */
export async function remakeFrame({ doc, frame, pages, userWords, signal, report }: RemakeFrame): Promise<void> {
  const projectDir = doc.projectDir;
  const manifest = doc.manifest;
  if (!projectDir || !manifest || !doc.opened) throw notFound('page');
  const boxes = await readPageBoxes(doc.dir);
  if (pages) boxes.set(frame, pages);
  else boxes.delete(frame);

  const stamp = `r${doc.imageRevision + 1}`;
  const scratch = join(doc.dir, `remake-${stamp}`);
  await rm(scratch, { recursive: true, force: true });
  try {
    const text = manifest.ocr;
    const ocr = text ? await readyOcr(text.engine, text.languages.join('+')) : undefined;
    report.start('pages', 1);
    const lent = { opened: { ...doc.opened, close: async () => undefined } };
    const made = await openDocument(doc.inputs.length === 1 ? doc.inputs[0] : doc.inputs, { projectDir: scratch, label: basename(doc.inputs[0]), ...lent });
    const preset = doc.preset !== 'auto' ? { pipeline: doc.preset } : {};
    await processPages(made, { ...preset, pageBoxes: boxes, frames: new Set([frame]), signal, onProgress: report.onProgress });
    if (ocr) {
      report.start('ocr', made.manifest.pages.length);
      await recognize(made, ocr, { signal, onProgress: report.onProgress, timeLeft: true, userWords });
    }
    const fresh = await Promise.all(made.manifest.pages.map((p) => moveInto(p, scratch, projectDir, stamp)));
    const old = manifest.pages.filter((p) => p.source.frame === frame);
    const at = manifest.pages.findIndex((p) => p.source.frame === frame);
    const rest = manifest.pages.filter((p) => p.source.frame !== frame);
    const pagesNow = [...rest.slice(0, at), ...fresh, ...rest.slice(at)];
    // The boxes are kept once the pages made with them are whole: a failed or cancelled remake leaves both as they were.
    await savePageBoxes(doc.dir, boxes);
    manifest.pages = pagesNow.map((p, i) => ({ ...p, index: i + 1 }) as ProjectPage);
    await saveManifest(projectDir, manifest);
    doc.imageRevision++;
    await Promise.all(old.flatMap((p) => filesOf(p).map((f) => rm(join(projectDir, f), { force: true }))));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function filesOf(page: Omit<ProjectPage, 'index'>): string[] {
  return [page.file, page.ocrImage, page.ocr].filter((f): f is string => f !== undefined);
}

/** A page made in the scratch folder, moved into the project under names no other page has (`pages/r4-0002-left.tif`). */
async function moveInto(page: ProjectPage, from: string, to: string, stamp: string): Promise<Omit<ProjectPage, 'index'>> {
  const moved = { ...page } as Omit<ProjectPage, 'index'> & { index?: number };
  delete moved.index;
  const place = async (file: string): Promise<string> => {
    const name = join(dirname(file), `${stamp}-${basename(file)}`);
    await rename(join(from, file), join(to, name));
    return name;
  };
  moved.file = await place(page.file);
  if (page.ocrImage) moved.ocrImage = await place(page.ocrImage);
  if (page.ocr) moved.ocr = await place(page.ocr);
  return moved;
}
