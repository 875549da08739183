/** Where plugins live under the app data directory. */
import { join } from 'node:path';
import { appDataDir } from '../project/paths.js';

/** The places of one plugin and the shared ones. */
export interface PluginPaths {
  appData: string;
  /** `<APP_DATA>/plugins/destinations` */
  destinationsDir: string;
  /** `<APP_DATA>/plugins/destinations/<slug>`: its code. */
  codeDir: string;
  /** `<APP_DATA>/plugins/data/<slug>` */
  dataDir: string;
  /** `<APP_DATA>/plugins/data/<slug>/config.db`: its settings. */
  configDb: string;
  /** `<APP_DATA>/plugins/data/<slug>/files`: its scratch space, the only place it may write. */
  filesDir: string;
  /** `<APP_DATA>/.env`: the headless plaintext secret store. */
  envFile: string;
}

/** `<APP_DATA>/plugins/destinations`. */
export function destinationsDir(appData: string = appDataDir()): string {
  return join(appData, 'plugins', 'destinations');
}

/** The paths of plugin `slug` (the slug must already be checked). */
export function pluginPaths(slug: string, appData: string = appDataDir()): PluginPaths {
  const dataDir = join(appData, 'plugins', 'data', slug);
  return {
    appData,
    destinationsDir: destinationsDir(appData),
    codeDir: join(destinationsDir(appData), slug),
    dataDir,
    configDb: join(dataDir, 'config.db'),
    filesDir: join(dataDir, 'files'),
    envFile: join(appData, '.env'),
  };
}
