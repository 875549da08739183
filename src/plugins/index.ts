/**
 * The destination plugin host: discovery, configuration transfer, the registry, the sandboxed
 * runner, and `--send-to`. Settings and secrets are kept by `../settings/`; plugins themselves
 * import only the API module (`../plugin-api/index.ts`, published as `quire/plugin-api`).
 */
export { API_VERSION, CHECK_KIND_LABELS, type BookMeta, type CheckResult, type SendResult } from '../plugin-api/index.js';
export { discoverDestinations, findDestination, type InstalledDestination, type UsableDestination } from './discovery.js';
export { MANIFEST_FILE } from './manifest.js';
export { scanImports } from './imports.js';
export { resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from './options.js';
export { exportSettings, importSettings } from './transfer.js';
export { defaultRegistry, installFromRegistry, installPluginDirectory, installRecord, readRegistry, removePlugin, type RegistryEntry } from './registry.js';
export { checkDestination, checkSendTargets, describeSendOutcome, parseSendTo, sendExports, type SendOutcome } from './send.js';
