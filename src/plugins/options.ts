/** The one options object every plugin host function takes; defaults destructured in one place. */
import { appDataDir } from '../project/paths.js';
import { osKeychain, type Keychain } from './secrets.js';

/** How the host runs. Every member is optional. */
export interface PluginHostOptions {
  /** `<APP_DATA>`; default {@link appDataDir} (`QUIRE_HOME` overrides). */
  appData?: string;
  /** The OS keychain; `null` for none. Default the real one. */
  keychain?: Keychain | null;
  /** Write secrets to `<APP_DATA>/.env` (every CLI command does). */
  plaintextSecrets?: boolean;
  /** Kill a plugin process after this many ms: describing it, checking it, sending one file. */
  timeouts?: { describe?: number; check?: number; send?: number };
  /** Receives each line a plugin logs. */
  onLog?: (slug: string, line: string) => void;
}

/** The options with every default filled in. */
export interface ResolvedHostOptions {
  appData: string;
  keychain: Keychain | null;
  plaintextSecrets: boolean;
  timeouts: { describe: number; check: number; send: number };
  onLog: (slug: string, line: string) => void;
}

/** Fill in the defaults. The OS keychain is only touched when a secret is read or written. */
export function resolveHostOptions(options: PluginHostOptions = {}): ResolvedHostOptions {
  const { appData = appDataDir(), plaintextSecrets = false, timeouts = {}, onLog = (): void => undefined } = options;
  return {
    appData,
    keychain: options.keychain === undefined ? osKeychain() : options.keychain,
    plaintextSecrets,
    timeouts: { describe: timeouts.describe ?? 20_000, check: timeouts.check ?? 90_000, send: timeouts.send ?? 30 * 60_000 },
    onLog,
  };
}
