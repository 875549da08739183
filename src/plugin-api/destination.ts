import { missingFieldLabels, parseHeaderLines, type Field, type FieldValue } from './fields.js';
import type { BookMeta } from './meta.js';
import type { CheckResult, SendResult } from './results.js';

/**
 * Where this destination's secrets are kept, as the host found it:
 * `keychain` the OS keychain (Secret Service, macOS Keychain, Windows Credential Manager);
 * `config-file` no keychain could be reached, so they sit in the plugin's own `config.db`;
 * `env-file` the headless plaintext store `<APP_DATA>/.env` (mode 0600) the CLI writes to.
 *
 * @since API 1
 */
export type SecretStoreKind = 'keychain' | 'config-file' | 'env-file';

/**
 * What a destination instance knows about its surroundings. Built by the host; read-only.
 *
 * @since API 1
 */
export interface DestinationContext {
  /** The plugin's slug (its directory name). */
  readonly slug: string;
  /**
   * The plugin's scratch directory, `<APP_DATA>/plugins/data/<slug>/files/`: the only place it
   * may write. Kept between sends; removed with the plugin.
   */
  readonly dataDir: string;
  /** Whether secrets are in the OS keychain (`available` true) or in a fallback store (`store` says which). */
  readonly secrets: { readonly available: boolean; readonly store: SecretStoreKind };
  /** Write one line to the host's log (shown with `QUIRE_DEBUG`). Never pass a secret. */
  log(line: string): void;
}

/**
 * Everything the host hands a destination when it constructs it in the sandbox. Plugin code
 * passes it on to `super(init)` unchanged and never builds one itself (tests may).
 *
 * @since API 1
 */
export interface DestinationInit {
  /** The plugin's slug. */
  readonly slug: string;
  /** The plugin's `files/` directory; see {@link DestinationContext.dataDir}. */
  readonly dataDir: string;
  /** Stored settings, already read as their field's kind. Unset ones are absent. */
  readonly settings: Readonly<Record<string, FieldValue>>;
  /** This plugin's own secrets that have a value; nobody else's. */
  readonly secrets: Readonly<Record<string, string>>;
  /** Where the secrets came from. */
  readonly secretStore: SecretStoreKind;
  /** Where {@link DestinationContext.log} lines go; default nowhere. */
  readonly log?: (line: string) => void;
}

/**
 * The base class of every destination: a place a finished export goes.
 *
 * A plugin subclasses it, sets the descriptive fields, implements {@link check} and {@link send},
 * and registers the class with {@link registerDestination}:
 *
 * ```js
 * import { Destination, Field, CheckResult, SendResult, registerDestination } from 'quire/plugin-api';
 *
 * class SendToShelf extends Destination {
 *   name = 'send-to-shelf';
 *   display = 'Send to shelf';
 *   description = 'Copies the book to a shelf server.';
 *   accepts = ['pdf', 'md'];
 *   CONFIG_FIELDS = [Field('base_url', 'Server address', 'str', '', { required: true })];
 *   SECRET_FIELDS = [Field('token', 'Access token', 'secret', '', { required: true })];
 *   async check() { … return CheckResult.passed('The shelf server accepts this token.'); }
 *   async send(path, meta) { … return SendResult.sent(`"${meta.title}" is on the shelf.`); }
 * }
 * registerDestination(SendToShelf);
 * ```
 *
 * **Where it runs.** Never in the host process: each check or send starts a child Node process,
 * isolated by bubblewrap (its own PID and network namespaces, a read-only view) where the system
 * has it and by Node's permission model, constructs the class there with its settings and its own
 * secrets (handed over IPC), calls one method, and exits. The child may read its own code and the
 * staged file, and write only {@link DestinationContext.dataDir}; it cannot start processes or
 * workers, load native addons, signal processes or use the network modules, and it never sees the
 * keychain, `config.db` or another plugin's data. It has no network of its own: the HTTP and mail
 * helpers ask the host, which makes the request when the manifest declares `network = true` and
 * only to a host the plugin's settings name.
 *
 * **What it may import.** Only `quire/plugin-api` and harmless Node built-ins (`node:fs`,
 * `node:path`, `node:crypto`, `node:buffer`, `node:url`, `node:util`, `node:stream`, …),
 * checked before the module is loaded.
 *
 * @since API 1
 */
export abstract class Destination {
  /** Registry key; must equal the plugin's slug. @since API 1 */
  abstract readonly name: string;
  /** Menu label ("Send to library"). @since API 1 */
  abstract readonly display: string;
  /** One line saying where the file goes. @since API 1 */
  abstract readonly description: string;
  /** Export formats it can take (`pdf`, `md`, `txt`, `textpack`, …); the host only hands it those. @since API 1 */
  abstract readonly accepts: readonly string[];
  /** Ordinary settings, kept in the plugin's `config.db`. No `secret` kind here. @since API 1 */
  abstract readonly CONFIG_FIELDS: readonly Field[];
  /** Credentials, kept in the OS keychain; every one of kind `secret`. @since API 1 */
  abstract readonly SECRET_FIELDS: readonly Field[];

  /** Where it runs and what it may touch. @since API 1 */
  readonly ctx: DestinationContext;
  readonly #settings: Readonly<Record<string, FieldValue>>;
  readonly #secrets: Readonly<Record<string, string>>;

  /** Called by the host in the sandbox; a subclass constructor must pass `init` to `super`. @since API 1 */
  constructor(init: DestinationInit) {
    this.#settings = Object.freeze({ ...init.settings });
    this.#secrets = Object.freeze({ ...init.secrets });
    const log = init.log ?? ((): void => undefined);
    this.ctx = Object.freeze({
      slug: init.slug,
      dataDir: init.dataDir,
      secrets: Object.freeze({ available: init.secretStore === 'keychain', store: init.secretStore }),
      log,
    });
  }

  /**
   * Prove the configuration works without sending a document: reach the server, sign in, and
   * confirm the permission a send needs. Check settings first ({@link missingSettings}) and
   * answer `CONFIG` before any I/O. Runs in the sandbox; never throws on purpose (a throw is
   * reported as `UNKNOWN`).
   *
   * @since API 1
   */
  abstract check(): Promise<CheckResult>;

  /**
   * Send one file. `path` is a private staged copy named as the export would be named
   * (`My Book.pdf`); the host deletes it afterwards whatever happens. Only formats in
   * {@link accepts} arrive. Settings are checked before any I/O (`CONFIG`). Report a document
   * the destination already has as `SendResult.alreadyThere`. Runs in the sandbox; a throw is
   * reported as a failed send of kind `UNKNOWN`.
   *
   * @param path - absolute path of the staged file.
   * @param meta - the document's metadata.
   * @since API 1
   */
  abstract send(path: string, meta: BookMeta): Promise<SendResult>;

  /**
   * Read a setting, falling back to the field's declared default when unset, so a fresh install
   * reads a real value (587 for an SMTP port). `int` fields read as numbers, `bool` as booleans,
   * the others as text. Throws for a key not in {@link CONFIG_FIELDS} (a typo in the plugin).
   *
   * @since API 1
   */
  conf(key: string): FieldValue {
    const field = this.CONFIG_FIELDS.find((f) => f.id === key);
    if (!field) throw new RangeError(`${this.ctx.slug}: "${key}" is not one of its CONFIG_FIELDS`);
    return this.#settings[key] ?? field.default;
  }

  /**
   * Read a credential of this plugin; `undefined` when it has no value. Throws for a key not in
   * {@link SECRET_FIELDS}. Only this plugin's own secrets were handed to the sandbox.
   *
   * @since API 1
   */
  secret(key: string): string | undefined {
    if (!this.SECRET_FIELDS.some((f) => f.id === key)) throw new RangeError(`${this.ctx.slug}: "${key}" is not one of its SECRET_FIELDS`);
    const value = this.#secrets[key];
    return value === undefined || value === '' ? undefined : value;
  }

  /**
   * Labels of the required settings and secrets that are still empty; `[]` when the destination
   * is set up. Use it first in `check` and `send` to answer `CONFIG` before any I/O.
   *
   * @since API 1
   */
  missingSettings(): string[] {
    return missingFieldLabels(this.CONFIG_FIELDS, this.SECRET_FIELDS, this.#settings, (id) => this.secret(id) !== undefined);
  }

  /**
   * The extra headers of the `headers` setting (see {@link headersField}), parsed; `{}` when the
   * destination declares no such field or it is empty. Throws a `TypeError` naming the bad line.
   *
   * @since API 1
   */
  extraHeaders(): Record<string, string> {
    if (!this.CONFIG_FIELDS.some((f) => f.id === 'headers')) return {};
    return parseHeaderLines(String(this.conf('headers')));
  }
}

/**
 * A class that extends {@link Destination} and can be constructed by the host.
 *
 * @since API 1
 */
export type DestinationClass = new (init: DestinationInit) => Destination;

/**
 * Where {@link registerDestination} puts a plugin's class. The sandbox runner and the plugin both
 * reach it through the API module (`index.ts`, which the plugin imports as `quire/plugin-api`), so
 * they share one instance in the child process.
 */
const registered: DestinationClass[] = [];

/** The classes registered so far in this process: for the host's sandbox runner; a plugin has no use for it. */
export function registeredDestinations(): readonly DestinationClass[] {
  return [...registered];
}

/**
 * Register a destination class so the host finds it when it loads the plugin's module. Use it
 * as a call after the class (`registerDestination(SendToShelf)`) or, in TypeScript, as a class
 * decorator (`@registerDestination`). A module registers exactly one destination, whose `name`
 * equals the plugin's slug. Returns the class unchanged.
 *
 * @since API 1
 */
export function registerDestination<T extends DestinationClass>(cls: T, _context?: unknown): T {
  if (typeof cls !== 'function' || !(cls.prototype instanceof Destination)) {
    throw new TypeError('registerDestination takes a class that extends Destination');
  }
  if (!registered.includes(cls)) registered.push(cls);
  return cls;
}
