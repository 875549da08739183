import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { describeError, isQuireError, QuireError } from '../errors.js';
import { formatBytes } from '../util/index.js';

/** Limits that keep a hostile archive from filling the disk (zip bombs) or the inode table. */
export interface ExtractLimits {
  maxEntries: number;
  /** Total uncompressed bytes. */
  maxBytes: number;
}

/** A 600-page colour book at 300 dpi is ~1 GB of JPEG; these leave room and stop bombs. */
export const SLIM_LIMITS: ExtractLimits = { maxEntries: 20_000, maxBytes: 8 * 1024 ** 3 };

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * Why an archive entry name may not be written under the target folder, or undefined when it
 * is safe: no absolute paths, drive letters, backslashes, `..` or empty segments.
 */
export function unsafeEntryReason(name: string): string | undefined {
  if (name === '') return 'empty name';
  if (name.includes('\\')) return 'backslash in name';
  if (name.includes('\0')) return 'NUL in name';
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return 'absolute path';
  const segments = name.replace(/\/$/, '').split('/');
  if (segments.some((segment) => segment === '..' || segment === '.' || segment === '')) return 'relative path segments';
  return undefined;
}

/**
 * Unzip `zipPath` into `targetDir` (which must exist), refusing unsafe names, symlinks, existing
 * files and archives past `limits`. `what` names the archive in messages ("slim project").
 * Returns the names of the files written. On error some files may have been written: the
 * caller owns `targetDir` and removes it.
 */
export async function extractZip(zipPath: string, targetDir: string, limits: ExtractLimits, what: string): Promise<string[]> {
  const root = resolve(targetDir);
  let zip: yauzl.ZipFile;
  try {
    // yauzl checks each entry's real size against its declared size, so the declared sizes
    // summed below are a true bound.
    zip = await yauzl.openPromise(zipPath, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true });
  } catch (e) {
    throw new QuireError('bad_archive', `The ${what} is not a readable zip archive.`, describeError(e));
  }
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new QuireError('bundle_too_large', `The ${what} holds too many files (${zip.entryCount}).`, `limit ${limits.maxEntries}`);
    }
    const written: string[] = [];
    let total = 0;
    for await (const entry of entriesOf(zip, what)) {
      const reason = unsafeEntryReason(entry.fileName) ?? (isSymlink(entry) ? 'symbolic link' : undefined);
      const target = resolve(root, entry.fileName);
      if (reason || !(target === root || target.startsWith(root + sep))) {
        throw new QuireError('bundle_unsafe_path', `The ${what} contains an unsafe entry "${entry.fileName}".`, reason ?? 'escapes the folder');
      }
      total += entry.uncompressedSize;
      if (total > limits.maxBytes) {
        throw new QuireError('bundle_too_large', `The ${what} unpacks to more than ${formatBytes(limits.maxBytes)}.`, `at entry ${entry.fileName}`);
      }
      if (entry.fileName.endsWith('/')) {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(dirname(target), { recursive: true });
      const source = await zip.openReadStreamPromise(entry);
      // `wx`: a name given twice, or a symlink planted by an earlier entry, is never followed.
      await pipeline(source, createWriteStream(target, { flags: 'wx', mode: 0o644 }));
      written.push(entry.fileName);
    }
    return written;
  } catch (e) {
    if (isQuireError(e)) throw e;
    throw new QuireError(yauzlUnsafeName(e) ? 'bundle_unsafe_path' : 'bad_archive', `The ${what} could not be unpacked.`, describeError(e));
  } finally {
    zip.close();
  }
}

/** Entries one at a time (yauzl's lazy mode), so a huge central directory is never all in memory. */
async function* entriesOf(zip: yauzl.ZipFile, what: string): AsyncGenerator<yauzl.Entry> {
  for (;;) {
    const next = await new Promise<yauzl.Entry | undefined>((resolveEntry, reject) => {
      const onEntry = (entry: yauzl.Entry): void => {
        cleanup();
        resolveEntry(entry);
      };
      const onEnd = (): void => {
        cleanup();
        resolveEntry(undefined);
      };
      const onError = (e: unknown): void => {
        cleanup();
        reject(yauzlUnsafeName(e) ? new QuireError('bundle_unsafe_path', `The ${what} contains an unsafe entry name.`, describeError(e)) : e);
      };
      const cleanup = (): void => {
        zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
      };
      zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
      zip.readEntry();
    });
    if (!next) return;
    yield next;
  }
}

function isSymlink(entry: yauzl.Entry): boolean {
  return ((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK;
}

/** yauzl refuses absolute and `..` names itself, with these words. */
function yauzlUnsafeName(e: unknown): boolean {
  return e instanceof Error && /^(invalid relative path|absolute path|invalid characters in fileName)/.test(e.message);
}
