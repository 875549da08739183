/** The one options object every plugin host function takes; defaults destructured in one place. */
import { resolveSettingsOptions, type ResolvedSettingsOptions, type SettingsOptions } from '../settings/index.js';

/** How the host runs. Every member is optional; where settings and secrets are kept is {@link SettingsOptions}. */
export interface PluginHostOptions extends SettingsOptions {
  /** Kill a plugin process after this many ms: describing it, checking it, sending one file. */
  timeouts?: { describe?: number; check?: number; send?: number };
  /** Receives each line a plugin logs. */
  onLog?: (slug: string, line: string) => void;
}

/** The options with every default filled in. */
export interface ResolvedHostOptions extends ResolvedSettingsOptions {
  timeouts: { describe: number; check: number; send: number };
  onLog: (slug: string, line: string) => void;
}

/** Fill in the defaults. The OS keychain is only touched when a secret is read or written. */
export function resolveHostOptions(options: PluginHostOptions = {}): ResolvedHostOptions {
  const { timeouts = {}, onLog = (): void => undefined } = options;
  return {
    ...resolveSettingsOptions(options),
    timeouts: { describe: timeouts.describe ?? 20_000, check: timeouts.check ?? 90_000, send: timeouts.send ?? 30 * 60_000 },
    onLog,
  };
}
