import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { ProjectPage } from '../project/index.js';
import type { OcrPagesRead } from './progress.js';

/**
 * How much reading a page asks of the engine, known before it is read: the ink on its clean black-and-white page, in
 * thousands of pixels. A page twice as full of text takes about twice as long; a blank page next to nothing. Reading
 * the image's mean costs a few tens of milliseconds, against seconds for the OCR itself.
 */
export async function pageWork(dir: string, page: Pick<ProjectPage, 'file'>): Promise<number | undefined> {
  try {
    const image = sharp(join(dir, page.file));
    const [{ width, height }, { channels }] = await Promise.all([image.metadata(), image.stats()]);
    const grey = channels[0];
    if (!grey || !width || !height) return undefined;
    return Math.max(1, Math.round(((1 - grey.mean / 255) * width * height) / 1000));
  } catch {
    // Not measured: the estimate takes the mean of the pages that were.
    return undefined;
  }
}

/**
 * The pages of one OCR run as the progress events tell of them: each page's work as it is handed to the engine (in
 * that order), and which one was just read. The engine reads `sideBySide` pages at once (its warm workers, one a core).
 */
export class OcrProgressLog {
  private readonly works: Array<number | null> = [];

  /** `checksWords`: the correction will read doubtful words again with this engine once every page is read. */
  constructor(private readonly checksWords = false) {}

  /** A page is handed to the engine, with its work when it was measured: its place in the reading order. */
  handed(work: number | undefined): number {
    this.works.push(work ?? null);
    return this.works.length - 1;
  }

  read(order: number): OcrPagesRead {
    return { order, works: [...this.works], sideBySide: availableParallelism(), ...(this.checksWords ? { checksWords: true } : {}) };
  }
}
