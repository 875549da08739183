/**
 * What `install` records beside a plugin's data (`<APP_DATA>/plugins/data/<slug>/install.json`,
 * mode 0600): where it came from, whether its registry calls it first-party, whether the user let
 * it run without isolation, and the secrets it declares (so `remove` finds them without running it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from '../settings/index.js';
import { pluginPaths } from './paths.js';

export interface InstallRecord {
  slug: string;
  version: string;
  first_party: boolean;
  source: string;
  installed: string;
  /** Installed with `--allow-unisolated`: it may run where plugins cannot be isolated. */
  allow_unisolated?: boolean;
  /** The ids of its secret fields when it was installed. */
  secrets?: string[];
}

/** The install record of a plugin, when it was installed by `install`. */
export function installRecord(slug: string, appData: string): InstallRecord | undefined {
  const path = join(pluginPaths(slug, appData).dataDir, 'install.json');
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as InstallRecord;
  } catch {
    return undefined;
  }
}

/** Write the record (its folder 0700, the file 0600, like every file of a plugin's data). */
export function writeInstallRecord(record: InstallRecord, appData: string): void {
  writePrivateFile(join(pluginPaths(record.slug, appData).dataDir, 'install.json'), `${JSON.stringify(record, null, 2)}\n`);
}
