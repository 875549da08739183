/**
 * What went wrong with a file, in one sentence a person can act on. The operating system says `EROFS` or `ENOSPC`;
 * the user reads "the file system is read-only" or "no space is left on the device (12.0 KiB free, about 3.0 MiB
 * needed)". The CLI, the job server and the web app all word file-system failures through here.
 */
import { lstat, statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { describeError, ERROR_CODES, isQuireError, QuireError } from '../errors.js';
import { formatBytes } from '../util/index.js';

/** What was being done to the file: it decides how the sentence begins. */
export type FileAction = 'write' | 'create-folder' | 'read' | 'remove';

export interface FileErrorOptions {
  action?: FileAction;
  /** Bytes the work was expected to need: said beside the free space when the device is full. */
  needed?: number;
  /** How the user knows the path, when it is not the path itself (an output written under a temporary name). */
  label?: string;
}

/** The errno code of a Node error (`EACCES`), if it has one. */
export function errnoOf(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/** Bytes free for this user on the file system that holds `path` (or its nearest existing folder). */
export async function freeBytes(path: string): Promise<number | undefined> {
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      const s = await statfs(p);
      return s.bavail * s.bsize;
    } catch {
      if (dirname(p) === p) return undefined;
    }
  }
}

/**
 * A file-system failure as a `QuireError` (code `output`) whose message names the path and the reason: permission
 * denied, read-only file system, no space left (with the free space and, when known, what was needed), name too
 * long, a file where a folder should be, a folder where a file should be. The OS's own words go to `detail`.
 * A `QuireError` is returned unchanged.
 */
export async function fileSystemError(e: unknown, path: string, options: FileErrorOptions = {}): Promise<QuireError> {
  if (isQuireError(e)) return e;
  const shown = options.label ?? path;
  const action = options.action ?? 'write';
  const opening =
    action === 'create-folder'
      ? `Could not create the folder ${shown}`
      : action === 'read'
        ? `Could not read ${shown}`
        : action === 'remove'
          ? `Could not remove ${shown}`
          : `Could not write ${shown}`;
  return new QuireError(ERROR_CODES.OUTPUT, `${opening}: ${await reasonOf(e, path, options)}.`, describeError(e));
}

async function reasonOf(e: unknown, path: string, options: FileErrorOptions): Promise<string> {
  switch (errnoOf(e)) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC': {
      const free = await freeBytes(path);
      const figures = [
        free === undefined ? undefined : `${formatBytes(free)} free`,
        options.needed ? `about ${formatBytes(options.needed)} needed` : undefined,
      ].filter(Boolean);
      return `no space is left on the device${figures.length > 0 ? ` (${figures.join(', ')})` : ''}`;
    }
    case 'EDQUOT':
      return 'your disk quota is used up';
    case 'ENAMETOOLONG':
      return 'the name is too long for the file system';
    case 'EEXIST':
    case 'ENOTDIR': {
      const file = await fileInTheWay(path);
      return file ? `${file} is a file, not a folder` : 'a file is in the way';
    }
    case 'EISDIR':
      return 'a folder has that name';
    case 'ENOENT':
      return 'a folder on the way does not exist';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many files are open';
    case 'EIO':
      return 'the device reported an input/output error';
    default: {
      const message = e instanceof Error ? e.message.replace(/^E[A-Z]+: /, '').replace(/,.*$/, '') : String(e);
      return message || 'the operating system refused';
    }
  }
}

/** The nearest ancestor of `path` (or `path` itself) that exists and is not a folder. */
async function fileInTheWay(path: string): Promise<string | undefined> {
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      return (await lstat(p)).isDirectory() ? undefined : p;
    } catch {
      if (dirname(p) === p) return undefined;
    }
  }
}
