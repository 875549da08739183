/**
 * Trust for page plugins (processors and OCR engines): a plugin runs only once the user has accepted it, and
 * acceptance is of its files as they are — their sha256, recorded in `<APP_DATA>/plugins/data/<slug>/accepted.json`
 * (mode 0600). A plugin whose files changed since is not run until it is accepted again (`quire plugins accept`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { writePrivateFile } from '../settings/index.js';
import { pluginPaths } from './paths.js';

/** Every path under `dir`, relative with `/`, sorted: regular files only (the checks refuse anything else first). */
export function pluginFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return files.sort();
}

/** The sha256 of the file at `path` (relative, with `/`) in the plugin folder `dir`. */
export function fileSha256(dir: string, path: string): string {
  return createHash('sha256')
    .update(readFileSync(join(dir, ...path.split('/'))))
    .digest('hex');
}

/** The sha256 of a plugin folder: of every file's path and sha256, in path order. */
export function pluginDigest(dir: string): string {
  return listingDigest(pluginFiles(dir).map((path) => ({ path, sha256: fileSha256(dir, path) })));
}

/**
 * The same sha256 from a list of files and their own sha256 (a registry entry's): what acceptance will record for
 * the plugin once installed, known before any of it is fetched.
 */
export function listingDigest(files: ReadonlyArray<{ path: string; sha256: string }>): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
    hash.update(file.path).update('\0').update(file.sha256).update('\n');
  return hash.digest('hex');
}

export interface Acceptance {
  slug: string;
  sha256: string;
  accepted: string;
}

function acceptancePath(slug: string, appData: string): string {
  return join(pluginPaths(slug, appData).dataDir, 'accepted.json');
}

/** What the user accepted of this plugin, if anything. */
export function acceptanceOf(slug: string, appData: string): Acceptance | undefined {
  const path = acceptancePath(slug, appData);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Acceptance;
  } catch {
    return undefined;
  }
}

/** Record that the user accepts the plugin in `dir` as its files are now; returns the recorded sha256. */
export function recordAcceptance(slug: string, dir: string, appData: string, now: Date = new Date()): string {
  const sha256 = pluginDigest(dir);
  writePrivateFile(acceptancePath(slug, appData), `${JSON.stringify({ slug, sha256, accepted: now.toISOString() } satisfies Acceptance, null, 2)}\n`);
  return sha256;
}

/** Whether the plugin in `dir` is accepted as it is: `never` accepted, `changed` since, or `accepted`. */
export function trustOf(slug: string, dir: string, appData: string): { state: 'accepted' | 'never' | 'changed'; sha256: string } {
  const sha256 = pluginDigest(dir);
  const accepted = acceptanceOf(slug, appData);
  if (!accepted) return { state: 'never', sha256 };
  return { state: accepted.sha256 === sha256 ? 'accepted' : 'changed', sha256 };
}
