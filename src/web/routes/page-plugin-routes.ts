/**
 * The Plugins tab's processors and OCR engines: those installed, with their kind, sandbox and trust; the registry's,
 * each with the sha256 the user accepts by installing it and what it may do; install (accepting what was shown) and
 * accept again after a change. Installing and accepting go through the host's own functions, the ones
 * `quire plugins install` and `quire plugins accept` call, and only for the sha256 the dialog showed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parse } from 'smol-toml';
import { httpError } from '../../http/index.js';
import {
  detectIsolation,
  discoverPagePlugins,
  installPlugin,
  kindDir,
  listingDigest,
  MANIFEST_FILE,
  pluginDigest,
  readRegistry,
  recordAcceptance,
  removePlugin,
  type PagePluginEntry,
  type RegistryEntry,
  type ResolvedHostOptions,
} from '../../plugins/index.js';
import { formatBytes } from '../../util/index.js';
import type { PagePluginsView, PagePluginView } from '../api-types.js';
import { registryFile } from '../plugins.js';
import { errors, slugParams } from '../schemas.js';

export interface PagePluginRouteDeps {
  host: ResolvedHostOptions;
  /** Plugin registry folder or URL. */
  registry: string;
  /** A message in the window's words (plugin names as the Plugins tab shows them). */
  words: (message: string) => string;
}

type Kind = 'processor' | 'ocr';

/** What a plugin of this kind may do once accepted, in the user's words: the acceptance dialog's list. */
export function mayDo(kind: Kind, tesseract: boolean): string[] {
  return [
    kind === 'processor'
      ? 'Reads each page image and what earlier steps recorded about it (text scale, page box), and returns a changed image and a few facts of its own.'
      : 'Reads each page image and returns the words it finds there, with their boxes and confidence.',
    ...(tesseract ? ["May ask Quire to run its tesseract on a page with a model file from the plugin's own folders."] : []),
    'Runs in a sandbox for the whole run: no network, no other programs; it reads only its own folder and writes only its files folder, and a page that takes too long or too much memory is failed alone.',
  ];
}

function sandboxOf(entry: PagePluginEntry): string {
  if (!entry.isolation) return 'not sandboxed';
  return entry.isolation.level === 'full' ? 'sandboxed' : 'sandbox partial: no bubblewrap';
}

export function pagePluginView(entry: PagePluginEntry, words: (message: string) => string): PagePluginView {
  const state = entry.state === 'usable' ? 'ready' : entry.state === 'refused' ? 'refused' : entry.trust === 'changed' ? 'changed' : 'not-accepted';
  return {
    slug: entry.slug,
    kind: entry.kind,
    display: entry.descriptor?.display ?? entry.manifest?.name ?? entry.slug,
    description: entry.descriptor?.summary ?? entry.manifest?.description ?? '',
    version: entry.manifest?.version ?? '',
    state,
    sandbox: sandboxOf(entry),
    ...(entry.sha256 ? { sha256: entry.sha256 } : {}),
    ...(entry.reason ? { reason: words(entry.reason) } : {}),
    ...(entry.kind === 'processor' && entry.descriptor ? { after: entry.descriptor.after } : {}),
    ...(entry.kind === 'ocr' && entry.descriptor ? { languages: entry.descriptor.languages ?? [] } : {}),
    mayDo: mayDo(entry.kind, entry.manifest?.capabilities.tesseract === true),
  };
}

function registryEntries(index: { processors: RegistryEntry[]; ocr: RegistryEntry[] }): Array<{ kind: Kind; entry: RegistryEntry }> {
  return [...index.processors.map((entry) => ({ kind: 'processor' as const, entry })), ...index.ocr.map((entry) => ({ kind: 'ocr' as const, entry }))];
}

/** Register the routes of processors and OCR engines on the web app. */
export function registerPagePluginRoutes(app: FastifyInstance, deps: PagePluginRouteDeps): void {
  const { host, registry, words } = deps;
  const installed = async (): Promise<PagePluginEntry[]> => [...(await discoverPagePlugins('processor', host)), ...(await discoverPagePlugins('ocr', host))];

  app.get('/api/page-plugins', { schema: { response: errors } }, async (): Promise<PagePluginsView> => {
    const view: PagePluginsView = { installed: (await installed()).map((e) => pagePluginView(e, words)), registry: [] };
    try {
      const index = await readRegistry(registry);
      for (const { kind, entry } of registryEntries(index)) {
        const bytes = entry.files.reduce((sum, f) => sum + f.size, 0);
        // What it may do is what its manifest declares, read from the registry and checked against its sha256.
        const manifest = parse((await registryFile(registry, entry, MANIFEST_FILE)).toString('utf8')) as { capabilities?: { tesseract?: unknown } };
        view.registry.push({
          slug: entry.slug,
          kind,
          name: entry.name,
          version: entry.version,
          description: entry.description,
          firstParty: entry.first_party,
          installed: existsSync(join(kindDir(kind, host.appData), entry.slug)),
          sha256: listingDigest(entry.files),
          mayDo: mayDo(kind, manifest.capabilities?.tesseract === true),
          files: entry.files.length,
          size: formatBytes(bytes),
        });
      }
    } catch (e) {
      view.registryError = words(e instanceof Error ? e.message : String(e));
    }
    const isolation = await detectIsolation(host.bwrap);
    view.isolation = { level: isolation.level, summary: isolation.summary };
    return view;
  });

  const sha256Body = {
    type: 'object',
    additionalProperties: false,
    required: ['sha256'],
    properties: { sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
  } as const;

  app.post<{ Params: { slug: string }; Body: { sha256: string } }>(
    '/api/page-plugins/:slug/install',
    { schema: { params: slugParams, body: sha256Body, response: errors } },
    async (request) => {
      const { slug } = request.params;
      const found = registryEntries(await readRegistry(registry)).find((r) => r.entry.slug === slug);
      if (!found) throw httpError('not_found', `The plugin registry has no processor or OCR engine called ${slug}.`);
      // What is installed is accepted: only the files whose sha256 the dialog showed.
      if (listingDigest(found.entry.files) !== request.body.sha256) {
        throw httpError(
          'changed',
          `The registry's ${slug} changed since its dialog was shown (its sha256 is now ${listingDigest(found.entry.files).slice(0, 12)}…); look at it again before installing.`,
        );
      }
      const result = await installPlugin(slug, { ...host, registry, fromFolder: false });
      if (result.kind === 'destination') throw httpError('not_page_plugin', `${slug} is a destination.`);
      if (result.sha256 !== request.body.sha256) {
        // The registry changed between the check above and the fetch: what was accepted is not what was shown.
        await removePlugin(slug, host);
        throw httpError('changed', `The registry's ${slug} changed while it was being installed, so it was removed again; look at it again before installing.`);
      }
      return pagePluginView({ ...result.entry, state: 'usable', sha256: result.sha256 }, words);
    },
  );

  app.post<{ Params: { slug: string }; Body: { sha256: string } }>(
    '/api/page-plugins/:slug/accept',
    { schema: { params: slugParams, body: sha256Body, response: errors } },
    async (request) => {
      const { slug } = request.params;
      const kind = (['processor', 'ocr'] as const).find((k) => existsSync(join(kindDir(k, host.appData), slug)));
      if (!kind) throw httpError('not_found', `No processor or OCR engine called ${slug} is installed.`);
      const dir = join(kindDir(kind, host.appData), slug);
      // Accepted as the dialog showed it: a file changed meanwhile is not accepted unseen.
      if (pluginDigest(dir) !== request.body.sha256) {
        throw httpError('changed', `The files of ${slug} changed again since its dialog was shown; look at it again before accepting.`);
      }
      recordAcceptance(slug, dir, host.appData);
      const entry = (await discoverPagePlugins(kind, host)).find((e) => e.slug === slug);
      if (!entry) throw httpError('not_found', `No processor or OCR engine called ${slug} is installed.`);
      return pagePluginView(entry, words);
    },
  );
}
