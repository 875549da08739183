/**
 * Settings a destination declares: ordinary ones (`CONFIG_FIELDS`, kept in the plugin's own
 * `config.db`) and credentials (`SECRET_FIELDS`, kept in the OS keychain).
 */

/**
 * How a field is edited and stored:
 * `str` text, `int` whole number, `bool` yes/no, `choice` one of `choices`, `secret` a
 * credential (rendered masked, stored in the keychain, never printed).
 *
 * @since API 1
 */
export type FieldKind = 'str' | 'int' | 'bool' | 'choice' | 'secret';

/** The value a setting reads as: text for `str`/`choice`/`secret`, a number for `int`, a boolean for `bool`. @since API 1 */
export type FieldValue = string | number | boolean;

/** The options of {@link Field} beyond id, label, kind and default. @since API 1 */
export interface FieldOptions {
  /** The destination is not set up until this field has a value. Default false. */
  required?: boolean;
  /** For `choice`: the values allowed (the default must be one of them). */
  choices?: readonly string[];
  /** One line of help shown under the field (e.g. "an app-specific password for Gmail or iCloud"). */
  help?: string;
  /** For `str`: the value may span several lines (the `headers` setting). */
  multiline?: boolean;
}

/**
 * One setting of a destination.
 *
 * @since API 1
 */
export interface Field {
  /** Stable key (`smtp_port`): lower case letters, digits and `_`, starting with a letter. Part of the plugin's contract. */
  readonly id: string;
  /** What the user sees. */
  readonly label: string;
  /** How it is edited and stored. */
  readonly kind: FieldKind;
  /** What {@link Destination.conf} reads while the setting is unset (`587` for an SMTP port). */
  readonly default: FieldValue;
  /** The destination is not set up until this field has a value. */
  readonly required: boolean;
  /** For `choice`: the values allowed; `[]` otherwise. */
  readonly choices: readonly string[];
  /** One line of help shown under the field; `''` when none. */
  readonly help: string;
  /** For `str`: the value may span several lines. */
  readonly multiline: boolean;
}

const FIELD_KINDS: readonly FieldKind[] = ['str', 'int', 'bool', 'choice', 'secret'];
const FIELD_ID = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Declare a setting: `Field('smtp_port', 'SMTP port', 'int', 587)`,
 * `Field('password', 'Password', 'secret', '', { required: true })`.
 *
 * Throws on a malformed declaration (an id with other characters than `a-z0-9_`, a default of
 * the wrong type, a `choice` without choices), so a broken plugin fails when it loads.
 *
 * @param id - stable key, `[a-z][a-z0-9_]*`; it names the keychain entry of a secret, so it can never hold U+001F.
 * @param label - what the user sees.
 * @param kind - how it is edited and stored.
 * @param defaultValue - what `conf()` reads while unset; defaults to `''`, `0` or `false` by kind.
 * @param options - `required`, `choices`, `help`, `multiline`.
 * @since API 1
 */
export function Field(id: string, label: string, kind: FieldKind, defaultValue?: FieldValue, options: FieldOptions = {}): Field {
  if (!FIELD_ID.test(id)) throw new TypeError(`field id "${id}" must be lower case letters, digits and _, starting with a letter`);
  if (!FIELD_KINDS.includes(kind)) throw new TypeError(`field "${id}": kind "${String(kind)}" is not one of ${FIELD_KINDS.join(', ')}`);
  const choices = Object.freeze([...(options.choices ?? [])]);
  if (kind === 'choice' && choices.length === 0) throw new TypeError(`field "${id}": a choice needs its choices`);
  const fallback: FieldValue = kind === 'int' ? 0 : kind === 'bool' ? false : kind === 'choice' ? choices[0] : '';
  const value = defaultValue ?? fallback;
  const wanted = kind === 'int' ? 'number' : kind === 'bool' ? 'boolean' : 'string';
  if (typeof value !== wanted || (kind === 'int' && !Number.isInteger(value))) {
    throw new TypeError(`field "${id}": the default of a ${kind} field must be a ${kind === 'int' ? 'whole number' : wanted}`);
  }
  if (kind === 'choice' && !choices.includes(value as string)) throw new TypeError(`field "${id}": default "${String(value)}" is not one of its choices`);
  if (kind === 'secret' && value !== '') throw new TypeError(`field "${id}": a secret cannot have a default`);
  return Object.freeze({
    id,
    label,
    kind,
    default: value,
    required: options.required === true,
    choices,
    help: options.help ?? '',
    multiline: options.multiline === true,
  });
}

/**
 * The optional `headers` setting every destination may declare: extra HTTP headers, one
 * `Name: value` per line, for a server behind an authenticating proxy. Read it with
 * {@link Destination.extraHeaders}.
 *
 * @since API 1
 */
export function headersField(label = 'Extra headers (one "Name: value" per line, e.g. for a proxy)'): Field {
  return Field('headers', label, 'str', '', { multiline: true, help: 'Sent with every request; for a server behind an authenticating proxy.' });
}

/**
 * Parse `headers` text: one `Name: value` per line; blank lines and lines starting with `#`
 * are skipped. Throws a `TypeError` naming the line for anything else, so a destination can
 * answer `CONFIG` before any I/O.
 *
 * @since API 1
 */
export function parseHeaderLines(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    // RFC 9110 token characters only, and no value can carry a line break (header injection).
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new TypeError(`headers, line ${i + 1}: expected "Name: value"`);
    headers[name] = line.slice(colon + 1).trim();
  });
  return headers;
}

/**
 * Read a stored text as the field's kind: `int` → number, `bool` → boolean, others unchanged.
 * Throws a `TypeError` saying what is expected when the text does not fit.
 *
 * @since API 1
 */
export function parseFieldValue(field: Field, text: string): FieldValue {
  switch (field.kind) {
    case 'int': {
      const t = text.trim();
      if (!/^[+-]?\d+$/.test(t)) throw new TypeError(`${field.id} must be a whole number`);
      return Number.parseInt(t, 10);
    }
    case 'bool': {
      const t = text.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(t)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(t)) return false;
      throw new TypeError(`${field.id} must be yes or no`);
    }
    case 'choice':
      if (!field.choices.includes(text)) throw new TypeError(`${field.id} must be one of: ${field.choices.join(', ')}`);
      return text;
    default:
      return text;
  }
}

/** True when a setting counts as not given: no value, or empty text. */
export function isEmptyValue(value: FieldValue | undefined | null): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/**
 * Labels of the required fields that are still empty: a config field whose stored value (or,
 * unset, its default) is empty, a secret field that has no value.
 *
 * @since API 1
 */
export function missingFieldLabels(
  configFields: readonly Field[],
  secretFields: readonly Field[],
  settings: Readonly<Record<string, FieldValue>>,
  hasSecret: (id: string) => boolean,
): string[] {
  const missing: string[] = [];
  for (const f of configFields) if (f.required && isEmptyValue(settings[f.id] ?? f.default)) missing.push(f.label);
  for (const f of secretFields) if (f.required && !hasSecret(f.id)) missing.push(f.label);
  return missing;
}
