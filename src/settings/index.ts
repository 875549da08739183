/**
 * Settings and secrets: a destination plugin's (or the remote OCR engine's) `config.db`, its
 * secrets in `<APP_DATA>/.env`, the OS keychain or the config-file fallback, and the helpers that
 * read, check and change them. The plugin host and the remote OCR engine both keep theirs here.
 */
export {
  applySettings,
  configField,
  handedConfig,
  missingSettings,
  secretField,
  secretsOf,
  storedSettings,
  unreadableSecrets,
  viewSettings,
  type SettingsDescriptor,
} from './config.js';
export { ensurePrivateDir, ensurePrivateFile, writePrivateFile } from './private.js';
export { resolveSettingsOptions, type ResolvedSettingsOptions, type SettingsOptions } from './options.js';
export { SLUG_PATTERN, settingsPaths, type SettingsPaths } from './paths.js';
export { PluginSecrets, envName, keychainAnswers, keychainState, osKeychain, type Keychain } from './secrets.js';
export { SqliteDatabase, type SqliteDb, type SqliteStatement } from './sqlite-driver.js';
