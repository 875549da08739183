/**
 * Settings a destination declares: ordinary ones (`CONFIG_FIELDS`, kept in the plugin's own
 * `config.db`) and credentials (`SECRET_FIELDS`, kept in the OS keychain).
 */
import { parseBaseUrl } from './url.js';

/**
 * How a field is edited and stored:
 * `str` text, `int` whole number, `bool` yes/no, `choice` one of `choices`, `secret` a
 * credential (rendered masked, stored in the keychain, never printed); and the kinds a value is
 * checked against when it is set (a value that does not fit is refused, never stored):
 * `url` an http or https address (stored without its trailing slash), `port` a TCP port 1–65535,
 * `email` a mail address, `duration` a whole number of seconds between `min` (default 1) and `max`.
 *
 * @since API 1 (`url`, `port`, `email`, `duration` since Quire 1.x, still API 1)
 */
export type FieldKind = 'str' | 'int' | 'bool' | 'choice' | 'secret' | 'url' | 'port' | 'email' | 'duration';

/** The value a setting reads as: a number for `int`, `port`, `duration`, a boolean for `bool`, text otherwise. @since API 1 */
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
  /** For `int` and `duration`: the smallest value allowed (a `duration` is at least 1 second whatever this says). */
  min?: number;
  /** For `int` and `duration`: the largest value allowed. A `duration` without one takes at most a day (86400 s). */
  max?: number;
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
  /** For `int`, `port`, `duration`: the smallest value allowed; `null` for none. */
  readonly min: number | null;
  /** For `int`, `port`, `duration`: the largest value allowed; `null` for none. */
  readonly max: number | null;
}

const FIELD_KINDS: readonly FieldKind[] = ['str', 'int', 'bool', 'choice', 'secret', 'url', 'port', 'email', 'duration'];
const NUMBER_KINDS: readonly FieldKind[] = ['int', 'port', 'duration'];
/** The longest `duration` a field may declare when it says no `max`: one day. */
const DAY_SECONDS = 86_400;

/** The bounds of a numeric field: a port is 1–65535, a duration at least 1 s and at most its `max` (a day unless said). */
function boundsOf(kind: FieldKind, options: FieldOptions): { min: number | null; max: number | null } {
  if (kind === 'port') return { min: 1, max: 65_535 };
  if (kind === 'duration') return { min: Math.max(1, options.min ?? 1), max: options.max ?? DAY_SECONDS };
  if (kind === 'int') return { min: options.min ?? null, max: options.max ?? null };
  return { min: null, max: null };
}
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
  const { min, max } = boundsOf(kind, options);
  if (min !== null && max !== null && !(min <= max)) throw new TypeError(`field "${id}": its min ${min} is above its max ${max}`);
  const numeric = NUMBER_KINDS.includes(kind);
  const fallback: FieldValue = numeric ? (min ?? 0) : kind === 'bool' ? false : kind === 'choice' ? choices[0] : '';
  const value = defaultValue ?? fallback;
  const wanted = numeric ? 'number' : kind === 'bool' ? 'boolean' : 'string';
  if (typeof value !== wanted || (numeric && !Number.isInteger(value))) {
    throw new TypeError(`field "${id}": the default of a ${kind} field must be a ${numeric ? 'whole number' : wanted}`);
  }
  if (kind === 'choice' && !choices.includes(value as string)) throw new TypeError(`field "${id}": default "${String(value)}" is not one of its choices`);
  if (kind === 'secret' && value !== '') throw new TypeError(`field "${id}": a secret cannot have a default`);
  const field: Field = Object.freeze({
    id,
    label,
    kind,
    default: value,
    required: options.required === true,
    choices,
    help: options.help ?? '',
    multiline: options.multiline === true,
    min,
    max,
  });
  // A default must itself be a value the field accepts (an empty text stands for "unset").
  if (value !== '' && kind !== 'secret') {
    try {
      parseFieldValue(field, String(value));
    } catch (e) {
      throw new TypeError(`field "${id}": its default does not fit: ${(e as Error).message}`, { cause: e });
    }
  }
  return field;
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
 * Read a text as the field's kind: `int`, `port`, `duration` → number (within the field's bounds),
 * `bool` → boolean, `url` → the address without its trailing slash, others unchanged. Throws a
 * `TypeError` saying what is expected (`smtp_port must be a port number from 1 to 65535`) when the
 * text does not fit; `name` is how the message calls the setting (default its id). The one check of
 * a setting: `quire plugins config --set`, the web app's settings and `quire config set` all store
 * through it, and a stored text that no longer fits makes the destination "need" that setting.
 *
 * @since API 1
 */
export function parseFieldValue(field: Field, text: string, name: string = field.id): FieldValue {
  switch (field.kind) {
    case 'int':
    case 'port':
    case 'duration':
      return parseNumber(field, text, name);
    case 'bool': {
      const t = text.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(t)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(t)) return false;
      throw new TypeError(`${name} must be yes or no`);
    }
    case 'choice':
      if (!field.choices.includes(text)) throw new TypeError(`${name} must be one of: ${field.choices.join(', ')}`);
      return text;
    case 'url': {
      const parsed = parseBaseUrl(text);
      if (parsed.url === undefined) {
        const extra = parsed.problem === 'extra_parts' ? ', without a user name, query or #part' : '';
        throw new TypeError(`${name} must be an http or https URL such as https://example.org${extra}`);
      }
      return parsed.url;
    }
    case 'email': {
      const t = text.trim();
      if (!EMAIL.test(t)) throw new TypeError(`${name} must be an e-mail address such as name@example.org`);
      return t;
    }
    default:
      return text;
  }
}

/** One `@`, no space, angle bracket, comma or control character; a dot in the domain (or `localhost`, for a server on this machine). */
const EMAIL = /^[^\s@<>,;:"()[\]\\\p{Cc}]+@(?:[^\s@<>,;:"()[\]\\\p{Cc}.]+\.)+[^\s@<>,;:"()[\]\\\p{Cc}.]+$|^[^\s@<>,;:"()[\]\\\p{Cc}]+@localhost$/u;

/** A whole number within the field's bounds; the sentence names what is expected. */
function parseNumber(field: Field, text: string, name: string): number {
  const unit = field.kind === 'duration' ? ' of seconds' : '';
  const what = field.kind === 'port' ? 'a port number' : `a whole number${unit}`;
  const range =
    field.min !== null && field.max !== null
      ? ` from ${field.min} to ${field.max}`
      : field.min !== null
        ? ` of at least ${field.min}`
        : field.max !== null
          ? ` of at most ${field.max}`
          : '';
  const t = text.trim();
  const n = /^[+-]?\d{1,15}$/.test(t) ? Number.parseInt(t, 10) : Number.NaN;
  if (!Number.isSafeInteger(n) || (field.min !== null && n < field.min) || (field.max !== null && n > field.max)) {
    throw new TypeError(`${name} must be ${what}${range}`);
  }
  return n;
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
