/** The one options object every plugin host function takes; defaults destructured in one place. */
import { resolveSettingsOptions, type ResolvedSettingsOptions, type SettingsOptions } from '../settings/index.js';
import { findBwrap } from './isolation.js';

/** How the host runs. Every member is optional; where settings and secrets are kept is {@link SettingsOptions}. */
export interface PluginHostOptions extends SettingsOptions {
  /** Kill a plugin process after this many ms: describing it, checking it, sending one file. */
  timeouts?: { describe?: number; check?: number; send?: number };
  /**
   * Receives each line a plugin logs, and the detail of each check and send. Default: with
   * `QUIRE_DEBUG` set, standard error (`  [slug] line`); else nowhere.
   */
  onLog?: (slug: string, line: string) => void;
  /**
   * The bubblewrap program that isolates plugin processes, or `null` to run without it (as where
   * it is missing). Default: `QUIRE_BWRAP` (`none` for without), else `bwrap` on the PATH.
   */
  bwrap?: string | null;
  /**
   * Where plugins cannot be isolated, run (and install) plugins that are not first-party anyway:
   * `quire plugins install --allow-unisolated`.
   */
  allowUnisolated?: boolean;
  /** Told each time a page plugin's sandboxed process is started to read what it says about itself (tests count them). */
  onDescribeStart?: (slug: string) => void;
}

/** The options with every default filled in. */
export interface ResolvedHostOptions extends ResolvedSettingsOptions {
  timeouts: { describe: number; check: number; send: number };
  onLog: (slug: string, line: string) => void;
  bwrap: string | null;
  allowUnisolated: boolean;
  onDescribeStart: (slug: string) => void;
}

/** Where a plugin's lines go when nobody asked: standard error, with `QUIRE_DEBUG` only. */
function debugLog(slug: string, line: string): void {
  if (process.env.QUIRE_DEBUG) process.stderr.write(`  [${slug}] ${line}\n`);
}

/** Fill in the defaults. The OS keychain is only touched when a secret is read or written. */
export function resolveHostOptions(options: PluginHostOptions = {}): ResolvedHostOptions {
  const { timeouts = {}, onLog = debugLog, allowUnisolated = false } = options;
  return {
    ...resolveSettingsOptions(options),
    timeouts: { describe: timeouts.describe ?? 15_000, check: timeouts.check ?? 90_000, send: timeouts.send ?? 30 * 60_000 },
    onLog,
    bwrap: options.bwrap === undefined ? findBwrap() : options.bwrap,
    allowUnisolated,
    onDescribeStart: options.onDescribeStart ?? (() => {}),
  };
}
