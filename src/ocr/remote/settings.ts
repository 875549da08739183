/**
 * Settings of the remote OCR engine, kept where a plugin's are, under the slug `remoteocr`: `base_url` and `model`
 * in `<APP_DATA>/plugins/data/remoteocr/config.db`, the API key as the secret `api_key` (`<APP_DATA>/.env` from the
 * command line, else the OS keychain, else the config-file fallback — the store the web app's settings page uses).
 * `QUIRE_REMOTEOCR_API_KEY` wins over the stored key, for servers configured by their environment.
 */
import { Field, parseBaseUrl } from '../../plugin-api/index.js';
import { applySettings, secretsOf, viewSettings, type SettingsDescriptor, type SettingsOptions } from '../../settings/index.js';

export const REMOTE_OCR_SLUG = 'remoteocr';
export const API_KEY_SECRET = 'api_key';
export const API_KEY_ENV = 'QUIRE_REMOTEOCR_API_KEY';
/** The public service the protocol comes from. */
export const DEFAULT_BASE_URL = 'https://api.mistral.ai';
export const DEFAULT_MODEL = 'mistral-ocr-latest';

/** What the engine needs to talk to the service. */
export interface RemoteOcrSettings {
  baseUrl: string;
  model: string;
  /** Absent when none is set anywhere: the engine refuses before any request. */
  apiKey?: string;
}

/** The settings as `quire config` and the settings store see them: named and declared like a destination's. */
export const REMOTE_OCR_DESCRIPTOR: SettingsDescriptor = {
  name: REMOTE_OCR_SLUG,
  keyPrefix: `${REMOTE_OCR_SLUG}.`,
  configFields: [
    Field('base_url', 'Base URL of the OCR service', 'url', DEFAULT_BASE_URL, { help: 'e.g. https://api.mistral.ai' }),
    Field('model', 'OCR model', 'str', DEFAULT_MODEL),
    // Bounds: a connection takes well under a minute to accept; an answer to a short request, a few minutes at most.
    Field('connect_timeout', 'Connect timeout (seconds)', 'duration', 10, { max: 300, help: 'how long to wait for the service to accept a connection' }),
    Field('response_timeout', 'Response timeout (seconds)', 'duration', 30, {
      max: 900,
      help: 'how long to wait for an answer to a short request (a batch status, a cancel); reading a document may take up to 15 minutes',
    }),
  ],
  secretFields: [Field(API_KEY_SECRET, 'API key', 'secret', '', { required: true })],
};

/** Settings keys `quire config set remoteocr.<key>` takes. */
export const REMOTE_OCR_SETTINGS = REMOTE_OCR_DESCRIPTOR.configFields.map((f) => f.id);

/** A base URL as the client uses it: http(s), no trailing slash. Throws a `RangeError` naming the problem. */
export function normalizeBaseUrl(value: string): string {
  const parsed = parseBaseUrl(value);
  if (parsed.url === undefined) {
    const problem = { not_url: 'is not a URL', not_http: 'is not an http or https URL', extra_parts: 'must not have a user name, query or fragment' };
    throw new RangeError(`"${value}" ${problem[parsed.problem]}`);
  }
  return parsed.url;
}

/** Read the settings: stored values (else defaults), and the key from the environment, else the secret store. */
export function readRemoteOcrSettings(host: SettingsOptions = {}, env: NodeJS.ProcessEnv = process.env): RemoteOcrSettings {
  // A descriptor without its secret field: reading settings must not touch the keychain.
  const views = viewSettings({ ...REMOTE_OCR_DESCRIPTOR, secretFields: [] }, host);
  const value = (id: string): string => String(views.find((v) => v.id === id)?.value ?? '');
  const fromEnv = env[API_KEY_ENV]?.trim();
  const apiKey = fromEnv || secretsOf(REMOTE_OCR_SLUG, host).get(API_KEY_SECRET)?.trim();
  return { baseUrl: normalizeBaseUrl(value('base_url') || DEFAULT_BASE_URL), model: value('model') || DEFAULT_MODEL, ...(apiKey ? { apiKey } : {}) };
}

/** The client's timeouts from the settings, in ms: a service that accepts connections and never answers costs this much. */
export function readRemoteOcrTimeouts(host: SettingsOptions = {}): { connectMs: number; otherMs: number } {
  const views = viewSettings({ ...REMOTE_OCR_DESCRIPTOR, secretFields: [] }, host);
  const seconds = (id: string, fallback: number): number => {
    const n = Number(views.find((v) => v.id === id)?.value);
    return Number.isFinite(n) && n > 0 ? n * 1000 : fallback;
  };
  return { connectMs: seconds('connect_timeout', 10_000), otherMs: seconds('response_timeout', 30_000) };
}

/**
 * Store one setting (an empty value restores the default), checked against its field's kind first: a usage error
 * saying what is expected otherwise (`remoteocr.connect_timeout must be a whole number of seconds from 1 to 300.`),
 * and nothing is stored.
 */
export function setRemoteOcrSetting(key: string, value: string, host: SettingsOptions = {}): void {
  applySettings(REMOTE_OCR_DESCRIPTOR, [[key, value.trim()]], host);
}

/** Store the API key in the secret store the host options choose; returns where it went. */
export function setRemoteOcrKey(value: string, host: SettingsOptions = {}): string {
  return secretsOf(REMOTE_OCR_SLUG, host).set(API_KEY_SECRET, value.trim());
}
