import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { uploadsDir } from './layout.js';
import { isJobId } from './secrets.js';
import type { JobStore } from './store.js';

/**
 * Remove what a crash left behind: partial uploads, job folders without a row (the server died between moving an
 * upload in and inserting its row) and folders of cancelled jobs. Only entries older than `olderThanMs` go, so an
 * upload or a submission in progress in another server on the same data folder is left alone.
 */
export async function sweepLeftovers(store: JobStore, dataDir: string, olderThanMs: number, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  const old = async (path: string): Promise<boolean> => {
    try {
      return now - (await stat(path)).mtimeMs > olderThanMs;
    } catch {
      return false;
    }
  };
  const uploads = uploadsDir(dataDir);
  for (const name of await readdir(uploads).catch(() => [] as string[])) {
    const path = join(uploads, name);
    if (await old(path)) {
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    }
  }
  for (const name of await readdir(dataDir).catch(() => [] as string[])) {
    if (!isJobId(name)) continue;
    const path = join(dataDir, name);
    const job = await store.getJob(name);
    if ((job === null && (await old(path))) || job?.status === 'cancelled') {
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    }
  }
  return removed;
}
