import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type yauzl from 'yauzl';
import { describeError, ERROR_CODES, QuireError } from '../errors.js';
import { formatBytes } from '../util/index.js';
import { isDirectoryName, unsafeEntryReason } from '../project/index.js';
import { MAX_ENTRIES, type BundleSource } from './bundle.js';

/**
 * Zip bomb limits. Camera JPEGs do not compress, so a real bundle unpacks to about its own size; we allow
 * 20× the archive plus 64 MiB in total, and refuse any single entry over 16 MiB that shrank more than 200 times
 * (deflate's ceiling is ~1030:1, which only runs of identical bytes reach). Sizes are the ones the zip declares;
 * yauzl's `validateEntrySizes` makes a read fail if an entry inflates to more than it declared.
 */
const MAX_TOTAL_RATIO = 20;
const TOTAL_ALLOWANCE = 64 << 20;
const MAX_ENTRY_RATIO = 200;
const RATIO_CHECKED_FROM = 16 << 20;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** What an archive holds, in the user's words: the one safe zip reader serves scan bundles and slim projects. */
export type ArchiveKind = 'scan bundle' | 'slim project';

/**
 * List a zip (a scan bundle or a slim project), refusing unsafe or absurd archives — names that climb out, symbolic
 * links, more than `MAX_ENTRIES` entries, zip bombs, a name given twice — before anything is read from it.
 */
export async function openZipSource(path: string, label: string, kind: ArchiveKind = 'scan bundle'): Promise<BundleSource> {
  const archiveSize = (await stat(path)).size;
  let zip: yauzl.ZipFile;
  try {
    // decodeStrings: false so that we see names as written (backslashes included) and judge them ourselves.
    // yauzl is loaded when an archive is opened: most runs read a PDF or images.
    const { openPromise } = (await import('yauzl')).default;
    zip = await openPromise(path, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true });
  } catch (e) {
    throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is not a readable ${kind}: it is not a zip file, or it is damaged.`, describeError(e));
  }
  // An error after listing (closing the file) must not crash the process; reads report their own errors.
  zip.on('error', () => undefined);
  try {
    const entries = await listEntries(zip, label, kind, archiveSize);
    return zipSource(zip, label, kind, entries);
  } catch (e) {
    zip.close();
    throw e;
  }
}

async function listEntries(zip: yauzl.ZipFile, label: string, kind: ArchiveKind, archiveSize: number): Promise<Map<string, yauzl.Entry>> {
  if (zip.entryCount > MAX_ENTRIES) {
    throw new QuireError(
      ERROR_CODES.BUNDLE_TOO_LARGE,
      `${label} is not a ${kind} Quire will open: it holds ${zip.entryCount.toLocaleString('en')} entries, more than the ${MAX_ENTRIES.toLocaleString('en')} allowed.`,
    );
  }
  const files = new Map<string, yauzl.Entry>();
  const { getFileNameLowLevel } = (await import('yauzl')).default;
  let total = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const name = getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      checkEntry(label, kind, name, entry);
      total += entry.uncompressedSize;
      if (isDirectoryName(name)) continue;
      if (files.has(name)) {
        throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is not a readable ${kind}: it holds two entries named ${name}.`);
      }
      files.set(name, entry);
    }
  } catch (e) {
    if (e instanceof QuireError) throw e;
    throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is not a readable ${kind}: its list of contents is damaged.`, describeError(e));
  }
  if (total > MAX_TOTAL_RATIO * archiveSize + TOTAL_ALLOWANCE) {
    throw new QuireError(
      ERROR_CODES.BUNDLE_TOO_LARGE,
      `${label} is not a ${kind} Quire will open: it would unpack to ${formatBytes(total)} from ${formatBytes(archiveSize)}, which is what a zip bomb does.`,
    );
  }
  return files;
}

function checkEntry(label: string, kind: ArchiveKind, name: string, entry: yauzl.Entry): void {
  const unsafe = unsafeEntryReason(name, kind === 'scan bundle' ? 'the bundle' : `the ${kind}`);
  if (unsafe) throw new QuireError(ERROR_CODES.BUNDLE_UNSAFE_PATH, `${label} is not safe to open: its entry "${name}" ${unsafe}.`);
  // Unix mode bits live in the high half of the external attributes.
  if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
    throw new QuireError(ERROR_CODES.BUNDLE_UNSAFE_PATH, `${label} is not safe to open: its entry "${name}" is a symbolic link.`);
  }
  const size = entry.uncompressedSize;
  if (size > RATIO_CHECKED_FROM && size > MAX_ENTRY_RATIO * Math.max(1, entry.compressedSize)) {
    throw new QuireError(
      ERROR_CODES.BUNDLE_TOO_LARGE,
      `${label} is not a ${kind} Quire will open: its entry "${name}" would unpack to ${formatBytes(size)} from ${formatBytes(entry.compressedSize)}, which is what a zip bomb does.`,
    );
  }
}

function zipSource(zip: yauzl.ZipFile, label: string, kind: ArchiveKind, entries: Map<string, yauzl.Entry>): BundleSource {
  const files = new Map([...entries].map(([name, entry]) => [name, entry.uncompressedSize] as const));
  const open = async (name: string): Promise<Readable> => {
    const entry = entries.get(name);
    if (!entry) throw new Error(`no entry ${name}`);
    if (!zip.isOpen) throw new Error(`${label} was closed before ${name} was read`);
    if (entry.isEncrypted()) {
      throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is not a readable ${kind}: its entry ${name} is password-protected.`);
    }
    if (!entry.canDecodeFileData()) {
      throw new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is not a readable ${kind}: its entry ${name} uses a compression method Quire cannot read.`);
    }
    return zip.openReadStreamPromise(entry);
  };
  const damaged = (name: string, e: unknown) =>
    e instanceof QuireError ? e : new QuireError(ERROR_CODES.BAD_ARCHIVE, `${label} is damaged: its entry ${name} cannot be read.`, describeError(e));
  return {
    label,
    files,
    async read(name) {
      try {
        return await readAll(await open(name));
      } catch (e) {
        throw damaged(name, e);
      }
    },
    async readHead(name, length) {
      try {
        return await readFirst(await open(name), length);
      } catch (e) {
        throw damaged(name, e);
      }
    },
    async close() {
      zip.close();
    },
  };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function readFirst(stream: Readable, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let got = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    got += (chunk as Buffer).length;
    if (got >= length) break; // leaving the loop destroys the stream: the rest is never inflated
  }
  return Buffer.concat(chunks).subarray(0, length);
}
