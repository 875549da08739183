/**
 * Where a document keeps the pages set by hand in its page view: `page-boxes.json` in its folder, by frame index, in
 * the frame's pixels. The document store reads it to make the pages (a Rerun keeps them); `page-boxes.ts` writes it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type HandSetPages, writeFileAtomically } from '../project/index.js';

const FILE = 'page-boxes.json';

/** The pages set by hand in a document, by frame index (none when nothing was set). */
export async function readPageBoxes(docDir: string): Promise<Map<number, HandSetPages>> {
  const text = await readFile(join(docDir, FILE), 'utf8').catch(() => '{}');
  try {
    const kept = JSON.parse(text) as Record<string, HandSetPages>;
    return new Map(Object.entries(kept).map(([frame, pages]) => [Number(frame), pages]));
  } catch {
    // A damaged file sets nothing by hand: the pages are found again, never refused.
    return new Map();
  }
}

/** Keep the pages set by hand in a document (atomically: a reader sees the old file or the new one). */
export async function savePageBoxes(docDir: string, boxes: ReadonlyMap<number, HandSetPages>): Promise<void> {
  const kept = Object.fromEntries([...boxes].sort(([a], [b]) => a - b));
  await writeFileAtomically(join(docDir, FILE), new TextEncoder().encode(`${JSON.stringify(kept, null, 2)}\n`));
}
