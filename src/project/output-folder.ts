/**
 * The output folder, treated with care: checked before any work (created, written to, names as long as the
 * longest output tried, enough free space), and written as a transaction — every file of a document goes to a
 * staging folder inside it first and is renamed into place only when all of them are written; an earlier file of
 * the same name is replaced then, and put back if the move fails half-way.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, link, lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ERROR_CODES, QuireError } from '../errors.js';
import { formatBytes } from '../util/index.js';
import { errnoOf, fileSystemError, freeBytes } from './file-errors.js';
import { removeLeftovers } from './leftovers.js';

/** `.quire-<pid>-<8 hex>`: a staging folder in an output folder, named after the process writing it. */
const STAGING = /^\.quire-(\d+)-[0-9a-f]{8}$/;
/**
 * An output folder may be shared (a network drive) with runs on other machines, whose process ids mean nothing
 * here: a staging folder is taken for a leftover only when it has not changed for this long.
 */
const STAGING_STALE_MS = 60 * 60 * 1000;

/**
 * Bytes an output's name grows by while it is written: exporters write `.<name>.<pid>.<8 hex>.tmp` beside it and
 * rename that (see `tempPathBeside`).
 */
export const TEMP_NAME_OVERHEAD = 24;

export interface OutputFolderCheck {
  /** The folder, absolute. */
  dir: string;
  /** The longest output name, in bytes, that the folder's file system takes (at least the longest asked for, when that fits). */
  maxNameBytes: number;
  /** Free bytes there, when the system says. */
  free?: number;
}

function stagingName(): string {
  return `.quire-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * Check, before any work, that `dir` can take outputs whose longest name is `longestName` bytes and which need
 * about `needed` bytes: the folder is created when missing, a staging folder and a file with a name that long are
 * written there and removed, and the free space is compared with `needed`. A name too long for the file system is
 * not an error here: `maxNameBytes` says how long a name may be, and the caller shortens its names. Staging
 * folders that killed runs left in `dir` are removed. Throws one sentence naming the reason otherwise.
 */
export async function checkOutputFolder(dir: string, options: { longestName?: number; needed?: number } = {}): Promise<OutputFolderCheck> {
  const folder = resolve(dir);
  await makeFolder(folder);
  await removeLeftovers(folder, STAGING, STAGING_STALE_MS);
  // Space first: "not enough space, this much needed" says more than a probe that failed to write.
  const free = await freeBytes(folder);
  if (options.needed !== undefined && free !== undefined && free < options.needed) {
    throw new QuireError(
      ERROR_CODES.OUTPUT,
      `Not enough space in ${folder}: ${formatBytes(free)} free, about ${formatBytes(options.needed)} needed.`,
      `statfs free ${free} bytes, estimate ${options.needed} bytes`,
    );
  }
  const staging = join(folder, stagingName());
  const failed = async (e: unknown): Promise<QuireError> =>
    fileSystemError(e, folder, { action: 'write', ...(options.needed ? { needed: options.needed } : {}) });
  try {
    await mkdir(staging);
  } catch (e) {
    throw await failed(e);
  }
  try {
    const wanted = Math.max(1, options.longestName ?? 0) + TEMP_NAME_OVERHEAD;
    const fits = (bytes: number): Promise<boolean> => probeName(staging, bytes, failed);
    let maxNameBytes = wanted - TEMP_NAME_OVERHEAD;
    if (!(await fits(wanted))) {
      maxNameBytes = (await longestNameThatFits(fits, wanted)) - TEMP_NAME_OVERHEAD;
      if (maxNameBytes < 16) {
        throw new QuireError(
          ERROR_CODES.OUTPUT,
          `Could not write ${folder}: the name is too long for the file system.`,
          `longest name that fits: ${maxNameBytes + TEMP_NAME_OVERHEAD} bytes`,
        );
      }
    }
    return { dir: folder, maxNameBytes, ...(free !== undefined ? { free } : {}) };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** `mkdir -p`, failing with the real reason: Node's recursive mkdir reports a read-only parent as a missing one. */
export async function makeFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (e) {
    let reason = e;
    if (errnoOf(e) === 'ENOENT') {
      let missing = folder;
      while (
        dirname(missing) !== missing &&
        !(await lstat(dirname(missing)).then(
          () => true,
          () => false,
        ))
      )
        missing = dirname(missing);
      reason = await mkdir(missing).then(
        () => e,
        (again: unknown) => again,
      );
    }
    throw await fileSystemError(reason, folder, { action: 'create-folder' });
  }
}

/** Write a small file named with `bytes` bytes in `folder`; false when the name is too long, throws on any other failure. */
async function probeName(folder: string, bytes: number, failed: (e: unknown) => Promise<QuireError>): Promise<boolean> {
  const path = join(folder, '.'.padEnd(bytes, 'q'));
  try {
    await writeFile(path, 'quire');
    await rm(path, { force: true });
    return true;
  } catch (e) {
    if (errnoOf(e) === 'ENAMETOOLONG') return false;
    throw await failed(e);
  }
}

/** The longest name under `tooLong` bytes that fits, found by halving. */
async function longestNameThatFits(fits: (bytes: number) => Promise<boolean>, tooLong: number): Promise<number> {
  let good = 0;
  let bad = tooLong;
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (await fits(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

/** Outputs being written: each to a staging path, all moved into place together, or none. */
export interface StagedOutputs {
  /** Where to write the file that is to become `finalPath` (a file directly in the output folder). */
  pathFor(finalPath: string): string;
  /**
   * Move every staged file into place. A folder standing where a file goes is found before anything moves; a move
   * that fails half-way puts back the files already replaced and removes the new ones, and throws the reason.
   */
  commit(): Promise<void>;
  /** Forget the staged files (on failure or cancellation); earlier outputs are untouched. */
  discard(): Promise<void>;
}

/** Start writing outputs into `outDir` (which must exist): a staging folder of this process is made inside it. */
export async function stageOutputs(outDir: string): Promise<StagedOutputs> {
  const folder = resolve(outDir);
  const staging = join(folder, stagingName());
  try {
    await mkdir(staging);
  } catch (e) {
    throw await fileSystemError(e, folder, { action: 'write' });
  }
  const files: Array<{ staged: string; final: string }> = [];
  return {
    pathFor(finalPath) {
      const final = resolve(finalPath);
      const staged = join(staging, basename(final));
      files.push({ staged, final });
      return staged;
    },
    async commit() {
      try {
        for (const { final } of files) {
          const existing = await lstat(final).catch(() => undefined);
          if (existing?.isDirectory()) throw new QuireError(ERROR_CODES.OUTPUT, `Could not write ${final}: a folder has that name.`);
        }
        await moveAll(files, staging);
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },
    async discard() {
      await rm(staging, { recursive: true, force: true });
    },
  };
}

async function moveAll(files: Array<{ staged: string; final: string }>, staging: string): Promise<void> {
  const placed: Array<{ final: string; previous?: string }> = [];
  let current = '';
  try {
    for (const [i, { staged, final }] of files.entries()) {
      current = final;
      let previous: string | undefined;
      if (await lstat(final).catch(() => undefined)) {
        // Keep the earlier file until every new one is in place: a hard link costs nothing, a copy where links are not supported.
        previous = join(staging, `.previous-${i}`);
        await link(final, previous).catch(() => copyFile(final, previous as string));
      }
      await rename(staged, final);
      placed.push({ final, ...(previous ? { previous } : {}) });
    }
  } catch (e) {
    for (const { final, previous } of placed.reverse()) {
      await (previous ? rename(previous, final) : rm(final, { force: true })).catch(() => undefined);
    }
    throw await fileSystemError(e, current, { action: 'write' });
  }
}
