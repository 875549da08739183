import { lstat, open, readdir, readFile, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { MAX_ENTRIES, type BundleSource } from './bundle.js';

/**
 * List an unpacked scan bundle. Symbolic links are refused outright (lstat while walking): a bundle written by a
 * capture app has none, and one could point anywhere on the disk. Each read checks again with realpath that the
 * file is still inside the folder, in case something changed between the listing and the read.
 */
export async function openFolderSource(path: string, label: string): Promise<BundleSource> {
  const root = await realpath(path);
  const files = await listFolder(root, label);
  const resolve = async (name: string): Promise<string> => {
    const real = await realpath(join(root, ...name.split('/'))).catch((e: unknown) => {
      throw new QuireError(ERROR_CODES.BUNDLE_MISSING, `${label} changed after Quire opened it: ${name} is gone.`, describeError(e));
    });
    if (!real.startsWith(root + sep)) {
      throw new QuireError(ERROR_CODES.BUNDLE_UNSAFE_PATH, `${label} is not safe to open: ${name} leads outside the bundle folder.`);
    }
    return real;
  };
  return {
    label,
    files,
    read: async (name) => readFile(await resolve(name)),
    async readHead(name, length) {
      const handle = await open(await resolve(name), 'r');
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    close: async () => undefined,
  };
}

async function listFolder(root: string, label: string): Promise<Map<string, number>> {
  const files = new Map<string, number>();
  let count = 0;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      count++;
      if (count > MAX_ENTRIES) {
        throw new QuireError(
          ERROR_CODES.BUNDLE_TOO_LARGE,
          `${label} is not a scan bundle Quire will open: it holds more than ${MAX_ENTRIES.toLocaleString('en')} files and folders.`,
        );
      }
      const full = join(dir, name);
      const relative = prefix + name;
      const info = await lstat(full);
      if (info.isSymbolicLink()) {
        throw new QuireError(ERROR_CODES.BUNDLE_UNSAFE_PATH, `${label} is not safe to open: ${relative} is a symbolic link.`);
      }
      if (info.isDirectory()) await walk(full, `${relative}/`);
      else if (info.isFile()) files.set(relative, info.size);
    }
  };
  await walk(root, '');
  return files;
}
