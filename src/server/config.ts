import { ERROR_CODES, QuireError } from '../errors.js';
import { parseBaseUrl as parseHttpBaseUrl } from '../plugin-api/index.js';
import type { JobStore } from './store.js';

/** Keys of the config table a person sets with `quire server config set`. */
export const SETTABLE = ['smtp', 'base_url'] as const;
export type SettableKey = (typeof SETTABLE)[number];

/** Kept in the config table beside the settable keys; never shown by `config get`. */
export const ADMIN_SECRET_KEY = 'admin_secret';

/** The `smtp` entry: where completion emails go out. */
export interface SmtpConfig {
  host: string;
  /** Default 465 with `tls`, else 587. */
  port?: number;
  user?: string;
  password?: string;
  /** Sender address; default `user` when it is an address, else `quire@<host>`. */
  from?: string;
  /** TLS from the first byte (usually port 465). Without it, STARTTLS is used when the server offers it. */
  tls?: boolean;
}

const SMTP_FIELDS = new Set(['host', 'port', 'user', 'password', 'from', 'tls']);

function usage(message: string): QuireError {
  return new QuireError(ERROR_CODES.USAGE, message);
}

/** Check an `smtp` value (JSON text) once, where it is set, so the worker never meets a malformed one. */
export function parseSmtpConfig(text: string): SmtpConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usage('The smtp setting must be a JSON object such as {"host":"smtp.example.org","port":587,"user":"…","password":"…","from":"…"}.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usage('The smtp setting must be a JSON object with at least a "host".');
  const v = value as Record<string, unknown>;
  const unknown = Object.keys(v).filter((k) => !SMTP_FIELDS.has(k));
  if (unknown.length > 0) throw usage(`The smtp setting has fields Quire does not know (${unknown.join(', ')}); it takes host, port, user, password, from and tls.`);
  if (typeof v.host !== 'string' || v.host.trim() === '') throw usage('The smtp setting needs a "host", the name of the mail server.');
  if (v.port !== undefined && !(Number.isInteger(v.port) && (v.port as number) > 0 && (v.port as number) < 65536)) throw usage('The smtp "port" must be a port number from 1 to 65535.');
  for (const k of ['user', 'password', 'from'] as const) {
    if (v[k] !== undefined && typeof v[k] !== 'string') throw usage(`The smtp "${k}" must be text.`);
  }
  if (v.tls !== undefined && typeof v.tls !== 'boolean') throw usage('The smtp "tls" must be true or false.');
  return v as unknown as SmtpConfig;
}

/** A public base URL for links: http(s), no credentials, query or fragment, stored without a trailing slash. */
export function parseBaseUrl(text: string): string {
  const parsed = parseHttpBaseUrl(text);
  if (parsed.url === undefined) {
    throw usage(
      {
        not_url: `${text} is not a URL; give the server's public address, such as https://quire.example.org.`,
        not_http: 'The base URL must start with http:// or https://.',
        extra_parts: 'The base URL must not have a user name, a query or a fragment.',
      }[parsed.problem],
    );
  }
  return parsed.url;
}

/** Validate and store one setting. */
export async function setServerConfig(store: JobStore, key: string, value: string): Promise<string> {
  if (key === 'smtp') {
    const smtp = parseSmtpConfig(value);
    const text = JSON.stringify(smtp);
    await store.setConfig('smtp', text);
    return text;
  }
  if (key === 'base_url') {
    const url = parseBaseUrl(value);
    await store.setConfig('base_url', url);
    return url;
  }
  throw usage(`${key} is not a server setting; the settings are ${SETTABLE.join(' and ')}.`);
}

export async function readSmtpConfig(store: JobStore): Promise<SmtpConfig | null> {
  const text = await store.getConfig('smtp');
  return text === null ? null : parseSmtpConfig(text);
}

/** A setting as `config get` shows it: the SMTP password is never printed. */
export async function showServerConfig(store: JobStore, key: string): Promise<string | null> {
  if (!(SETTABLE as readonly string[]).includes(key)) throw usage(`${key} is not a server setting; the settings are ${SETTABLE.join(' and ')}.`);
  if (key === 'smtp') {
    const smtp = await readSmtpConfig(store);
    return smtp ? JSON.stringify({ ...smtp, ...(smtp.password ? { password: '********' } : {}) }) : null;
  }
  return store.getConfig(key);
}
