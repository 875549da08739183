/**
 * What a killed run leaves behind (`kill -9`, a power cut): working folders in the temporary folder and staged
 * outputs in an output folder, each named after the process that made it. They are removed by the next run once
 * that process is gone.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

/** `quire-project-<pid>-XXXXXX`, `quire-input-<pid>-XXXXXX`: working folders, made by `mkdtemp`. */
const WORK_FOLDER = /^quire-[a-z]+-(\d+)-[A-Za-z0-9]{6}$/;

/** True when no process has this id any more (a process of another user counts as alive). */
export function processIsGone(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The prefix of a working folder made by this process: its id in the name says whose it is. */
export function workFolderPrefix(kind: 'project' | 'input'): string {
  return join(tmpdir(), `quire-${kind}-${process.pid}-`);
}

/**
 * Remove the entries of `folder` whose name matches `pattern` (its first group the process id), that belong to
 * this user, whose process is gone and that were last changed at least `minAgeMs` ago. Returns the paths removed.
 * Nothing here throws: a leftover that cannot be removed stays for the next run.
 */
export async function removeLeftovers(folder: string, pattern: RegExp, minAgeMs = 0): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return [];
  }
  const removed: string[] = [];
  const uid = process.getuid?.();
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m || Number(m[1]) === process.pid || !processIsGone(Number(m[1]))) continue;
    const path = join(folder, name);
    try {
      const info = await stat(path);
      if ((uid !== undefined && info.uid !== uid) || Date.now() - info.mtimeMs < minAgeMs) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Someone else's, or going away under us: not ours to fight over.
    }
  }
  return removed;
}

/** Remove the working folders that runs killed before they could clean up left in the temporary folder. */
export function removeStaleWorkFolders(folder: string = tmpdir()): Promise<string[]> {
  return removeLeftovers(folder, WORK_FOLDER);
}
