/**
 * The Plugins tab's view of the plugin host: installed destinations with their state, the
 * registry's list, what a plugin declares before it is installed, and its settings as a form
 * (secrets as set / not set, never their values). Every change goes through the host's own
 * functions, the ones `quire plugins` calls.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import {
  API_VERSION,
  CHECK_KIND_LABELS,
  MANIFEST_FILE,
  checkDestination,
  discoverDestinations,
  installRecord,
  matchesShippedPlugin,
  pluginIsolation,
  reachableHosts,
  readRegistry,
  type InstalledDestination,
  type RegistryEntry,
  type ResolvedHostOptions,
  type UnsavedValues,
  type UsableDestination,
} from '../plugins/index.js';
import { missingSettings, secretsOf, unreadableSecrets, viewSettings } from '../settings/index.js';
import { formatBytes } from '../util/index.js';
import type { CheckView, FieldView, IsolationView, PluginSettingsView, PluginView, RegistryDetail, RegistryView, SecretStoreView } from './api-types.js';
import { httpError } from '../http/index.js';

/** Where a secret kept in `store` is, in the user's words. */
function storePlace(store: string | undefined, host: ResolvedHostOptions): string {
  if (store === 'env-file') return `${host.appData}/.env (mode 0600)`;
  if (store === 'keychain') return 'the OS keychain';
  return "the plugin's own settings file (mode 0600), since no OS keychain was found";
}

/** Where secrets typed into a dialog go (of one plugin, or of every plugin), and whether that is readable text in a file. */
export function secretStoreName(host: ResolvedHostOptions, onePlugin = false): SecretStoreView {
  const store = secretsOf('probe', host).store;
  const fallback = `${onePlugin ? "this plugin's" : "each plugin's"} own settings file (mode 0600), since no OS keychain was found`;
  return { text: store === 'config-file' ? fallback : storePlace(store, host), plainText: store !== 'keychain' };
}

/** How plugin processes are isolated here. */
export async function isolationView(host: ResolvedHostOptions): Promise<IsolationView> {
  const isolation = await pluginIsolation(host);
  return { level: isolation.level, summary: isolation.summary };
}

/** Discovery runs every plugin once in its sandbox: done once, and again only after an install or removal. */
export class DestinationCache {
  #found: Promise<InstalledDestination[]> | undefined;
  readonly #host: ResolvedHostOptions;

  constructor(host: ResolvedHostOptions) {
    this.#host = host;
  }

  all(): Promise<InstalledDestination[]> {
    this.#found ??= discoverDestinations(this.#host).catch((e: unknown) => {
      this.#found = undefined;
      throw e;
    });
    return this.#found;
  }

  forget(): void {
    this.#found = undefined;
  }

  async usable(slug: string): Promise<UsableDestination> {
    const found = (await this.all()).find((d) => d.slug === slug);
    if (!found) throw httpError('not_found', `The destination ${slug} is not installed.`);
    if (found.state === 'refused') throw httpError('refused', `The destination ${slug} cannot be used: ${found.reason}.`);
    return found;
  }
}

export function pluginView(d: InstalledDestination, host: ResolvedHostOptions): PluginView {
  const firstParty = installRecord(d.slug, host.appData)?.first_party === true;
  if (d.state === 'refused') {
    return {
      slug: d.slug,
      display: d.manifest?.name ?? d.slug,
      description: d.manifest?.description ?? '',
      version: d.manifest?.version ?? '',
      firstParty,
      state: 'refused',
      missing: [],
      reason: d.reason,
      accepts: [],
      network: d.manifest?.capabilities.network === true,
    };
  }
  const missing = missingSettings(d.descriptor, host);
  const unreadable = unreadableSecrets(d.descriptor, host);
  return {
    slug: d.slug,
    display: d.descriptor.display,
    description: d.descriptor.description,
    version: d.manifest.version,
    firstParty,
    state: missing.length > 0 ? 'needs-settings' : unreadable.length > 0 ? 'unreadable' : 'ready',
    missing,
    ...(unreadable.length > 0 ? { unreadable: `${unreadable.map((u) => u.label).join(', ')} cannot be read: ${unreadable[0].reason}` } : {}),
    accepts: d.descriptor.accepts,
    network: d.manifest.capabilities.network,
  };
}

export async function registryView(location: string, appData: string): Promise<RegistryView> {
  try {
    const index = await readRegistry(location);
    return {
      location,
      entries: index.destinations.map((e) => ({
        slug: e.slug,
        name: e.name,
        version: e.version,
        description: e.description,
        api: e.api,
        firstParty: e.first_party,
        installed: existsSync(join(appData, 'plugins', 'destinations', e.slug)),
      })),
    };
  } catch (e) {
    return { location, entries: [], error: e instanceof Error ? e.message : String(e) };
  }
}

/** A file of a registry entry, checked against the index's sha256 like an install checks it. */
export async function registryFile(location: string, entry: RegistryEntry, path: string): Promise<Buffer> {
  const listed = entry.files.find((f) => f.path === path);
  if (!listed) throw httpError('not_found', `The registry's ${entry.slug} has no ${path}.`);
  let bytes: Buffer;
  if (/^https?:\/\//i.test(location)) {
    const url = new URL(`${entry.path}/${path}`.split('/').map(encodeURIComponent).join('/'), location.endsWith('/') ? location : `${location}/`);
    const response = await fetch(url).catch(() => undefined);
    if (!response?.ok) throw httpError('registry', `The plugin registry at ${location} cannot be reached.`);
    bytes = Buffer.from(await response.arrayBuffer());
  } else {
    bytes = await readFile(join(location, ...entry.path.split('/'), ...path.split('/')));
  }
  if (createHash('sha256').update(bytes).digest('hex') !== listed.sha256) {
    throw httpError('registry', `The registry's ${entry.slug} does not match its checksum, so Quire will not install it.`);
  }
  return bytes;
}

/** What the install dialog shows: the entry, and what its manifest declares (capabilities, author, API). */
export async function registryDetail(location: string, slug: string, host: ResolvedHostOptions): Promise<RegistryDetail> {
  const { appData } = host;
  const index = await readRegistry(location);
  const entry = index.destinations.find((d) => d.slug === slug);
  if (!entry) throw httpError('not_found', `The plugin registry has no destination called ${slug}.`);
  const manifest = parse((await registryFile(location, entry, MANIFEST_FILE)).toString('utf8')) as Record<string, unknown>;
  const capabilities = (manifest.capabilities ?? {}) as Record<string, unknown>;
  const bytes = entry.files.reduce((sum, f) => sum + f.size, 0);
  const author =
    typeof manifest.author === 'string' && manifest.author.trim() !== '' ? manifest.author.trim() : entry.first_party ? 'The makers of Quire' : 'Not declared';
  return {
    slug: entry.slug,
    name: entry.name,
    version: entry.version,
    description: entry.description,
    api: entry.api,
    firstParty: entry.first_party,
    installed: existsSync(join(appData, 'plugins', 'destinations', entry.slug)),
    author,
    capabilities: { network: capabilities.network === true },
    hostApi: API_VERSION,
    isolation: await isolationView(host),
    shipped: matchesShippedPlugin(entry.slug, entry.files),
    files: entry.files.length,
    bytes,
    size: formatBytes(bytes),
  };
}

export function settingsView(d: UsableDestination, host: ResolvedHostOptions): PluginSettingsView {
  const views = viewSettings(d.descriptor, host);
  const fields = [...d.descriptor.configFields, ...d.descriptor.secretFields].map((f): FieldView => {
    const v = views.find((x) => x.id === f.id);
    return {
      id: f.id,
      label: f.label,
      kind: f.kind,
      required: f.required,
      help: f.help,
      multiline: f.multiline,
      choices: [...f.choices],
      ...(v?.secret
        ? {
            secret: {
              set: v.secret.set,
              ...(v.secret.unreachable ? { unreachable: v.secret.unreachable } : {}),
              ...(v.secret.store
                ? {
                    store: v.secret.store as 'keychain' | 'env-file' | 'config-file',
                    where: storePlace(v.secret.store, host),
                    plainText: v.secret.store !== 'keychain',
                  }
                : {}),
            },
          }
        : { value: v?.value ?? f.default, isDefault: v?.isDefault ?? true }),
    };
  });
  return {
    slug: d.slug,
    display: d.descriptor.display,
    description: d.descriptor.description,
    fields,
    missing: missingSettings(d.descriptor, host),
    secretStore: secretStoreName(host, true),
    hosts: reachableHosts(d, host),
  };
}

/** Check `d` with its stored values, or with unsaved `form` values over them: nothing is stored. */
/**
 * Whether a setting the destination needs is empty both in the form and in what is stored: a check that fails on its
 * settings is then a missing setting; with every field filled, it is a value the destination refused.
 */
function missingIn(d: UsableDestination, host: ResolvedHostOptions, form: UnsavedValues): boolean {
  const stored = missingSettings(d.descriptor, host);
  const typed = (id: string): boolean => String(form.settings?.[id] ?? form.secrets?.[id] ?? '').trim() !== '';
  return [...d.descriptor.configFields, ...d.descriptor.secretFields].some((f) => stored.includes(f.label) && !typed(f.id));
}

export async function checkView(d: UsableDestination, host: ResolvedHostOptions, log: (detail: string) => void, form: UnsavedValues = {}): Promise<CheckView> {
  const result = await checkDestination(d, host, form);
  if (result.detail) log(result.detail);
  return {
    ok: result.ok,
    label: result.ok ? 'OK' : result.kind === 'CONFIG' && !missingIn(d, host, form) ? 'Invalid setting' : CHECK_KIND_LABELS[result.kind ?? 'UNKNOWN'],
    kind: result.kind,
    message: result.message,
  };
}
