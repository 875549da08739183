import { ERROR_CODES, QuireError } from '../errors.js';
import { parseBaseUrl as parseHttpBaseUrl } from '../plugin-api/index.js';
import { secretsOf } from '../settings/index.js';
import { formatBytes, parseByteSize } from '../util/index.js';
import { DEFAULT_JOB_MEMORY } from './engine.js';
import type { JobStore } from './store.js';

/** Keys of the config table a person sets with `quire server config set`. */
export const SETTABLE = ['smtp', 'base_url', 'limits', 'retention'] as const;
export type SettableKey = (typeof SETTABLE)[number];

/** The sha256 of the admin secret, kept in the config table beside the settable keys; never shown by `config get`. */
export const ADMIN_SECRET_HASH_KEY = 'admin_secret_hash';
/** Where earlier versions kept the admin secret itself; moved to its hash at the next start. */
export const LEGACY_ADMIN_SECRET_KEY = 'admin_secret';

/** The server's secrets (the SMTP password), kept out of its database: `<APP_DATA>/.env`, mode 0600. */
export interface ServerSecrets {
  get(key: string): string | undefined;
  set(key: string, value: string): unknown;
  delete(key: string): void;
}

/** What `config set` and `config get` work on: the config table and the secrets beside it. */
export interface ServerSettings {
  store: JobStore;
  secrets: ServerSecrets;
}

/** The secret store's name for the server's own secrets. */
export const SERVER_SECRETS_SLUG = 'quire-server';
const SMTP_PASSWORD = 'smtp_password';

/**
 * The server's secrets in the settings' secret store, under `appData`: the headless `.env` file (the server runs
 * without a desktop keychain), `QUIRE_PLUGIN__QUIRE_SERVER__SMTP_PASSWORD`.
 */
export function serverSecrets(appData: string): ServerSecrets {
  return secretsOf(SERVER_SECRETS_SLUG, { appData, plaintextSecrets: true, keychain: null });
}

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
  if (unknown.length > 0)
    throw usage(`The smtp setting has fields Quire does not know (${unknown.join(', ')}); it takes host, port, user, password, from and tls.`);
  if (typeof v.host !== 'string' || v.host.trim() === '') throw usage('The smtp setting needs a "host", the name of the mail server.');
  if (v.port !== undefined && !(Number.isInteger(v.port) && (v.port as number) > 0 && (v.port as number) < 65536))
    throw usage('The smtp "port" must be a port number from 1 to 65535.');
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

const notSettable = (key: string): QuireError => usage(`${key} is not a server setting; the settings are ${SETTABLE.join(', ')}.`);

/** Validate and store one setting. The SMTP password goes to the secret store, the rest of `smtp` to the database. */
export async function setServerConfig(settings: ServerSettings, key: string, value: string): Promise<string> {
  const { store, secrets } = settings;
  if (key === 'smtp') {
    const { password, ...smtp } = parseSmtpConfig(value);
    if (password) secrets.set(SMTP_PASSWORD, password);
    else secrets.delete(SMTP_PASSWORD);
    const text = JSON.stringify(smtp);
    await store.setConfig('smtp', text);
    return text;
  }
  if (key === 'base_url') {
    const url = parseBaseUrl(value);
    await store.setConfig('base_url', url);
    return url;
  }
  if (key === 'limits') {
    parseLimits(value);
    await store.setConfig('limits', value.trim());
    return value.trim();
  }
  if (key === 'retention') {
    parseRetention(value);
    await store.setConfig('retention', value.trim());
    return value.trim();
  }
  throw notSettable(key);
}

/** The `smtp` setting with its password from the secret store. */
export async function readSmtpConfig(settings: ServerSettings): Promise<SmtpConfig | null> {
  const text = await settings.store.getConfig('smtp');
  if (text === null) return null;
  const smtp = parseSmtpConfig(text);
  const password = settings.secrets.get(SMTP_PASSWORD);
  return password ? { ...smtp, password } : smtp;
}

/** Move a password an earlier version kept in the database to the secret store. */
export async function moveSmtpPassword(settings: ServerSettings): Promise<boolean> {
  const text = await settings.store.getConfig('smtp');
  if (text === null) return false;
  const { password, ...smtp } = parseSmtpConfig(text);
  if (!password) return false;
  settings.secrets.set(SMTP_PASSWORD, password);
  await settings.store.setConfig('smtp', JSON.stringify(smtp));
  return true;
}

/** A setting as `config get` shows it: the SMTP password is never printed; limits and retention with their defaults. */
export async function showServerConfig(settings: ServerSettings, key: string): Promise<string | null> {
  if (!(SETTABLE as readonly string[]).includes(key)) throw notSettable(key);
  if (key === 'smtp') {
    const smtp = await readSmtpConfig(settings);
    if (!smtp) return null;
    const shown: Record<string, unknown> = { ...smtp, ...(smtp.password ? { password: '********' } : {}) };
    // In the order the fields are documented, wherever the password is kept.
    return JSON.stringify(Object.fromEntries([...SMTP_FIELDS].filter((k) => shown[k] !== undefined).map((k) => [k, shown[k]])));
  }
  if (key === 'limits') return JSON.stringify(showLimits(parseLimits((await settings.store.getConfig('limits')) ?? '{}')));
  if (key === 'retention') return JSON.stringify(showRetention(parseRetention((await settings.store.getConfig('retention')) ?? '{}')));
  return settings.store.getConfig(key);
}

/** What the server lets one client, one key and one job take. */
export interface ServerLimits {
  /** Memory ceiling of one job's process, bytes. */
  jobMemory: number;
  /** A job still converting after this long is stopped and failed. */
  jobTimeMs: number;
  /** Uploads streaming in at once, per key and in all. */
  uploadsPerKey: number;
  uploadsTotal: number;
  /** An upload that sends nothing for this long is cut. */
  uploadIdleMs: number;
  /** A connection to `/run` that has not shown a valid key within this long is closed; it holds no upload slot till then. */
  uploadKeyMs: number;
  /** Uploads from one address that have not shown their key yet, at once. */
  unverifiedUploadsPerAddress: number;
  /** Wrong API keys or admin secrets one address may send in a minute before it is refused for the rest of it. */
  failedAuthPerMinute: number;
  /** Connections the server holds open at once; past it a new one is closed at once, before it costs anything. */
  maxConnections: number;
  /** No upload may take longer than this, however steadily it trickles. */
  uploadDeadlineMs: number;
  /** An upload must bring at least this many bytes a second, counted over each `uploadIdleMs`, or it is cut. */
  uploadMinBytesPerSecond: number;
  /** Jobs one key may have waiting to run. */
  queuedJobsPerKey: number;
  /** Bytes one key's jobs may keep on disk (uploads and outputs). */
  storedBytesPerKey: number;
  /** Uploads and jobs wait while the data folder's disk has less than this free. */
  minFreeDisk: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  jobMemory: DEFAULT_JOB_MEMORY,
  jobTimeMs: 360 * 60_000,
  uploadsPerKey: 4,
  uploadsTotal: 32,
  uploadIdleMs: 30_000,
  uploadKeyMs: 5_000,
  unverifiedUploadsPerAddress: 4,
  failedAuthPerMinute: 30,
  maxConnections: 1024,
  uploadDeadlineMs: 60 * 60_000,
  uploadMinBytesPerSecond: 1024,
  queuedJobsPerKey: 50,
  storedBytesPerKey: 20 * 1024 ** 3,
  minFreeDisk: 1024 ** 3,
};

/** How long a job's files are kept once it ended; null keeps them until the job is deleted. */
export interface Retention {
  inputsMs: number | null;
  outputsMs: number | null;
}

/** Uploads go when their job ends (the outputs are what a client came for); outputs after 30 days. */
export const DEFAULT_RETENTION: Retention = { inputsMs: 0, outputsMs: 30 * 86_400_000 };

const LIMIT_FIELDS = {
  job_memory: 'size',
  job_minutes: 'count',
  uploads_per_key: 'count',
  uploads_total: 'count',
  upload_idle_seconds: 'count',
  upload_key_seconds: 'count',
  unverified_uploads_per_address: 'count',
  failed_auth_per_minute: 'count',
  max_connections: 'count',
  upload_deadline_minutes: 'count',
  upload_min_bytes_per_second: 'count',
  queued_jobs_per_key: 'count',
  stored_bytes_per_key: 'size',
  min_free_disk: 'size0',
} as const;

function jsonObject(text: string, what: string, example: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usage(`The ${what} setting must be a JSON object such as ${example}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usage(`The ${what} setting must be a JSON object such as ${example}.`);
  return value as Record<string, unknown>;
}

/** The `limits` setting (JSON; sizes as `"1.5G"` or bytes), over the defaults; checked where it is set and at start. */
export function parseLimits(text: string): ServerLimits {
  const v = jsonObject(text, 'limits', '{"job_memory":"1.5G","uploads_per_key":4}');
  const unknown = Object.keys(v).filter((k) => !(k in LIMIT_FIELDS));
  if (unknown.length > 0)
    throw usage(`The limits setting has fields Quire does not know (${unknown.join(', ')}); it takes ${Object.keys(LIMIT_FIELDS).join(', ')}.`);
  const get = (name: keyof typeof LIMIT_FIELDS, fallback: number): number => {
    const raw = v[name];
    if (raw === undefined) return fallback;
    const kind = LIMIT_FIELDS[name];
    if (kind === 'count') {
      if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) throw usage(`The limits "${name}" must be a whole number from 1.`);
      return raw;
    }
    if (kind === 'size0' && raw === 0) return 0;
    const bytes = typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 ? raw : typeof raw === 'string' ? parseByteSize(raw) : null;
    if (bytes === null) throw usage(`The limits "${name}" must be a size such as "1.5G" or "500M".`);
    return bytes;
  };
  const d = DEFAULT_LIMITS;
  const limits: ServerLimits = {
    jobMemory: get('job_memory', d.jobMemory),
    jobTimeMs: get('job_minutes', d.jobTimeMs / 60_000) * 60_000,
    uploadsPerKey: get('uploads_per_key', d.uploadsPerKey),
    uploadsTotal: get('uploads_total', d.uploadsTotal),
    uploadIdleMs: get('upload_idle_seconds', d.uploadIdleMs / 1000) * 1000,
    uploadKeyMs: get('upload_key_seconds', d.uploadKeyMs / 1000) * 1000,
    unverifiedUploadsPerAddress: get('unverified_uploads_per_address', d.unverifiedUploadsPerAddress),
    failedAuthPerMinute: get('failed_auth_per_minute', d.failedAuthPerMinute),
    maxConnections: get('max_connections', d.maxConnections),
    uploadDeadlineMs: get('upload_deadline_minutes', d.uploadDeadlineMs / 60_000) * 60_000,
    uploadMinBytesPerSecond: get('upload_min_bytes_per_second', d.uploadMinBytesPerSecond),
    queuedJobsPerKey: get('queued_jobs_per_key', d.queuedJobsPerKey),
    storedBytesPerKey: get('stored_bytes_per_key', d.storedBytesPerKey),
    minFreeDisk: get('min_free_disk', d.minFreeDisk),
  };
  if (limits.jobMemory < 128 * 1024 ** 2) throw usage('The limits "job_memory" must be at least 128M: a conversion needs that much to start.');
  return limits;
}

function showLimits(l: ServerLimits): Record<string, string | number> {
  return {
    job_memory: formatBytes(l.jobMemory),
    job_minutes: l.jobTimeMs / 60_000,
    uploads_per_key: l.uploadsPerKey,
    uploads_total: l.uploadsTotal,
    upload_idle_seconds: l.uploadIdleMs / 1000,
    upload_key_seconds: l.uploadKeyMs / 1000,
    unverified_uploads_per_address: l.unverifiedUploadsPerAddress,
    failed_auth_per_minute: l.failedAuthPerMinute,
    max_connections: l.maxConnections,
    upload_deadline_minutes: l.uploadDeadlineMs / 60_000,
    upload_min_bytes_per_second: l.uploadMinBytesPerSecond,
    queued_jobs_per_key: l.queuedJobsPerKey,
    stored_bytes_per_key: formatBytes(l.storedBytesPerKey),
    min_free_disk: formatBytes(l.minFreeDisk),
  };
}

/** The `retention` setting: `{"inputs_days":0,"outputs_days":30}`; 0 is when the job ends, null for ever. */
export function parseRetention(text: string): Retention {
  const v = jsonObject(text, 'retention', '{"inputs_days":0,"outputs_days":30}');
  const unknown = Object.keys(v).filter((k) => k !== 'inputs_days' && k !== 'outputs_days');
  if (unknown.length > 0) throw usage(`The retention setting has fields Quire does not know (${unknown.join(', ')}); it takes inputs_days and outputs_days.`);
  const days = (name: 'inputs_days' | 'outputs_days', fallback: number | null): number | null => {
    const raw = v[name];
    if (raw === undefined) return fallback;
    if (raw === null) return null;
    if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0)
      throw usage(`The retention "${name}" must be a number of days from 0, or null to keep the files until the job is deleted.`);
    return raw * 86_400_000;
  };
  return { inputsMs: days('inputs_days', DEFAULT_RETENTION.inputsMs), outputsMs: days('outputs_days', DEFAULT_RETENTION.outputsMs) };
}

function showRetention(r: Retention): Record<string, number | null> {
  const days = (ms: number | null): number | null => (ms === null ? null : ms / 86_400_000);
  return { inputs_days: days(r.inputsMs), outputs_days: days(r.outputsMs) };
}
