/** Where plugins live under the app data directory. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { appDataDir } from '../project/index.js';
import { settingsPaths, type SettingsPaths } from '../settings/index.js';

/** The places of one plugin and the shared ones (its settings and secret files: {@link SettingsPaths}). */
export interface PluginPaths extends SettingsPaths {
  /** `<APP_DATA>/plugins/destinations` */
  destinationsDir: string;
  /** `<APP_DATA>/plugins/destinations/<slug>`: its code. */
  codeDir: string;
  /** `<APP_DATA>/plugins/data/<slug>/files`: its scratch space, the only place it may write. */
  filesDir: string;
}

/** `<APP_DATA>/plugins/destinations`. */
export function destinationsDir(appData: string = appDataDir()): string {
  return join(appData, 'plugins', 'destinations');
}

/** The paths of plugin `slug` (the slug must already be checked). */
export function pluginPaths(slug: string, appData: string = appDataDir()): PluginPaths {
  const stored = settingsPaths(slug, appData);
  return {
    ...stored,
    destinationsDir: destinationsDir(appData),
    codeDir: join(destinationsDir(appData), slug),
    filesDir: join(stored.dataDir, 'files'),
  };
}

/** Where plugins of a kind live: `plugins/destinations`, `plugins/processors`, `plugins/ocr`. */
export function kindDir(kind: 'destination' | 'processor' | 'ocr', appData: string = appDataDir()): string {
  return kind === 'destination' ? destinationsDir(appData) : join(appData, 'plugins', kind === 'processor' ? 'processors' : 'ocr');
}

/** The installed plugins' folders under `root` (a kind's folder), by name; a link to a folder elsewhere is listed too, and refused by the checks. */
export function installedFolders(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => (d.isDirectory() || d.isSymbolicLink()) && !d.name.startsWith('.'))
    .map((d) => d.name)
    .sort();
}

/** The folder of plugin `slug` under `root` (a kind's folder) when one is installed; a link to a folder elsewhere is found, and refused by the checks. */
export function installedFolder(root: string, slug: string): string | undefined {
  const dir = join(root, slug);
  if (!/^[a-z0-9-]+$/.test(slug) || !existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
  return dir;
}
