/**
 * Reading and changing a destination's (or the remote OCR engine's) settings and secrets, and
 * whether it is ready: what `quire plugins config`, `quire config` and `quire list destinations` show.
 */
import { existsSync } from 'node:fs';
import { ERROR_CODES, QuireError } from '../errors.js';
import { missingFieldLabels, parseFieldValue, type Field, type FieldValue } from '../plugin-api/index.js';
import { resolveSettingsOptions, type SettingsOptions } from './options.js';
import { settingsPaths } from './paths.js';
import { PluginSecrets } from './secrets.js';
import { PluginSettings, typedSettings } from './settings.js';

/** What the settings helpers read of a destination's descriptor: its slug and its declared fields. */
export interface SettingsDescriptor {
  /** The slug the settings and secrets are filed under. */
  name: string;
  configFields: readonly Field[];
  secretFields: readonly Field[];
  /** How the user names a setting in messages, before its id: `remoteocr.` for Quire's own; none for a plugin's. */
  keyPrefix?: string;
}

/** A setting or secret given by the user does not fit: a usage error. */
function settingError(message: string): QuireError {
  return new QuireError(ERROR_CODES.USAGE, message);
}

/** A plugin's stored settings (hidden rows left out); `{}` before anything was set. */
export function storedSettings(slug: string, options: SettingsOptions = {}): Record<string, string> {
  const host = resolveSettingsOptions(options);
  const path = settingsPaths(slug, host.appData).configDb;
  if (!existsSync(path)) return {};
  const settings = PluginSettings.open(path, false);
  try {
    return settings.all();
  } finally {
    settings.close();
  }
}

/** The secrets store of a plugin, as this run sees it. */
export function secretsOf(slug: string, options: SettingsOptions = {}): PluginSecrets {
  const host = resolveSettingsOptions(options);
  return new PluginSecrets(slug, { appData: host.appData, plaintext: host.plaintextSecrets, keychain: host.keychain });
}

/** The text a typed value is stored as (`587`, `true`, the text itself). */
function storedText(value: FieldValue): string {
  return typeof value === 'string' ? value : String(value);
}

/**
 * Check `value` against the field's kind and return the text to store; a usage error saying what is
 * expected otherwise. Every way a setting is stored goes through here.
 */
export function settingText(field: Field, value: string | number | boolean, name: string = field.id): string {
  try {
    return storedText(parseFieldValue(field, String(value), name));
  } catch (e) {
    throw settingError(`${e instanceof Error ? e.message : String(e)}.`);
  }
}

/** Find a config field by id; a usage error listing the known ones otherwise. */
export function configField(descriptor: SettingsDescriptor, key: string): Field {
  const field = descriptor.configFields.find((f) => f.id === key);
  if (field) return field;
  if (descriptor.secretFields.some((f) => f.id === key)) {
    throw settingError(`${key} is a secret: set it with --set-secret ${key}, which reads it from standard input.`);
  }
  throw settingError(`${descriptor.name} has no setting "${key}"; it has: ${descriptor.configFields.map((f) => f.id).join(', ') || 'none'}.`);
}

/** Find a secret field by id; a usage error listing the known ones otherwise. */
export function secretField(descriptor: SettingsDescriptor, key: string): Field {
  const field = descriptor.secretFields.find((f) => f.id === key);
  if (field) return field;
  throw settingError(`${descriptor.name} has no secret "${key}"; it has: ${descriptor.secretFields.map((f) => f.id).join(', ') || 'none'}.`);
}

/**
 * Store settings given as `key=value` (checked against their fields first: nothing is written
 * when one does not fit). An empty value removes the setting, so its default applies again.
 */
export function applySettings(descriptor: SettingsDescriptor, pairs: ReadonlyArray<readonly [string, string]>, options: SettingsOptions = {}): void {
  const host = resolveSettingsOptions(options);
  const checked = pairs.map(([key, value]) => {
    const field = configField(descriptor, key);
    return { key, text: value.trim() === '' ? undefined : settingText(field, value, `${descriptor.keyPrefix ?? ''}${key}`) };
  });
  const settings = PluginSettings.open(settingsPaths(descriptor.name, host.appData).configDb);
  try {
    for (const { key, text } of checked) {
      if (text === undefined) settings.delete(key);
      else settings.set(key, text);
    }
  } finally {
    settings.close();
  }
}

/** One line of `quire plugins config <slug>`. */
export interface SettingView {
  id: string;
  label: string;
  kind: Field['kind'];
  required: boolean;
  /** Config fields: the value read (stored, else default). Secrets: never their value. */
  value?: FieldValue;
  /** Config: the default applies. */
  isDefault?: boolean;
  /** Config: the stored text, when it does not fit the field (saved before it was checked, or edited by hand), and what is expected. */
  invalid?: { text: string; expected: string };
  /** Secrets: `set` or `not set`, and where. */
  secret?: { set: boolean; store?: string; unreachable?: string };
}

/** The settings as `quire plugins config <slug>` prints them: secrets as set / not set, never their values. */
export function viewSettings(descriptor: SettingsDescriptor, options: SettingsOptions = {}): SettingView[] {
  const host = resolveSettingsOptions(options);
  const stored = storedSettings(descriptor.name, host);
  const typed = typedSettings(descriptor.configFields, stored);
  const invalid = new Map(invalidSettings(descriptor, stored).map((i) => [i.id, i]));
  const secrets = secretsOf(descriptor.name, host);
  return [
    ...descriptor.configFields.map((f) => {
      const bad = invalid.get(f.id);
      return {
        id: f.id,
        label: f.label,
        kind: f.kind,
        required: f.required,
        value: typed[f.id] ?? f.default,
        isDefault: typed[f.id] === undefined,
        ...(bad ? { invalid: { text: bad.text, expected: bad.expected } } : {}),
      };
    }),
    ...descriptor.secretFields.map((f) => {
      const read = secrets.read(f.id);
      return {
        id: f.id,
        label: f.label,
        kind: f.kind,
        required: f.required,
        secret: { set: read.value !== undefined, ...(read.from ? { store: read.from } : {}), ...(read.unreachable ? { unreachable: read.unreachable } : {}) },
      };
    }),
  ];
}

/**
 * What the plugin will be handed: typed settings and its own secrets that have a value. `form`
 * holds values typed into a settings form and not saved (a Check): its settings replace the
 * stored ones, its non-empty secrets the stored secrets. They are checked against their fields
 * (a usage error otherwise) and never written.
 */
export function handedConfig(
  descriptor: SettingsDescriptor,
  options: SettingsOptions = {},
  form: { settings?: Readonly<Record<string, string | number | boolean>>; secrets?: Readonly<Record<string, string>> } = {},
): { settings: Record<string, FieldValue>; secrets: Record<string, string>; store: PluginSecrets['store'] } {
  const host = resolveSettingsOptions(options);
  const secrets = secretsOf(descriptor.name, host);
  const values: Record<string, string> = {};
  for (const f of descriptor.secretFields) {
    const value = secrets.get(f.id);
    if (value !== undefined) values[f.id] = value;
  }
  const stored = storedSettings(descriptor.name, host);
  for (const [key, value] of Object.entries(form.settings ?? {})) {
    const field = configField(descriptor, key);
    if (value === '') delete stored[key];
    else stored[key] = settingText(field, value, `${descriptor.keyPrefix ?? ''}${key}`);
  }
  for (const [key, value] of Object.entries(form.secrets ?? {})) {
    secretField(descriptor, key);
    if (value.trim() !== '') values[key] = value;
  }
  return { settings: typedSettings(descriptor.configFields, stored), secrets: values, store: secrets.store };
}

/** Stored settings whose text does not fit their field (saved before it was checked, or edited by hand), with what is expected. */
function invalidSettings(
  descriptor: SettingsDescriptor,
  stored: Readonly<Record<string, string>>,
): Array<{ id: string; label: string; text: string; expected: string }> {
  return descriptor.configFields.flatMap((f) => {
    const text = stored[f.id];
    if (text === undefined) return [];
    try {
      parseFieldValue(f, text, `${descriptor.keyPrefix ?? ''}${f.id}`);
      return [];
    } catch (e) {
      return [{ id: f.id, label: f.label, text, expected: e instanceof Error ? e.message : String(e) }];
    }
  });
}

/**
 * What the destination still needs; `[]` when it is ready: the labels of the required settings and
 * secrets still empty, and of each stored setting that does not fit its field, as `a valid <label>`
 * (never "ready" with a setting it cannot use). A secret its store cannot give now (a keychain that
 * cannot be opened) is not missing: see {@link unreadableSecrets}.
 */
export function missingSettings(descriptor: SettingsDescriptor, options: SettingsOptions = {}): string[] {
  const host = resolveSettingsOptions(options);
  const stored = storedSettings(descriptor.name, host);
  const typed = typedSettings(descriptor.configFields, stored);
  const secrets = secretsOf(descriptor.name, host);
  const invalid = invalidSettings(descriptor, stored);
  const empty = missingFieldLabels(descriptor.configFields, descriptor.secretFields, typed, (id) => {
    const read = secrets.read(id);
    return read.unreachable !== undefined || (read.value?.trim() ?? '') !== '';
  });
  const invalidLabels = new Set(invalid.map((i) => i.label));
  return [...invalid.map((i) => `a valid ${i.label}`), ...empty.filter((label) => !invalidLabels.has(label))];
}

/** Secrets that are stored but cannot be read now, with why (`the keychain could not be opened: …`). */
export function unreadableSecrets(descriptor: SettingsDescriptor, options: SettingsOptions = {}): Array<{ id: string; label: string; reason: string }> {
  const host = resolveSettingsOptions(options);
  const secrets = secretsOf(descriptor.name, host);
  return descriptor.secretFields.flatMap((f) => {
    const read = secrets.read(f.id);
    return read.unreachable !== undefined && read.value === undefined ? [{ id: f.id, label: f.label, reason: read.unreachable }] : [];
  });
}
