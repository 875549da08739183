/** Where one plugin's (or the remote OCR engine's) settings and secrets are kept under the app data directory. */
import { join } from 'node:path';
import { appDataDir } from '../project/index.js';

/**
 * A slug: lower-case words joined by single hyphens (`send-to-library`). It names the plugin's
 * directory, settings and keychain namespace (and its `.env` names, so it never holds `_`).
 */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The settings and secret files of one slug. */
export interface SettingsPaths {
  appData: string;
  /** `<APP_DATA>/plugins/data/<slug>` */
  dataDir: string;
  /** `<APP_DATA>/plugins/data/<slug>/config.db`: its settings. */
  configDb: string;
  /** `<APP_DATA>/.env`: the headless plaintext secret store. */
  envFile: string;
}

/** The settings paths of `slug` (the slug must already be checked). */
export function settingsPaths(slug: string, appData: string = appDataDir()): SettingsPaths {
  const dataDir = join(appData, 'plugins', 'data', slug);
  return { appData, dataDir, configDb: join(dataDir, 'config.db'), envFile: join(appData, '.env') };
}
