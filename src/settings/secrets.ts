/**
 * A plugin's secrets. Three stores, read in this order in every mode:
 *
 * 1. `<APP_DATA>/.env` (mode 0600): the headless plaintext store every CLI command writes to;
 * 2. the OS keychain: service `quire.plugin`, account `<slug>` + U+001F + `<key>`;
 * 3. the plugin's own `config.db`, in a host-reserved row: where secrets go when no keychain
 *    can be reached (the "legacy config row").
 *
 * A write goes to `.env` in plaintext mode, else to the keychain when one answers, else to the
 * config row; the copies in the other stores are removed so the newest value is the one read.
 * A keychain that holds a secret but cannot be opened now (locked, its service gone) is its own
 * state, "the keychain could not be opened: …", never a missing secret; a new value for such a
 * secret is refused rather than put in plain text beside the one it cannot replace.
 * The slug is fixed when the store is made and a key can never hold U+001F, so one plugin cannot
 * name another's keychain entries.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Entry } from '@napi-rs/keyring';
import { ERROR_CODES, QuireError } from '../errors.js';
import type { SecretStoreKind } from '../plugin-api/index.js';
import { readEnvFile, updateEnvFile } from './envfile.js';
import { SLUG_PATTERN, settingsPaths, type SettingsPaths } from './paths.js';
import { PluginSettings, secretRowKey } from './settings.js';

/** The keychain service every plugin secret is filed under. */
export const KEYCHAIN_SERVICE = 'quire.plugin';
/** Between slug and key in a keychain account name (U+001F, the unit separator). */
export const KEY_SEPARATOR = '\u001f';

const SECRET_KEY = /^[a-z][a-z0-9_]{0,63}$/;
/** Rows recording which keys were put in the keychain, so `remove` finds them even when the plugin is broken. */
const KEYCHAIN_MARK = '__keychain__.';

/** The OS keychain, or a stand-in for tests. Every method may throw when the keychain cannot be reached. */
export interface Keychain {
  get(account: string): string | undefined;
  set(account: string, value: string): void;
  delete(account: string): void;
}

/**
 * The OS keychain through `@napi-rs/keyring`. On Linux it is pinned to the Secret Service
 * (gnome-keyring, KWallet, KeePassXC): the library's silent fallback, the kernel keyring, forgets
 * everything at reboot, so without a Secret Service we use the config-file fallback instead.
 */
export function osKeychain(service = KEYCHAIN_SERVICE): Keychain {
  // The native keychain binding is loaded on first use: most commands never read a secret.
  const entry = (account: string): Entry => {
    const { Entry: KeychainEntry } = createRequire(import.meta.url)('@napi-rs/keyring') as typeof import('@napi-rs/keyring');
    return new KeychainEntry(service, account, { linux: { store: 'secret-service' } });
  };
  return {
    get: (account) => entry(account).getPassword() ?? undefined,
    set: (account, value) => entry(account).setPassword(value),
    delete: (account) => {
      entry(account).deletePassword();
    },
  };
}

/** Whether the keychain answers (a read of an entry that need not exist succeeds), and when not, why. */
export function keychainState(keychain: Keychain | null): { answers: boolean; problem?: string } {
  if (!keychain) return { answers: false };
  try {
    keychain.get(`${KEY_SEPARATOR}probe`);
    return { answers: true };
  } catch (e) {
    return { answers: false, problem: e instanceof Error ? e.message : String(e) };
  }
}

/** True when the keychain answers. */
export function keychainAnswers(keychain: Keychain | null): boolean {
  return keychainState(keychain).answers;
}

/** The sentence for a keychain that holds a secret and cannot be opened. */
export function keychainUnreachable(problem: string | undefined): string {
  return `the keychain could not be opened: ${problem ?? 'it did not answer'}`;
}

/** How secrets are stored on this run. */
export interface SecretsOptions {
  appData: string;
  /** CLI commands: write to `.env`. */
  plaintext?: boolean;
  /** `null` for none; default the OS keychain. */
  keychain?: Keychain | null;
}

/** Where a value was found. */
export interface SecretRead {
  value?: string;
  from?: SecretStoreKind;
  /** A store that holds it could not be read, and why: `the keychain could not be opened: …`. */
  unreachable?: string;
}

/** The account name of a secret in the keychain. */
export function keychainAccount(slug: string, key: string): string {
  return `${slug}${KEY_SEPARATOR}${key}`;
}

/** The `.env` name of a secret: `QUIRE_PLUGIN__SEND_TO_LIBRARY__PASSWORD` (slugs never hold `_`, so this is one-to-one). */
export function envName(slug: string, key: string): string {
  return `QUIRE_PLUGIN__${slug.replace(/-/g, '_').toUpperCase()}__${key.toUpperCase()}`;
}

function assertKey(key: string): void {
  if (key.includes(KEY_SEPARATOR) || !SECRET_KEY.test(key)) throw new RangeError(`"${key.split(KEY_SEPARATOR).join('\\u001f')}" cannot name a secret`);
}

/** The secrets of one plugin. */
export class PluginSecrets {
  readonly slug: string;
  readonly #paths: SettingsPaths;
  readonly #plaintext: boolean;
  readonly #keychain: Keychain | null;
  #keychainState: { answers: boolean; problem?: string } | undefined;

  constructor(slug: string, options: SecretsOptions) {
    if (!SLUG_PATTERN.test(slug)) throw new RangeError(`"${slug}" is not a plugin slug`);
    this.slug = slug;
    this.#paths = settingsPaths(slug, options.appData);
    this.#plaintext = options.plaintext === true;
    this.#keychain = options.keychain === undefined ? osKeychain() : options.keychain;
  }

  /** Whether the OS keychain answers (asked once). */
  get keychainAvailable(): boolean {
    this.#keychainState ??= keychainState(this.#keychain);
    return this.#keychainState.answers;
  }

  /** Why the keychain does not answer (its own words); `undefined` when it does or there is none. */
  get keychainProblem(): string | undefined {
    return this.keychainAvailable ? undefined : this.#keychainState?.problem;
  }

  /** Where a write goes. */
  get store(): SecretStoreKind {
    if (this.#plaintext) return 'env-file';
    return this.keychainAvailable ? 'keychain' : 'config-file';
  }

  #withSettings<T>(fn: (s: PluginSettings) => T, create: boolean): T | undefined {
    if (!create && !existsSync(this.#paths.configDb)) return undefined;
    const settings = PluginSettings.open(this.#paths.configDb);
    try {
      return fn(settings);
    } finally {
      settings.close();
    }
  }

  /** Look in `.env`, then the keychain, then the config row. */
  read(key: string): SecretRead {
    assertKey(key);
    const fromEnv = readEnvFile(this.#paths.envFile)[envName(this.slug, key)];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, from: 'env-file' };
    let unreachable: string | undefined;
    if (this.#keychain && this.keychainAvailable) {
      try {
        const value = this.#keychain.get(keychainAccount(this.slug, key));
        if (value !== undefined && value !== '') return { value, from: 'keychain' };
      } catch (e) {
        unreachable = keychainUnreachable(e instanceof Error ? e.message : String(e));
      }
    }
    const [fromRow, inKeychain] = this.#withSettings((s) => [s.get(secretRowKey(key)), s.get(`${KEYCHAIN_MARK}${key}`)] as const, false) ?? [];
    if (fromRow !== undefined && fromRow !== '') return { value: fromRow, from: 'config-file' };
    // Written to the keychain earlier, which does not answer now (locked, or its service is gone).
    if (!unreachable && inKeychain !== undefined && !this.keychainAvailable) unreachable = keychainUnreachable(this.keychainProblem);
    return unreachable ? { unreachable } : {};
  }

  /** The value, or `undefined` when no store has one. */
  get(key: string): string | undefined {
    return this.read(key).value;
  }

  /** Store a value where {@link store} says; remove older copies elsewhere. Returns where it went. */
  set(key: string, value: string): SecretStoreKind {
    assertKey(key);
    const store = this.store;
    if (store === 'config-file') {
      const unreachable = this.read(key).unreachable;
      if (unreachable) {
        throw new QuireError(ERROR_CODES.USAGE, `The new ${key} of ${this.slug} was not stored: ${unreachable}; open (unlock) the keychain and try again.`);
      }
    }
    if (store === 'env-file') updateEnvFile(this.#paths.envFile, { [envName(this.slug, key)]: value });
    if (store === 'keychain') {
      this.#keychain?.set(keychainAccount(this.slug, key), value);
      this.#withSettings((s) => s.set(`${KEYCHAIN_MARK}${key}`, '1'), true);
    }
    if (store === 'config-file') this.#withSettings((s) => s.set(secretRowKey(key), value), true);
    this.#forget(key, store);
    return store;
  }

  /** Remove the secret from every store. */
  delete(key: string): void {
    assertKey(key);
    this.#forget(key, undefined);
  }

  /** Remove every secret of this plugin: the keys given, and any the host recorded writing. */
  deleteAll(keys: readonly string[]): void {
    const recorded =
      this.#withSettings(
        (s) =>
          Object.keys(s.allRows())
            .filter((k) => k.startsWith(KEYCHAIN_MARK))
            .map((k) => k.slice(KEYCHAIN_MARK.length)),
        false,
      ) ?? [];
    const rowKeys =
      this.#withSettings(
        (s) =>
          Object.keys(s.allRows())
            .filter((k) => k.startsWith(secretRowKey('')))
            .map((k) => k.slice(secretRowKey('').length)),
        false,
      ) ?? [];
    const envPrefix = envName(this.slug, '');
    const envKeys = Object.keys(readEnvFile(this.#paths.envFile))
      .filter((n) => n.startsWith(envPrefix))
      .map((n) => n.slice(envPrefix.length).toLowerCase());
    for (const key of new Set([...keys, ...recorded, ...rowKeys, ...envKeys])) if (SECRET_KEY.test(key)) this.#forget(key, undefined);
  }

  /** Remove the key from every store but `keep`. Keychain failures are ignored: nothing to remove if it cannot be reached. */
  #forget(key: string, keep: SecretStoreKind | undefined): void {
    if (keep !== 'env-file') {
      const name = envName(this.slug, key);
      if (readEnvFile(this.#paths.envFile)[name] !== undefined) updateEnvFile(this.#paths.envFile, { [name]: undefined });
    }
    if (keep !== 'keychain' && this.#keychain && this.keychainAvailable) {
      try {
        this.#keychain.delete(keychainAccount(this.slug, key));
        this.#withSettings((s) => s.delete(`${KEYCHAIN_MARK}${key}`), false);
      } catch {
        // not there, or not reachable
      }
    }
    if (keep !== 'config-file') this.#withSettings((s) => s.delete(secretRowKey(key)), false);
  }
}
