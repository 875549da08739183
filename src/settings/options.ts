/** Where settings and secrets are kept on this run: the part of the host options the store reads. */
import { appDataDir } from '../project/index.js';
import { osKeychain, type Keychain } from './secrets.js';

/** How settings and secrets are stored. Every member is optional. */
export interface SettingsOptions {
  /** `<APP_DATA>`; default {@link appDataDir} (`QUIRE_HOME` overrides). */
  appData?: string;
  /** The OS keychain; `null` for none. Default the real one. */
  keychain?: Keychain | null;
  /** Write secrets to `<APP_DATA>/.env` (every CLI command does). */
  plaintextSecrets?: boolean;
}

/** The options with every default filled in. */
export interface ResolvedSettingsOptions {
  appData: string;
  keychain: Keychain | null;
  plaintextSecrets: boolean;
}

/** Fill in the defaults. The OS keychain is only touched when a secret is read or written. */
export function resolveSettingsOptions(options: SettingsOptions = {}): ResolvedSettingsOptions {
  const { appData = appDataDir(), plaintextSecrets = false } = options;
  return { appData, keychain: options.keychain === undefined ? osKeychain() : options.keychain, plaintextSecrets };
}
