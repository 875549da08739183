/**
 * A plugin's settings file `<APP_DATA>/plugins/data/<slug>/config.db`: SQLite, one key/value
 * table. Rows whose key starts with `__` are the host's (the plaintext secret fallback lives
 * there) and never show in {@link PluginSettings.all}, which a settings form reads. The file is
 * 0600 in a 0700 folder: it may hold secrets in plain text.
 */
import { dirname } from 'node:path';
import { SqliteDatabase, type SqliteDb } from './sqlite-driver.js';
import { parseFieldValue, type Field, type FieldValue } from '../plugin-api/index.js';
import { ensurePrivateDir, ensurePrivateFile } from './private.js';

const RESERVED_PREFIX = '__';

/** The host-reserved row holding a secret when no keychain is available. */
export function secretRowKey(key: string): string {
  return `${RESERVED_PREFIX}secret__.${key}`;
}

/** One plugin's `config.db`, open. Close it when done (or use {@link withSettings}). */
export class PluginSettings {
  readonly #db: SqliteDb;

  private constructor(db: SqliteDb) {
    this.#db = db;
  }

  /** Open (creating it and its folder when `create`) the settings file at `path`; `undefined` when it does not exist and `create` is false. */
  static open(path: string, create = true): PluginSettings {
    if (create) {
      // `plugins/data/` and `plugins/data/<slug>/` both private, the file created 0600 before SQLite opens it.
      ensurePrivateDir(dirname(dirname(path)));
      ensurePrivateDir(dirname(path));
    }
    ensurePrivateFile(path, create);
    const db = new SqliteDatabase(path, { fileMustExist: !create });
    db.pragma('journal_mode = DELETE'); // one file, nothing left beside it
    db.exec('CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    return new PluginSettings(db);
  }

  get(key: string): string | undefined {
    const row = this.#db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  set(key: string, value: string): void {
    this.#db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  delete(key: string): void {
    this.#db.prepare('DELETE FROM settings WHERE key = ?').run(key);
  }

  /** Every setting the plugin's form may show: host-reserved rows are hidden. */
  all(): Record<string, string> {
    const rows = this.#db.prepare('SELECT key, value FROM settings ORDER BY key').all() as Array<{ key: string; value: string }>;
    return Object.fromEntries(rows.filter((r) => !r.key.startsWith(RESERVED_PREFIX)).map((r) => [r.key, r.value]));
  }

  /** Every row, the host's included: for the host only, never for a settings form. */
  allRows(): Record<string, string> {
    const rows = this.#db.prepare('SELECT key, value FROM settings ORDER BY key').all() as Array<{ key: string; value: string }>;
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  close(): void {
    this.#db.close();
  }
}

/** Run `fn` with the settings file open, and close it whatever happens. */
export function withSettings<T>(path: string, fn: (settings: PluginSettings) => T): T {
  const settings = PluginSettings.open(path);
  try {
    return fn(settings);
  } finally {
    settings.close();
  }
}

/**
 * The stored settings read as their fields' kinds, for handing to the plugin. A stored text that
 * no longer fits its field (the plugin changed the kind) is left out, so `conf()` reads the
 * default; rows for keys the plugin does not declare are left out too.
 */
export function typedSettings(fields: readonly Field[], stored: Readonly<Record<string, string>>): Record<string, FieldValue> {
  const typed: Record<string, FieldValue> = {};
  for (const field of fields) {
    const text = stored[field.id];
    if (text === undefined) continue;
    try {
      typed[field.id] = parseFieldValue(field, text);
    } catch {
      // kept unset: the default applies
    }
  }
  return typed;
}
