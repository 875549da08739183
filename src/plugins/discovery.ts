/**
 * Finding installed destinations: `<APP_DATA>/plugins/destinations/<slug>/`. Each directory is
 * checked before any of its code runs (manifest, slug = directory name, API number, entry file,
 * imports), then loaded once in the sandbox to read what it says about itself. A plugin that
 * fails any step is listed with the reason and skipped; it never stops the host.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { Field as makeField, type Field } from '../plugin-api/index.js';
import { MANIFEST_FILE, ManifestError, parseManifest, type PluginManifest } from './manifest.js';
import { scanImports } from './imports.js';
import { resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from './options.js';
import { destinationsDir, pluginPaths } from './paths.js';
import { runInSandbox, type LoadablePlugin, type SandboxOutcome } from './sandbox.js';
import type { DestinationDescriptor } from './sandbox/protocol.js';

/** The largest plugin module we read (one module; anything bigger is not a destination). */
const MAX_MODULE_BYTES = 2 * 1024 * 1024;

/** A destination that can be used. */
export interface UsableDestination {
  state: 'usable';
  slug: string;
  dir: string;
  manifest: PluginManifest;
  descriptor: DestinationDescriptor;
  plugin: LoadablePlugin;
}

/** A directory that is not a usable destination, and why. */
export interface RefusedDestination {
  state: 'refused';
  slug: string;
  dir: string;
  /** Completes "refused: …" for the user. */
  reason: string;
  detail: string;
  manifest?: PluginManifest;
}

export type InstalledDestination = UsableDestination | RefusedDestination;

/** Why a plugin cannot be used, as found by the checks. */
export class PluginRefused extends Error {
  readonly detail: string;
  readonly manifest?: PluginManifest;
  constructor(reason: string, detail = '', manifest?: PluginManifest) {
    super(reason);
    this.name = 'PluginRefused';
    this.detail = detail;
    this.manifest = manifest;
  }
}

/** The static checks: manifest, entry file, imports. Nothing of the plugin runs. */
export function readPluginCode(dir: string, directoryName = basename(dir)): { manifest: PluginManifest; plugin: LoadablePlugin } {
  const manifestPath = join(dir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) throw new PluginRefused(`it has no ${MANIFEST_FILE}`);
  let manifest: PluginManifest;
  try {
    manifest = parseManifest(readFileSync(manifestPath, 'utf8'), directoryName);
  } catch (e) {
    if (e instanceof ManifestError) throw new PluginRefused(e.message, e.detail);
    throw e;
  }
  const entry = join(dir, manifest.entry);
  const realDir = realpathSync(dir);
  if (!existsSync(entry)) throw new PluginRefused(`its entry ${manifest.entry} is missing`, '', manifest);
  // The entry must be a plain file inside the plugin's own directory: a symlink out is refused.
  if (lstatSync(entry).isSymbolicLink() || !realpathSync(entry).startsWith(realDir + sep) || !statSync(entry).isFile()) {
    throw new PluginRefused(`its entry ${manifest.entry} is not a file inside its own directory`, '', manifest);
  }
  if (statSync(entry).size > MAX_MODULE_BYTES) throw new PluginRefused(`its entry ${manifest.entry} is larger than ${MAX_MODULE_BYTES / 1024 / 1024} MB`, '', manifest);
  const source = readFileSync(entry, 'utf8');
  const scan = scanImports(source);
  if (scan.problems.length > 0) throw new PluginRefused(scan.problems[0], scan.problems.join('; '), manifest);
  return { manifest, plugin: { slug: manifest.slug, codeDir: realDir, source, imports: scan.imports } };
}

/** Check what the plugin said about itself, as the host: rebuild each Field through its checks. */
export function checkDescriptor(raw: DestinationDescriptor): DestinationDescriptor {
  const rebuild = (f: Field, secret: boolean): Field => {
    const field = makeField(f.id, f.label, f.kind, f.default, { required: f.required, choices: f.choices, help: f.help, multiline: f.multiline });
    if (secret !== (field.kind === 'secret')) {
      throw new TypeError(secret ? `its SECRET_FIELDS holds "${f.id}", which is not a secret field` : `its CONFIG_FIELDS holds "${f.id}", a secret field`);
    }
    return field;
  };
  const configFields = raw.configFields.map((f) => rebuild(f, false));
  const secretFields = raw.secretFields.map((f) => rebuild(f, true));
  const ids = [...configFields, ...secretFields].map((f) => f.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw new TypeError(`it declares the setting "${twice}" twice`);
  return { ...raw, accepts: [...raw.accepts], configFields, secretFields };
}

/** The user's words for a child that did not answer as hoped. */
export function outcomeReason(outcome: SandboxOutcome): { reason: string; detail: string } {
  switch (outcome.type) {
    case 'failed':
      if (outcome.sandbox) return { reason: 'it tried to reach something outside its sandbox while loading', detail: outcome.detail };
      if (outcome.stage === 'load') {
        return { reason: outcome.detail.startsWith('SyntaxError') ? 'its module is not valid JavaScript' : 'it throws when it loads', detail: outcome.detail };
      }
      return { reason: outcome.message, detail: outcome.detail };
    case 'crashed':
    case 'timeout':
      return { reason: outcome.message, detail: outcome.detail };
    default:
      return { reason: 'it answered something Quire does not understand', detail: JSON.stringify(outcome).slice(0, 500) };
  }
}

/**
 * Check one plugin directory completely: the static checks, then a load in the sandbox to read
 * its description. `filesDir` is where that load may write (the plugin's own `files/`).
 */
export async function inspectPluginDir(dir: string, filesDir: string, host: ResolvedHostOptions, directoryName = basename(dir)): Promise<InstalledDestination> {
  let code: ReturnType<typeof readPluginCode>;
  try {
    code = readPluginCode(dir, directoryName);
  } catch (e) {
    if (e instanceof PluginRefused) return { state: 'refused', slug: directoryName, dir, reason: e.message, detail: e.detail, ...(e.manifest ? { manifest: e.manifest } : {}) };
    return { state: 'refused', slug: directoryName, dir, reason: 'its files could not be read', detail: e instanceof Error ? e.message : String(e) };
  }
  const outcome = await runInSandbox({
    op: 'describe',
    plugin: code.plugin,
    filesDir,
    timeoutMs: host.timeouts.describe,
    onLog: (line) => host.onLog(directoryName, line),
  });
  if (outcome.type !== 'described') return { state: 'refused', slug: directoryName, dir, manifest: code.manifest, ...outcomeReason(outcome) };
  try {
    const descriptor = checkDescriptor(outcome.descriptor);
    return { state: 'usable', slug: directoryName, dir, manifest: code.manifest, descriptor, plugin: code.plugin };
  } catch (e) {
    return { state: 'refused', slug: directoryName, dir, manifest: code.manifest, reason: e instanceof Error ? e.message : String(e), detail: '' };
  }
}

/** Every directory under `<APP_DATA>/plugins/destinations/`, checked, sorted by slug. */
export async function discoverDestinations(options: PluginHostOptions = {}): Promise<InstalledDestination[]> {
  const host = resolveHostOptions(options);
  const root = destinationsDir(host.appData);
  if (!existsSync(root)) return [];
  const names = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => d.name)
    .sort();
  const found: InstalledDestination[] = [];
  for (const name of names) found.push(await inspectPluginDir(join(root, name), pluginPaths(name, host.appData).filesDir, host));
  return found;
}

/** One installed destination by slug, checked; `undefined` when not installed. */
export async function findDestination(slug: string, options: PluginHostOptions = {}): Promise<InstalledDestination | undefined> {
  const host = resolveHostOptions(options);
  const dir = join(destinationsDir(host.appData), slug);
  if (!/^[a-z0-9-]+$/.test(slug) || !existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
  return inspectPluginDir(dir, pluginPaths(slug, host.appData).filesDir, host);
}
