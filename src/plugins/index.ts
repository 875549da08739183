/**
 * The destination plugin host: discovery, configuration transfer, the registry, the isolated
 * runner (bubblewrap around Node's permission model), the host's side of a plugin's network, and
 * `--send-to`. Settings and secrets are kept by `../settings/`; plugins themselves import only the
 * API module (`../plugin-api/index.ts`, published as `quire/plugin-api`).
 */
export { API_VERSION, CHECK_KIND_LABELS, type BookMeta, type CheckResult, type SendResult } from '../plugin-api/index.js';
export { discoverDestinations, findDestination, isShippedPlugin, matchesShippedPlugin, pluginIsolation, type InstalledDestination, type UsableDestination } from './discovery.js';
export { installRecord, type InstallRecord } from './install-record.js';
export { describeIsolation, detectIsolation, type Isolation } from './isolation.js';
export { MANIFEST_FILE } from './manifest.js';
export { scanImports } from './imports.js';
export { resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from './options.js';
export { exportSettings, exportWarnings, importSettings } from './transfer.js';
export { defaultRegistry, installFromRegistry, installPluginDirectory, readRegistry, removePlugin, type RegistryEntry } from './registry.js';
export { checkDestination, checkSendTargets, describeSendOutcome, parseSendTo, reachableHosts, sendExports, type SendOutcome, type UnsavedValues } from './send.js';
