/**
 * The destination plugin host: discovery, configuration transfer, the registry, the isolated
 * runner (bubblewrap around Node's permission model), the host's side of a plugin's network, and
 * `--send-to`. Settings and secrets are kept by `../settings/`; plugins themselves import only the
 * API module (`../plugin-api/index.ts`, published as `quire/plugin-api`).
 */
export { API_VERSION, CHECK_KIND_LABELS, type BookMeta, type CheckResult, type SendResult } from '../plugin-api/index.js';
export {
  discoverDestinations,
  findDestination,
  isShippedPlugin,
  matchesShippedPlugin,
  pluginIsolation,
  type InstalledDestination,
  type UsableDestination,
} from './discovery.js';
export { installRecord, type InstallRecord } from './install-record.js';
export { describeIsolation, detectIsolation, type Isolation } from './isolation.js';
export { MANIFEST_FILE } from './manifest.js';
export { scanImports } from './imports.js';
export { resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from './options.js';
export { exportSettings, exportWarnings, importSettings } from './transfer.js';
export {
  defaultRegistry,
  installFromRegistry,
  installPlugin,
  installPluginDirectory,
  readRegistry,
  removePlugin,
  type InstalledPlugin,
  type RegistryEntry,
} from './registry.js';
export { acceptanceOf, listingDigest, pluginDigest, recordAcceptance, trustOf } from './acceptance.js';
export {
  discoverPagePlugins,
  findPagePlugin,
  inspectPagePlugin,
  openPagePlugin,
  readStepOptions,
  unacceptedLine,
  type PagePluginEntry,
} from './page-discovery.js';
export { PAGE_PLUGIN_MEMORY_BYTES, PagePluginSession, type PageFailure, type PagePixels, type ProcessOutcome, type RecognizeOutcome } from './page-session.js';
export { kindDir } from './paths.js';
export type { PagePluginDescriptor } from './sandbox/page-protocol.js';
export {
  checkDestination,
  checkSendTargets,
  describeSendOutcome,
  parseSendTo,
  reachableHosts,
  sendExports,
  type SendOutcome,
  type UnsavedValues,
} from './send.js';
