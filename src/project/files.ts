import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A hidden temporary path beside `path`, so the final rename stays on one file system. */
export function tempPathBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * Run `write` against a temporary path beside `path`, then rename it into place: readers see
 * the old file or the whole new one, never a partial file. The temporary file is removed on failure.
 */
export async function replaceAtomically<T>(path: string, write: (tempPath: string) => Promise<T>): Promise<T> {
  const temp = tempPathBeside(path);
  try {
    const result = await write(temp);
    await rename(temp, path);
    return result;
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}

export async function writeFileAtomically(path: string, data: Uint8Array): Promise<void> {
  await replaceAtomically(path, (temp) => writeFile(temp, data));
}
