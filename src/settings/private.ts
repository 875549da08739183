/**
 * Files that hold a setting or a secret are mode 0600 in a folder of mode 0700, on every write:
 * created that way, and put right when an older Quire (or a copy by hand) left them readable.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Create `dir` (and its parents) and make `dir` itself 0700. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch {
    // not ours to change (another user's folder): the files themselves are still 0600
  }
}

/** Make an existing file 0600; create it empty with that mode when `create` and it is missing. */
export function ensurePrivateFile(path: string, create = false): void {
  if (!existsSync(path)) {
    if (!create) return;
    ensurePrivateDir(dirname(path));
    closeSync(openSync(path, 'a', 0o600));
  }
  chmodSync(path, 0o600);
}

/**
 * Write `content` to `path` through a temporary file created with mode 0600, then renamed, so the
 * file is never readable by others, not even for a moment; its folder is made 0700 unless
 * `privateFolder` is false (a file the user asked for, in a folder of the user's choosing).
 */
export function writePrivateFile(path: string, content: string | Uint8Array, { privateFolder = true }: { privateFolder?: boolean } = {}): void {
  if (privateFolder) ensurePrivateDir(dirname(path));
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
