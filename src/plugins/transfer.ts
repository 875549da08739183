/**
 * Moving a destination's configuration between machines: a JSON bundle that names its plugin and
 * holds its settings, and its secrets only when asked, as readable text in a file of mode 0600.
 * Plaintext-fallback rows (secrets kept in `config.db`) never ride out as settings: the bundle's
 * settings come from the hidden-row-free view a settings form reads.
 */
import { readFileSync } from 'node:fs';
import { parseFieldValue, type FieldValue } from '../plugin-api/index.js';
import { applySettings, configField, secretField, secretsOf, storedSettings, writePrivateFile } from '../settings/index.js';
import { PLUGIN_ERRORS, pluginError } from './errors.js';
import { resolveHostOptions, type PluginHostOptions } from './options.js';
import type { DestinationDescriptor } from './sandbox/protocol.js';

export const BUNDLE_FORMAT = 'quire-plugin-settings';

/** The file `quire plugins config <slug> --export` writes. */
export interface SettingsBundle {
  format: typeof BUNDLE_FORMAT;
  version: 1;
  /** The slug of the plugin these settings belong to. */
  plugin: string;
  exported: string;
  settings: Record<string, FieldValue>;
  /** Present only when exported with secrets. */
  secrets?: Record<string, string>;
}

/** What an export did, for the warning. */
export interface ExportReport {
  path: string;
  settings: number;
  /** Secrets written into the file (their values could be read). */
  secretsWritten: string[];
  /** Listed secrets whose value could not be read, and why. */
  secretsUnreadable: Array<{ id: string; reason: string }>;
  /** Listed secrets with no value anywhere. */
  secretsNotSet: string[];
}

/** Write the bundle of `descriptor`'s plugin to `path` (mode 0600); secrets only when `withSecrets`. */
export function exportSettings(descriptor: DestinationDescriptor, path: string, withSecrets: boolean, options: PluginHostOptions = {}): ExportReport {
  const host = resolveHostOptions(options);
  const stored = storedSettings(descriptor.name, host);
  const settings: Record<string, FieldValue> = {};
  for (const [key, text] of Object.entries(stored)) {
    const field = descriptor.configFields.find((f) => f.id === key);
    if (!field) continue; // a row the plugin no longer declares
    try {
      settings[key] = parseFieldValue(field, text);
    } catch {
      settings[key] = text;
    }
  }
  const report: ExportReport = { path, settings: Object.keys(settings).length, secretsWritten: [], secretsUnreadable: [], secretsNotSet: [] };
  const bundle: SettingsBundle = { format: BUNDLE_FORMAT, version: 1, plugin: descriptor.name, exported: new Date().toISOString(), settings };
  if (withSecrets) {
    const secrets = secretsOf(descriptor.name, host);
    const values: Record<string, string> = {};
    for (const field of descriptor.secretFields) {
      const read = secrets.read(field.id);
      if (read.value !== undefined) {
        values[field.id] = read.value;
        report.secretsWritten.push(field.id);
      } else if (read.unreachable) report.secretsUnreadable.push({ id: field.id, reason: read.unreachable });
      else report.secretsNotSet.push(field.id);
    }
    bundle.secrets = values;
  }
  // Written 0600 from its first byte (an existing file is replaced, not rewritten in its old mode).
  writePrivateFile(path, `${JSON.stringify(bundle, null, 2)}\n`, { privateFolder: false });
  return report;
}

/**
 * What an export with secrets must tell the person, the same words wherever it was asked for (the
 * CLI prints them, the web app shows them beside its download): which secrets are in the file as
 * readable text, which could not be read, which are not set.
 */
export function exportWarnings(report: ExportReport): string[] {
  const lines: string[] = [];
  const n = report.secretsWritten.length;
  if (n > 0)
    lines.push(
      `Warning: ${n} secret${n === 1 ? ' is' : 's are'} in that file as readable text (${report.secretsWritten.join(', ')}); keep it private and delete it once imported.`,
    );
  else lines.push('No secret could be written: none has a value.');
  for (const u of report.secretsUnreadable) lines.push(`Warning: the secret ${u.id} could not be read and is NOT in the file: ${u.reason}.`);
  if (report.secretsNotSet.length > 0) lines.push(`Not set, so not in the file: ${report.secretsNotSet.join(', ')}.`);
  return lines;
}

/** Read and check a bundle file; usage errors for anything else. */
export function readBundle(path: string): SettingsBundle {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw pluginError(PLUGIN_ERRORS.BAD_SETTING, `${path} is not a settings file Quire wrote.`, e instanceof Error ? e.message : String(e));
  }
  const b = raw as Partial<SettingsBundle> | null;
  if (!b || b.format !== BUNDLE_FORMAT || b.version !== 1 || typeof b.plugin !== 'string' || typeof b.settings !== 'object' || b.settings === null) {
    throw pluginError(PLUGIN_ERRORS.BAD_SETTING, `${path} is not a settings file Quire wrote.`);
  }
  if (b.secrets !== undefined && (typeof b.secrets !== 'object' || b.secrets === null || Object.values(b.secrets).some((v) => typeof v !== 'string'))) {
    throw pluginError(PLUGIN_ERRORS.BAD_SETTING, `${path} holds secrets Quire cannot read.`);
  }
  return b as SettingsBundle;
}

/** What an import did. */
export interface ImportReport {
  settings: string[];
  secrets: string[];
  /** Where the secrets went. */
  secretStore?: string;
}

/**
 * Apply a bundle to `descriptor`'s plugin. A bundle naming another plugin is refused; every
 * setting and secret is checked against the plugin's fields before anything is written.
 */
export function importSettings(descriptor: DestinationDescriptor, path: string, options: PluginHostOptions = {}): ImportReport {
  const host = resolveHostOptions(options);
  const bundle = readBundle(path);
  if (bundle.plugin !== descriptor.name) {
    throw pluginError(
      PLUGIN_ERRORS.BAD_SETTING,
      `${path} holds the settings of ${bundle.plugin}, not of ${descriptor.name}; import it with quire plugins config ${bundle.plugin} --import.`,
    );
  }
  const pairs = Object.entries(bundle.settings).map(([key, value]) => {
    configField(descriptor, key); // refuses unknown keys and secrets smuggled in as settings
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw pluginError(PLUGIN_ERRORS.BAD_SETTING, `${path}: the setting ${key} is not a text, number or yes/no.`);
    }
    return [key, String(value)] as const;
  });
  const secrets = Object.entries(bundle.secrets ?? {});
  for (const [key] of secrets) secretField(descriptor, key);
  applySettings(descriptor, pairs, host);
  const store = secretsOf(descriptor.name, host);
  for (const [key, value] of secrets) if (value !== '') store.set(key, value);
  return {
    settings: pairs.map(([k]) => k),
    secrets: secrets.filter(([, v]) => v !== '').map(([k]) => k),
    ...(secrets.length > 0 ? { secretStore: store.store } : {}),
  };
}
