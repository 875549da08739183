/**
 * The destination plugin host: discovery, settings and secrets, configuration transfer, the
 * registry, the sandboxed runner, and `--send-to`. Plugins themselves import only the API
 * module (`./api/index.ts`, published as `quire/plugin-api`).
 */
export { API_VERSION } from './api/version.js';
export type { BookMeta } from './api/meta.js';
export type { CheckResult, SendResult, CheckKind } from './api/results.js';
export { CHECK_KIND_LABELS } from './api/results.js';
export type { Field } from './api/fields.js';
export { discoverDestinations, findDestination, type InstalledDestination, type RefusedDestination, type UsableDestination } from './discovery.js';
export { MANIFEST_FILE, SLUG_PATTERN, parseManifest, type PluginManifest } from './manifest.js';
export { ALLOWED_BUILTINS, PLUGIN_API_SPECIFIER, scanImports } from './imports.js';
export { resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from './options.js';
export { pluginPaths, destinationsDir } from './paths.js';
export { applySettings, missingSettings, secretsOf, viewSettings, type SettingView } from './config.js';
export { KEYCHAIN_SERVICE, KEY_SEPARATOR, PluginSecrets, envName, keychainAccount, keychainAnswers, osKeychain, type Keychain } from './secrets.js';
export { exportSettings, importSettings, readBundle, type ExportReport, type ImportReport, type SettingsBundle } from './transfer.js';
export {
  defaultRegistry,
  installFromRegistry,
  installPluginDirectory,
  installRecord,
  readRegistry,
  removePlugin,
  type InstallRecord,
  type RegistryEntry,
  type RegistryIndex,
} from './registry.js';
export { checkDestination, checkSendTargets, describeSendOutcome, parseSendTo, sendExports, setupCommand, type SendOutcome } from './send.js';
export type { DestinationDescriptor } from './sandbox/protocol.js';
