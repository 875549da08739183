/**
 * Finding installed destinations: `<APP_DATA>/plugins/destinations/<slug>/`. Each directory is
 * checked before any of its code runs (plain files only, manifest, slug = directory name, API
 * number, entry file, imports), then loaded once in an isolated child to read what it says about
 * itself. A plugin that fails any step — refused by the checks, crashing, hanging past the load
 * timeout, or reaching outside its sandbox while loading — is listed with the reason and skipped;
 * it never stops the host. Where plugins cannot be isolated, only first-party plugins (and those
 * the user allowed with `--allow-unisolated`) are loaded at all.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { Field as makeField, formatBytes, type Field } from '../plugin-api/index.js';
import { fileSha256, pluginFiles } from './acceptance.js';
import { installRecord } from './install-record.js';
import { detectIsolation, type Isolation } from './isolation.js';
import { MANIFEST_FILE, ManifestError, parseManifest, type PluginManifest } from './manifest.js';
import { scanImports } from './imports.js';
import { resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from './options.js';
import { destinationsDir, installedFolder, installedFolders, pluginPaths } from './paths.js';
import { runInSandbox, type LoadablePlugin, type SandboxOutcome } from './sandbox.js';
import type { DestinationDescriptor } from './sandbox/protocol.js';

/** The files of the first-party plugins shipped with this Quire (`registry/index.json` beside `src/`): slug → path → sha256. */
let shipped: Map<string, Map<string, string>> | undefined;

function shippedPlugins(): Map<string, Map<string, string>> {
  if (shipped) return shipped;
  shipped = new Map();
  try {
    const index = JSON.parse(readFileSync(new URL('../../registry/index.json', import.meta.url), 'utf8')) as {
      [list: string]: Array<{ slug?: string; first_party?: boolean; files?: Array<{ path?: string; sha256?: string }> }> | undefined;
    };
    for (const entry of [...(index.destinations ?? []), ...(index.processors ?? []), ...(index.ocr ?? [])]) {
      if (typeof entry.slug !== 'string' || entry.first_party !== true) continue;
      shipped.set(entry.slug, new Map((entry.files ?? []).map((f) => [String(f.path), String(f.sha256)])));
    }
  } catch {
    // no shipped registry: nothing counts as first-party code
  }
  return shipped;
}

/**
 * True when the plugin in `dir` is, byte for byte, the first-party plugin `slug` shipped with this
 * Quire: what may run where plugins cannot be isolated. A registry's `first_party` label alone is
 * not enough, since any registry can claim it.
 */
export function isShippedPlugin(dir: string, slug: string): boolean {
  const expected = shippedPlugins().get(slug);
  if (!expected) return false;
  const files = pluginFiles(dir);
  if (files.length !== expected.size) return false;
  return files.every((file) => expected.get(file) === fileSha256(dir, file));
}

/** True when a registry entry's files (path and sha256) are exactly those of the first-party plugin `slug` shipped with Quire. */
export function matchesShippedPlugin(slug: string, files: ReadonlyArray<{ path: string; sha256: string }>): boolean {
  const expected = shippedPlugins().get(slug);
  return expected !== undefined && files.length === expected.size && files.every((f) => expected.get(f.path) === f.sha256);
}

/** The largest number of files and folders a plugin directory may hold. */
const MAX_ENTRIES = 500;

/** Refuse a symbolic link (or a device, a socket, …) anywhere in a plugin directory, before reading any of it. */
function checkPlainFiles(dir: string): void {
  let count = 0;
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      count += 1;
      if (count > MAX_ENTRIES) throw new PluginRefused(`it holds more than ${MAX_ENTRIES} files`);
      const path = join(at, entry.name);
      const where = relative(dir, path);
      if (entry.isSymbolicLink()) throw new PluginRefused(`it holds a symbolic link (${where}); a plugin is plain files`);
      if (entry.isDirectory()) walk(path);
      else if (!entry.isFile()) throw new PluginRefused(`it holds ${where}, which is not a plain file`);
    }
  };
  walk(dir);
}

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
  /** How its processes are isolated on this machine. */
  isolation: Isolation;
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
  if (lstatSync(dir).isSymbolicLink()) throw new PluginRefused('its folder is a symbolic link to somewhere else; a plugin is plain files in its own folder');
  checkPlainFiles(dir);
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
  if (statSync(entry).size > MAX_MODULE_BYTES)
    throw new PluginRefused(`its entry ${manifest.entry} is larger than ${formatBytes(MAX_MODULE_BYTES)}`, '', manifest);
  const source = readFileSync(entry, 'utf8');
  const scan = scanImports(source);
  if (scan.problems.length > 0) throw new PluginRefused(scan.problems[0], scan.problems.join('; '), manifest);
  return { manifest, plugin: { slug: manifest.slug, codeDir: realDir, source, imports: scan.imports } };
}

/** The declared `min`/`max` of a field as the plugin sent it (a number, or absent). */
function bounds(f: Field): { min?: number; max?: number } {
  return { ...(typeof f.min === 'number' ? { min: f.min } : {}), ...(typeof f.max === 'number' ? { max: f.max } : {}) };
}

/** Check what the plugin said about itself, as the host: rebuild each Field through its checks. */
export function checkDescriptor(raw: DestinationDescriptor): DestinationDescriptor {
  const rebuild = (f: Field, secret: boolean): Field => {
    const field = makeField(f.id, f.label, f.kind, f.default, { required: f.required, choices: f.choices, help: f.help, multiline: f.multiline, ...bounds(f) });
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
 * Where plugins cannot be isolated, whether this one may run anyway: first-party code shipped with
 * Quire, or a plugin the user installed (or is installing) with `--allow-unisolated`.
 */
export function mayRunUnisolated(dir: string, slug: string, host: ResolvedHostOptions): boolean {
  return host.allowUnisolated || installRecord(slug, host.appData)?.allow_unisolated === true || isShippedPlugin(dir, slug);
}

/**
 * Check one plugin directory completely: the static checks, then a load in an isolated child to
 * read its description. `filesDir` is where that load may write (the plugin's own `files/`).
 */
export async function inspectPluginDir(dir: string, filesDir: string, host: ResolvedHostOptions, directoryName = basename(dir)): Promise<InstalledDestination> {
  let code: ReturnType<typeof readPluginCode>;
  try {
    code = readPluginCode(dir, directoryName);
  } catch (e) {
    if (e instanceof PluginRefused)
      return { state: 'refused', slug: directoryName, dir, reason: e.message, detail: e.detail, ...(e.manifest ? { manifest: e.manifest } : {}) };
    return { state: 'refused', slug: directoryName, dir, reason: 'its files could not be read', detail: e instanceof Error ? e.message : String(e) };
  }
  if (code.manifest.kind !== 'destination') {
    return {
      state: 'refused',
      slug: directoryName,
      dir,
      manifest: code.manifest,
      reason: `it is a${code.manifest.kind === 'ocr' ? 'n OCR engine' : ' processor'} plugin, not a destination`,
      detail: '',
    };
  }
  const isolation = await detectIsolation(host.bwrap);
  if (isolation.level === 'partial' && !mayRunUnisolated(dir, directoryName, host)) {
    return {
      state: 'refused',
      slug: directoryName,
      dir,
      manifest: code.manifest,
      reason: 'it cannot be isolated on this system, and only first-party plugins run without isolation; to run it anyway, install it with --allow-unisolated',
      detail: isolation.summary,
    };
  }
  const outcome = await runInSandbox({
    op: 'describe',
    plugin: code.plugin,
    filesDir,
    isolation,
    display: code.manifest.name,
    timeoutMs: host.timeouts.describe,
    onLog: (line) => host.onLog(directoryName, line),
  });
  if (outcome.type !== 'described' || outcome.refused.length > 0) {
    const why =
      outcome.refused.length > 0
        ? { reason: 'it tried to reach something outside its sandbox while loading', detail: outcome.refused.join('; ') }
        : outcomeReason(outcome);
    return { state: 'refused', slug: directoryName, dir, manifest: code.manifest, ...why };
  }
  try {
    const descriptor = checkDescriptor(outcome.descriptor);
    return { state: 'usable', slug: directoryName, dir, manifest: code.manifest, descriptor, plugin: code.plugin, isolation };
  } catch (e) {
    return { state: 'refused', slug: directoryName, dir, manifest: code.manifest, reason: e instanceof Error ? e.message : String(e), detail: '' };
  }
}

/** Every directory under `<APP_DATA>/plugins/destinations/`, checked, sorted by slug. */
export async function discoverDestinations(options: PluginHostOptions = {}): Promise<InstalledDestination[]> {
  const host = resolveHostOptions(options);
  const root = destinationsDir(host.appData);
  const found: InstalledDestination[] = [];
  for (const name of installedFolders(root)) found.push(await inspectPluginDir(join(root, name), pluginPaths(name, host.appData).filesDir, host));
  return found;
}

/** One installed destination by slug, checked; `undefined` when not installed. */
export async function findDestination(slug: string, options: PluginHostOptions = {}): Promise<InstalledDestination | undefined> {
  const host = resolveHostOptions(options);
  const dir = installedFolder(destinationsDir(host.appData), slug);
  if (dir === undefined) return undefined;
  return inspectPluginDir(dir, pluginPaths(slug, host.appData).filesDir, host);
}

/** How plugins are isolated on this machine, with these options. */
export function pluginIsolation(options: PluginHostOptions = {}): Promise<Isolation> {
  return detectIsolation(resolveHostOptions(options).bwrap);
}
