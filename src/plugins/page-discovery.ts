/**
 * Finding installed page plugins: processors in `<APP_DATA>/plugins/processors/<slug>/`, OCR engines in
 * `<APP_DATA>/plugins/ocr/<slug>/`. Each is checked as a destination is (plain files, manifest with the right
 * `kind`, slug = folder, API number, imports) before any of its code runs; then, only when the user has accepted
 * its files as they are (their sha256), it is loaded once in its sandbox to read what it says about itself.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Field as makeField, parseFieldValue, type Field, type FieldValue } from '../plugin-api/index.js';
import { trustOf } from './acceptance.js';
import { mayRunUnisolated, PluginRefused, readPluginCode } from './discovery.js';
import { PLUGIN_ERRORS, pluginError } from './errors.js';
import { detectIsolation, type Isolation } from './isolation.js';
import type { PluginManifest } from './manifest.js';
import { resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from './options.js';
import { PagePluginSession } from './page-session.js';
import { installedFolder, installedFolders, kindDir, pluginPaths } from './paths.js';
import type { LoadablePlugin } from './sandbox.js';
import type { PagePluginDescriptor, PagePluginKindName } from './sandbox/page-protocol.js';

/** An installed page plugin and whether it can run. */
export interface PagePluginEntry {
  kind: PagePluginKindName;
  slug: string;
  dir: string;
  /** `usable`: accepted and loaded; `unaccepted`: never accepted, or changed since (see `trust`); `refused`: broken. */
  state: 'usable' | 'unaccepted' | 'refused';
  /** For `unaccepted`: never accepted, or its files changed since. */
  trust?: 'never' | 'changed';
  /** The sha256 of its files as they are now. */
  sha256?: string;
  /** Completes "refused: …". */
  reason?: string;
  detail?: string;
  manifest?: PluginManifest;
  descriptor?: PagePluginDescriptor;
  plugin?: LoadablePlugin;
  isolation?: Isolation;
  /** Its process, kept running when asked (`keepSession`): the run uses the one that described it. */
  session?: PagePluginSession;
}

/**
 * What an accepted plugin said about itself, kept so that listing the installed plugins (the web app's `/api/state`,
 * each time a window opens or looks again) does not start a sandboxed process per plugin each time. Keyed on the
 * plugin's folder, and valid while its sha256 and its files folder (the path, and the names, sizes and times of what is
 * in it: an OCR engine's languages are the models put there) stay as they were.
 */
const described = new Map<string, { key: string; entry: PagePluginEntry }>();

/** The files folder as far as a plugin's description may depend on it. */
function filesFolderState(filesDir: string): string {
  if (!existsSync(filesDir)) return `${filesDir}:absent`;
  const parts: string[] = [filesDir];
  const walk = (at: string, prefix: string): void => {
    for (const d of readdirSync(at, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(at, d.name);
      const info = statSync(path, { throwIfNoEntry: false });
      if (!info) continue;
      parts.push(`${prefix}${d.name}:${info.isDirectory() ? 'dir' : `${info.size}:${info.mtimeMs}`}`);
      if (info.isDirectory() && prefix.split('/').length < 3) walk(path, `${prefix}${d.name}/`);
    }
  };
  walk(filesDir, '');
  return parts.join('\n');
}

/** The one sentence for a plugin that is not run because it is not accepted. */
export function unacceptedLine(entry: PagePluginEntry): string {
  const what = entry.kind === 'ocr' ? 'OCR engine' : 'processor';
  const why = entry.trust === 'changed' ? 'its files changed since it was accepted' : 'it was never accepted';
  return `The ${what} plugin ${entry.slug} was skipped: ${why}; run \`quire plugins accept ${entry.slug}\` to accept it as it is (sha256 ${entry.sha256?.slice(0, 12) ?? '?'}…).`;
}

/** Check one page plugin folder; loads it in its sandbox only when it is accepted (or `accepting`). */
export async function inspectPagePlugin(
  kind: PagePluginKindName,
  dir: string,
  host: ResolvedHostOptions,
  options: { directoryName?: string; accepting?: boolean; filesDir?: string; keepSession?: boolean } = {},
): Promise<PagePluginEntry> {
  const slug = options.directoryName ?? basename(dir);
  const base = { kind, slug, dir };
  let code: ReturnType<typeof readPluginCode>;
  try {
    code = readPluginCode(dir, slug);
  } catch (e) {
    if (e instanceof PluginRefused) return { ...base, state: 'refused', reason: e.message, detail: e.detail, ...(e.manifest ? { manifest: e.manifest } : {}) };
    return { ...base, state: 'refused', reason: 'its files could not be read', detail: e instanceof Error ? e.message : String(e) };
  }
  const manifest = code.manifest;
  if (manifest.kind !== kind) {
    return {
      ...base,
      state: 'refused',
      manifest,
      reason: `its manifest says kind = "${manifest.kind}", and this folder holds ${kind === 'ocr' ? 'OCR engines' : 'processors'}`,
      detail: '',
    };
  }
  const isolation = await detectIsolation(host.bwrap);
  if (isolation.level === 'partial' && !mayRunUnisolated(dir, slug, host)) {
    return {
      ...base,
      state: 'refused',
      manifest,
      isolation,
      reason: 'it cannot be isolated on this system, and only first-party plugins run without isolation; to run it anyway, install it with --allow-unisolated',
      detail: isolation.summary,
    };
  }
  const trust = trustOf(slug, dir, host.appData);
  if (trust.state !== 'accepted' && !options.accepting) return { ...base, state: 'unaccepted', trust: trust.state, sha256: trust.sha256, manifest, isolation };
  const filesDir = options.filesDir ?? pluginPaths(slug, host.appData).filesDir;
  const cacheKey = `${trust.sha256}\n${isolation.level}\n${filesFolderState(filesDir)}`;
  const cached = described.get(`${kind}:${dir}`);
  if (cached?.key === cacheKey && trust.state === 'accepted' && !options.keepSession) return { ...cached.entry, manifest, isolation };
  host.onDescribeStart(slug);
  const session = await PagePluginSession.open({
    kind,
    plugin: code.plugin,
    filesDir,
    isolation,
    tesseract: manifest.capabilities.tesseract,
    loadTimeoutMs: host.timeouts.describe,
    onLog: (line) => host.onLog(slug, line),
  });
  const remember = (entry: PagePluginEntry): PagePluginEntry => {
    if (trust.state === 'accepted' && !options.filesDir) described.set(`${kind}:${dir}`, { key: cacheKey, entry });
    return entry;
  };
  // A process that failed to start or answer is tried again next time (it may have been the machine's load).
  if (!(session instanceof PagePluginSession))
    return { ...base, state: 'refused', manifest, isolation, sha256: trust.sha256, reason: session.message, detail: session.detail };
  if (!options.keepSession) await session.close();
  let descriptor: PagePluginDescriptor;
  try {
    // Its options as the host rebuilds them: a field the plugin described wrongly refuses the plugin.
    const rebuild = (f: Field): Field =>
      makeField(f.id, f.label, f.kind, f.default, {
        required: f.required,
        choices: f.choices,
        help: f.help,
        ...(typeof f.min === 'number' ? { min: f.min } : {}),
        ...(typeof f.max === 'number' ? { max: f.max } : {}),
      });
    descriptor = { ...session.descriptor, options: session.descriptor.options.map(rebuild) };
  } catch (e) {
    await session.close();
    return remember({ ...base, state: 'refused', manifest, isolation, sha256: trust.sha256, reason: e instanceof Error ? e.message : String(e), detail: '' });
  }
  const entry = remember({ ...base, state: 'usable', sha256: trust.sha256, manifest, isolation, descriptor, plugin: code.plugin });
  return options.keepSession ? { ...entry, session } : entry;
}

/** Every installed plugin of a kind, checked, sorted by slug. */
export async function discoverPagePlugins(kind: PagePluginKindName, options: PluginHostOptions = {}): Promise<PagePluginEntry[]> {
  const host = resolveHostOptions(options);
  const root = kindDir(kind, host.appData);
  const found: PagePluginEntry[] = [];
  for (const name of installedFolders(root)) found.push(await inspectPagePlugin(kind, join(root, name), host));
  return found;
}

/** The installed page plugin `slug` of a kind, checked; `undefined` when none is installed. */
export async function findPagePlugin(
  kind: PagePluginKindName,
  slug: string,
  options: PluginHostOptions = {},
  how: { keepSession?: boolean } = {},
): Promise<PagePluginEntry | undefined> {
  const host = resolveHostOptions(options);
  const dir = installedFolder(kindDir(kind, host.appData), slug);
  if (dir === undefined) return undefined;
  return inspectPagePlugin(kind, dir, host, { keepSession: how.keepSession === true });
}

/** Read `key=value` option texts against the processor's fields; a usage error names what does not fit. */
export function readStepOptions(entry: PagePluginEntry, given: Record<string, string>): Record<string, FieldValue> {
  const fields: readonly Field[] = entry.descriptor?.options ?? [];
  const values: Record<string, FieldValue> = {};
  for (const [key, text] of Object.entries(given)) {
    const field = fields.find((f) => f.id === key);
    if (!field) {
      throw pluginError(
        PLUGIN_ERRORS.BAD_SETTING,
        `The step ${entry.slug} has no option "${key}"${fields.length > 0 ? `; its options: ${fields.map((f) => f.id).join(', ')}` : ''}.`,
      );
    }
    try {
      values[key] = parseFieldValue(field, text);
    } catch (e) {
      throw pluginError(PLUGIN_ERRORS.BAD_SETTING, e instanceof Error ? e.message : String(e));
    }
  }
  return values;
}

/** A session of a usable page plugin for a run, with these option values: the one that described it when kept, else a new one. */
export async function openPagePlugin(entry: PagePluginEntry, values: Record<string, FieldValue>, options: PluginHostOptions = {}): Promise<PagePluginSession> {
  if (entry.session) {
    entry.session.setOptions(values);
    return entry.session;
  }
  const host = resolveHostOptions(options);
  if (entry.state !== 'usable' || !entry.plugin || !entry.isolation)
    throw pluginError(PLUGIN_ERRORS.NOT_READY, `The plugin ${entry.slug} cannot be used: ${entry.reason ?? 'it is not accepted'}.`);
  const session = await PagePluginSession.open({
    kind: entry.kind,
    plugin: entry.plugin,
    filesDir: pluginPaths(entry.slug, host.appData).filesDir,
    isolation: entry.isolation,
    tesseract: entry.manifest?.capabilities.tesseract === true,
    loadTimeoutMs: host.timeouts.describe,
    onLog: (line) => host.onLog(entry.slug, line),
  });
  if (!(session instanceof PagePluginSession))
    throw pluginError(PLUGIN_ERRORS.NOT_READY, `The plugin ${entry.slug} could not start: ${session.message}.`, session.detail);
  session.setOptions(values);
  return session;
}
