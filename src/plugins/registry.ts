/**
 * The plugin registry: an `index.json` listing destinations with the sha256 of every file, in a
 * directory or at a URL (default: this repository's own `registry/`). Installing verifies every
 * file against the index, then goes through {@link installPluginDirectory}, the same path a
 * third-party plugin directory takes. Nothing in the registry is active until installed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordAcceptance } from './acceptance.js';
import { inspectPluginDir, readPluginCode, type UsableDestination } from './discovery.js';
import { inspectPagePlugin, type PagePluginEntry } from './page-discovery.js';
import { installRecord, writeInstallRecord, type InstallRecord } from './install-record.js';
import { PLUGIN_ERRORS, pluginError } from './errors.js';
import { type PluginHostOptions, type ResolvedHostOptions, resolveHostOptions } from './options.js';
import { destinationsDir, kindDir, pluginPaths } from './paths.js';
import { ensurePrivateDir, secretsOf, SLUG_PATTERN } from '../settings/index.js';

export const REGISTRY_FORMAT = 'quire-plugin-registry';

/** One file of a registry entry. */
export interface RegistryFile {
  /** Relative to the entry's folder; a plain name or `sub/name`, never `..`. */
  path: string;
  sha256: string;
  size: number;
}

/** One destination the registry offers. */
export interface RegistryEntry {
  slug: string;
  name: string;
  version: string;
  description: string;
  /** The plugin API number it needs. */
  api: number;
  /** Written by the makers of Quire; still installed through the same path as any other. */
  first_party: boolean;
  /** Its folder, relative to the registry root (`destinations/send-to-library`). */
  path: string;
  files: RegistryFile[];
}

/** `index.json`. */
export interface RegistryIndex {
  format: typeof REGISTRY_FORMAT;
  version: 1;
  destinations: RegistryEntry[];
  /** Pipeline step plugins (`processors/<slug>`). */
  processors: RegistryEntry[];
  /** OCR engine plugins (`ocr/<slug>`). */
  ocr: RegistryEntry[];
}

/** This repository's `registry/` folder (beside `src/` and `dist/`). */
export function defaultRegistry(): string {
  return fileURLToPath(new URL('../../registry/', import.meta.url));
}

function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/** Read a file of the registry: from disk, or over HTTP. */
async function fetchRegistryFile(location: string, relative: string): Promise<Buffer> {
  if (isUrl(location)) {
    const url = new URL(relative.split('/').map(encodeURIComponent).join('/'), location.endsWith('/') ? location : `${location}/`);
    let response: Response;
    try {
      response = await fetch(url);
    } catch (e) {
      throw pluginError(PLUGIN_ERRORS.REGISTRY, `The plugin registry at ${location} cannot be reached.`, e instanceof Error ? e.message : String(e));
    }
    if (!response.ok) throw pluginError(PLUGIN_ERRORS.REGISTRY, `The plugin registry at ${location} has no ${relative}.`, `HTTP ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  }
  const path = join(location, ...relative.split('/'));
  if (!existsSync(path)) throw pluginError(PLUGIN_ERRORS.REGISTRY, `The plugin registry at ${location} has no ${relative}.`);
  return readFileSync(path);
}

const SAFE_PATH = /^(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

function checkEntry(e: unknown, location: string): RegistryEntry {
  const entry = e as Partial<RegistryEntry> | null;
  const bad = (why: string): never => {
    throw pluginError(PLUGIN_ERRORS.REGISTRY, `The plugin registry at ${location} has an entry Quire cannot use (${why}).`);
  };
  if (!entry || typeof entry.slug !== 'string' || !SLUG_PATTERN.test(entry.slug)) return bad('no valid slug');
  if (typeof entry.path !== 'string' || !SAFE_PATH.test(entry.path)) return bad(`${entry.slug}: its path`);
  if (!Array.isArray(entry.files) || entry.files.length === 0) return bad(`${entry.slug}: no files`);
  for (const f of entry.files) {
    if (
      typeof f?.path !== 'string' ||
      !SAFE_PATH.test(f.path) ||
      typeof f.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(f.sha256) ||
      typeof f.size !== 'number'
    ) {
      return bad(`${entry.slug}: a file entry`);
    }
  }
  return {
    slug: entry.slug,
    name: typeof entry.name === 'string' ? entry.name : entry.slug,
    version: typeof entry.version === 'string' ? entry.version : '',
    description: typeof entry.description === 'string' ? entry.description : '',
    api: typeof entry.api === 'number' ? entry.api : 0,
    first_party: entry.first_party === true,
    path: entry.path,
    files: entry.files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size })),
  };
}

/** Read and check a registry's `index.json`. */
export async function readRegistry(location: string = defaultRegistry()): Promise<RegistryIndex> {
  const text = (await fetchRegistryFile(location, 'index.json')).toString('utf8');
  let raw: Partial<RegistryIndex>;
  try {
    raw = JSON.parse(text) as Partial<RegistryIndex>;
  } catch (e) {
    throw pluginError(
      PLUGIN_ERRORS.REGISTRY,
      `The plugin registry at ${location} has an index.json that is not JSON.`,
      e instanceof Error ? e.message : String(e),
    );
  }
  if (raw.format !== REGISTRY_FORMAT || raw.version !== 1 || !Array.isArray(raw.destinations)) {
    throw pluginError(PLUGIN_ERRORS.REGISTRY, `${location} is not a Quire plugin registry.`);
  }
  const list = (entries: unknown): RegistryEntry[] => (Array.isArray(entries) ? entries.map((e) => checkEntry(e, location)) : []);
  return { format: REGISTRY_FORMAT, version: 1, destinations: list(raw.destinations), processors: list(raw.processors), ocr: list(raw.ocr) };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A fresh private folder under `<APP_DATA>/plugins/` for a plugin on its way in. */
function incomingDir(host: ResolvedHostOptions): string {
  const dir = join(host.appData, 'plugins', `.incoming-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * Install a plugin directory: the path every plugin takes, from the registry or not. The
 * directory's name must be the manifest's slug. Its files are copied into a staging folder,
 * checked exactly as discovery checks an installed plugin (manifest, API number, imports, a
 * sandboxed load), and only then moved into `<APP_DATA>/plugins/destinations/<slug>/`,
 * replacing an older version. A refused plugin leaves nothing behind. Where plugins cannot be
 * isolated, a plugin that is not first-party is refused unless `allowUnisolated` is set
 * (`--allow-unisolated`), which the install record then remembers.
 */
export async function installPluginDirectory(
  sourceDir: string,
  options: PluginHostOptions & { firstParty?: boolean; source?: string } = {},
): Promise<UsableDestination> {
  const host = resolveHostOptions(options);
  const slug = basename(resolve(sourceDir));
  if (!SLUG_PATTERN.test(slug))
    throw pluginError(PLUGIN_ERRORS.BAD_SETTING, `A plugin directory is named by its slug (lower-case words joined by hyphens), and "${slug}" is not one.`);
  const incoming = incomingDir(host);
  try {
    const staged = join(incoming, slug);
    mkdirSync(staged);
    copyPluginFiles(sourceDir, staged);
    return await installStaged(staged, slug, host, { firstParty: options.firstParty === true, source: options.source ?? resolve(sourceDir) });
  } finally {
    rmSync(incoming, { recursive: true, force: true });
  }
}

/** Copy regular files (and folders of them); a symlink is refused, since it could point anywhere. */
function copyPluginFiles(from: string, to: string): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (lstatSync(source).isSymbolicLink())
      throw pluginError(PLUGIN_ERRORS.BAD_SETTING, `The plugin holds a symbolic link (${entry.name}); a plugin is plain files.`);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      mkdirSync(join(to, entry.name));
      copyPluginFiles(source, join(to, entry.name));
    } else if (entry.isFile()) {
      writeFileSync(join(to, entry.name), readFileSync(source));
    }
  }
}

/** Puts the checked plugin folder `staged` in place as `<root>/<slug>`, replacing an older one, and makes its private data folders; returns where it is. */
function putInPlace(staged: string, root: string, slug: string, appData: string): string {
  const target = join(root, slug);
  mkdirSync(root, { recursive: true });
  const old = `${staged}.old`;
  if (existsSync(target)) renameSync(target, old);
  renameSync(staged, target);
  rmSync(old, { recursive: true, force: true });
  const paths = pluginPaths(slug, appData);
  ensurePrivateDir(paths.dataDir);
  ensurePrivateDir(paths.filesDir);
  return target;
}

async function installStaged(
  staged: string,
  slug: string,
  host: ResolvedHostOptions,
  how: { firstParty: boolean; source: string },
): Promise<UsableDestination> {
  const checkFiles = join(staged, '..', 'files');
  const inspected = await inspectPluginDir(staged, checkFiles, host, slug);
  if (inspected.state === 'refused') {
    throw pluginError(PLUGIN_ERRORS.NOT_READY, `The plugin ${slug} was not installed: ${inspected.reason}.`, inspected.detail);
  }
  const target = putInPlace(staged, destinationsDir(host.appData), slug, host.appData);
  const record: InstallRecord = {
    slug,
    version: inspected.manifest.version,
    first_party: how.firstParty,
    source: how.source,
    installed: new Date().toISOString(),
    ...(host.allowUnisolated && inspected.isolation.level === 'partial' ? { allow_unisolated: true } : {}),
    secrets: inspected.descriptor.secretFields.map((f) => f.id),
  };
  writeInstallRecord(record, host.appData);
  return { ...inspected, dir: target, plugin: { ...inspected.plugin, codeDir: target } };
}

/**
 * Install `slug` from a registry: fetch every file the index lists, refuse the lot if one
 * differs from its sha256 or size, then install through {@link installPluginDirectory}'s path.
 */
export async function installFromRegistry(slug: string, options: PluginHostOptions & { registry?: string } = {}): Promise<UsableDestination> {
  const host = resolveHostOptions(options);
  const location = options.registry ?? defaultRegistry();
  const index = await readRegistry(location);
  const entry = index.destinations.find((d) => d.slug === slug);
  if (!entry) throw pluginError(PLUGIN_ERRORS.NOT_READY, `The plugin registry has no destination called ${slug}; see quire plugins available.`);
  const incoming = incomingDir(host);
  try {
    const staged = join(incoming, slug);
    await fetchVerified(entry, location, staged);
    return await installStaged(staged, slug, host, { firstParty: entry.first_party, source: location });
  } finally {
    rmSync(incoming, { recursive: true, force: true });
  }
}

/** What `remove` took away. */
export interface RemoveReport {
  code: boolean;
  data: boolean;
}

/**
 * Remove a plugin: its code, its data (settings, files) and its secrets in every store. None of
 * its code runs, so a plugin that crashes, hangs or misbehaves can always be removed: its secrets
 * are found from the install record and from what the host recorded writing.
 */
export async function removePlugin(slug: string, options: PluginHostOptions = {}): Promise<RemoveReport> {
  const host = resolveHostOptions(options);
  // A folder placed by hand under a name that is no slug (`Echo_Dest`, `echo.old`) is listed, refused: it can be removed
  // too. Only its code: nothing was ever stored under such a name.
  if (!SLUG_PATTERN.test(slug)) {
    if (!listedFolder(slug, host)) throw pluginError(PLUGIN_ERRORS.NOT_READY, `No plugin called ${slug} is installed.`);
    const codeDir = join(destinationsDir(host.appData), slug);
    if (isLink(codeDir)) unlinkSync(codeDir);
    rmSync(codeDir, { recursive: true, force: true });
    return { code: true, data: false };
  }
  const paths = pluginPaths(slug, host.appData);
  // A processor or an OCR engine lives in its own kind's folder.
  for (const kind of ['processor', 'ocr'] as const) {
    const dir = join(kindDir(kind, host.appData), slug);
    if (existsSync(dir) || isLink(dir)) paths.codeDir = dir;
  }
  const hasCode = existsSync(paths.codeDir) || isLink(paths.codeDir);
  const hasData = existsSync(paths.dataDir);
  if (!hasCode && !hasData) throw pluginError(PLUGIN_ERRORS.NOT_READY, `No plugin called ${slug} is installed.`);
  secretsOf(slug, host).deleteAll(installRecord(slug, host.appData)?.secrets ?? []);
  // A link placed by hand is removed, never what it points to.
  if (isLink(paths.codeDir)) unlinkSync(paths.codeDir);
  rmSync(paths.codeDir, { recursive: true, force: true });
  rmSync(paths.dataDir, { recursive: true, force: true });
  return { code: hasCode, data: hasData };
}

/** `name` is a folder (or a link) right in the destinations folder, as discovery lists them. */
function listedFolder(name: string, host: ResolvedHostOptions): boolean {
  if (name === '' || name.startsWith('.') || /[\\/\0]/.test(name)) return false;
  try {
    return readdirSync(destinationsDir(host.appData), { withFileTypes: true }).some((d) => d.name === name && (d.isDirectory() || d.isSymbolicLink()));
  } catch {
    return false;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** What `installPlugin` installed: a destination, or a page plugin (accepted as installed). */
export type InstalledPlugin = { kind: 'destination'; destination: UsableDestination } | { kind: 'processor' | 'ocr'; entry: PagePluginEntry; sha256: string };

/**
 * Install any kind of plugin, from a folder (`source` a path) or from a registry (`source` a slug). A destination
 * goes the way {@link installPluginDirectory} and {@link installFromRegistry} take it. A processor or an OCR engine
 * is checked the same way, loaded once in its sandbox, moved into `plugins/processors/` or `plugins/ocr/`, and
 * accepted as installed: the sha256 of its files is recorded, and a later change must be accepted again.
 */
export async function installPlugin(source: string, options: PluginHostOptions & { registry?: string; fromFolder: boolean }): Promise<InstalledPlugin> {
  const host = resolveHostOptions(options);
  if (options.fromFolder) {
    const kind = readPluginCode(resolve(source)).manifest.kind;
    if (kind === 'destination') return { kind, destination: await installPluginDirectory(source, options) };
    const slug = basename(resolve(source));
    const incoming = incomingDir(host);
    try {
      const staged = join(incoming, slug);
      mkdirSync(staged);
      copyPluginFiles(source, staged);
      return await installPageStaged(staged, slug, kind, host, { firstParty: false, source: resolve(source) });
    } finally {
      rmSync(incoming, { recursive: true, force: true });
    }
  }
  const location = options.registry ?? defaultRegistry();
  const index = await readRegistry(location);
  const kinds = [
    ['processor', index.processors],
    ['ocr', index.ocr],
  ] as const;
  const found = kinds.map(([kind, list]) => ({ kind, entry: list.find((e) => e.slug === source) })).find((k) => k.entry);
  if (!found?.entry) return { kind: 'destination', destination: await installFromRegistry(source, options) };
  const entry = found.entry;
  const incoming = incomingDir(host);
  try {
    const staged = join(incoming, source);
    await fetchVerified(entry, location, staged);
    return await installPageStaged(staged, source, found.kind, host, { firstParty: entry.first_party, source: location });
  } finally {
    rmSync(incoming, { recursive: true, force: true });
  }
}

/** Fetch every file of a registry entry into `staged`, refusing the lot if one differs from its sha256 or size. */
async function fetchVerified(entry: RegistryEntry, location: string, staged: string): Promise<void> {
  for (const file of entry.files) {
    const bytes = await fetchRegistryFile(location, `${entry.path}/${file.path}`);
    const actual = sha256(bytes);
    if (actual !== file.sha256 || bytes.length !== file.size) {
      throw pluginError(
        PLUGIN_ERRORS.REGISTRY,
        `The plugin ${entry.slug} was not installed: its file ${file.path} does not match the registry's checksum.`,
        `expected sha256 ${file.sha256} (${file.size} bytes), got ${actual} (${bytes.length} bytes)`,
      );
    }
    const path = join(staged, ...file.path.split('/'));
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, bytes);
  }
}

async function installPageStaged(
  staged: string,
  slug: string,
  kind: 'processor' | 'ocr',
  host: ResolvedHostOptions,
  how: { firstParty: boolean; source: string },
): Promise<InstalledPlugin> {
  const inspected = await inspectPagePlugin(kind, staged, host, { directoryName: slug, accepting: true, filesDir: join(staged, '..', 'files') });
  if (inspected.state !== 'usable')
    throw pluginError(PLUGIN_ERRORS.NOT_READY, `The plugin ${slug} was not installed: ${inspected.reason ?? 'it could not be loaded'}.`, inspected.detail);
  const target = putInPlace(staged, kindDir(kind, host.appData), slug, host.appData);
  writeInstallRecord(
    {
      slug,
      version: inspected.manifest?.version ?? '',
      first_party: how.firstParty,
      source: how.source,
      installed: new Date().toISOString(),
      ...(host.allowUnisolated && inspected.isolation?.level === 'partial' ? { allow_unisolated: true } : {}),
      secrets: [],
    },
    host.appData,
  );
  const digest = recordAcceptance(slug, target, host.appData);
  return { kind, entry: { ...inspected, dir: target, ...(inspected.plugin ? { plugin: { ...inspected.plugin, codeDir: target } } : {}) }, sha256: digest };
}
