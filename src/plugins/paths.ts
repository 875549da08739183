/** Where plugins live under the app data directory. */
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
