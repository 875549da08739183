/**
 * `createGuiApp()`: the local web app's server, built without listening (tests use `app.inject`;
 * `quire gui` listens on 127.0.0.1). The page and every route under `/api` answer 401 without the
 * session token. Work runs in this process through the same conversion verbs as the CLI, the
 * OCR engines and the plugin host; progress reaches the page as server-sent events.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { createErrorHandler, errorBody, HttpError } from '../http/index.js';
import { describeOcrEngines, languageName, PRESETS, registerOcrPlugins } from '../convert/index.js';
import {
  defaultRegistry,
  exportSettings,
  exportWarnings,
  importSettings,
  installFromRegistry,
  removePlugin,
  resolveHostOptions,
  type PluginHostOptions,
  type ResolvedHostOptions,
} from '../plugins/index.js';
import { applySettings, secretsOf } from '../settings/index.js';
import { formatBytes } from '../util/index.js';
import { VERSION } from '../version.js';
import type { BootState, ConfigExportView, ConfigImportView, DocumentSummary, PresetChoice, UnsavedSettings } from './api-types.js';
import { checkToken, newSessionToken, setTokenCookie, unauthorizedPage, UNAUTHORIZED_MESSAGE } from './auth.js';
import { dictionaryRoutes, UserDictionary } from './dictionary.js';
import { registerPageBoxRoutes } from './page-box-routes.js';
import { DocumentStore, type ProcessPagesFn, type UploadedFile } from './documents.js';
import { exporterCards, exportStages, resolveExport, runExport, type ExportAsk } from './exports.js';
import { ERROR_WORDS, notFound } from './http-errors.js';
import { libraryFolder } from './library.js';
import { inInterfaceWords } from './interface-words.js';
import { checkView, DestinationCache, isolationView, pluginView, registryDetail, registryView, secretStoreName, settingsView as pluginSettingsView } from './plugins.js';
import { registerPagePluginRoutes } from './plugin-routes.js';
import { idParams, pageParams, schemas, slugParams, wordParams } from './schemas.js';
import { checkOcrChoice, exportFolderOf, readGuiSettings, saveGuiSettings, settingsView, type SettingsChange } from './settings.js';
import { defaultUiDir, loadUi } from './static.js';
import { systemOpen, type FolderOpener } from './system-open.js';
import { checkedUpload } from './upload-check.js';
import { MAX_UPLOAD } from './upload-kind.js';

export interface GuiAppOptions {
  /** The session token; default a fresh random one. */
  token?: string;
  /** Where downloads and staging of this session go; default a new folder in the OS temp dir, removed on close. */
  sessionDir?: string;
  /** Where documents are kept between sessions (uploads, projects, corrections); default `documents/` in the app's data folder. */
  libraryDir?: string;
  /** The plugin host: app data, keychain. The app keeps secrets in the OS keychain when one answers. */
  host?: PluginHostOptions;
  /** Plugin registry folder or URL; default `QUIRE_REGISTRY`, else the one shipped with Quire. */
  registry?: string;
  /** The built page; default `dist/web/ui/`. */
  uiDir?: string;
  /** Stands in for the pipeline (tests of a task that must not end by itself). */
  processPages?: ProcessPagesFn;
  /** Shows a folder in the file manager (Open folder); default the desktop's own opener (`systemOpen`). */
  openFolder?: FolderOpener;
  logger?: false | { level?: string; stream?: { write(line: string): void } };
}

export interface GuiApp {
  app: FastifyInstance;
  token: string;
  sessionDir: string;
  /** The folder documents are kept in, so a restart lists them again. */
  libraryDir: string;
  /** The documents listed now (those kept from earlier sessions included). */
  documents(): DocumentSummary[];
  /** The documents with corrections made since their last export (what `quire gui` warns of when stopped). */
  unexported(): DocumentSummary[];
  /** The address to open, with the token: `http://127.0.0.1:P/?token=…`. */
  url(origin: string): string;
  /** Stop running tasks, end event streams, remove the session folder. */
  close(): Promise<void>;
}


/** A name from the browser made safe as one file name in our folder. */
export function uploadName(raw: string | undefined, taken: ReadonlySet<string>): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f<>:"|?*]+/g, '_').replace(/^\.+/, '').trim().slice(0, 180) || 'upload';
  let name = cleaned;
  for (let n = 2; taken.has(name); n++) name = `${n}-${cleaned}`;
  return name;
}

/** Whether a request comes from this computer: Open folder shows a folder only to a window on it. */
export function isLoopback(ip: string): boolean {
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1' || ip.startsWith('127.');
}

/** `Content-Disposition` for a download, with the UTF-8 name and a plain ASCII fallback. */
export function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export async function createGuiApp(options: GuiAppOptions = {}): Promise<GuiApp> {
  const token = options.token ?? newSessionToken();
  const ownSession = options.sessionDir === undefined;
  const sessionDir = options.sessionDir ?? (await mkdtemp(join(tmpdir(), 'quire-gui-')));
  await mkdir(join(sessionDir, 'downloads'), { recursive: true });
  await mkdir(join(sessionDir, 'staging'), { recursive: true, mode: 0o700 });
  const host: ResolvedHostOptions = resolveHostOptions(options.host);
  const registry = options.registry ?? (process.env.QUIRE_REGISTRY || defaultRegistry());
  const ui = loadUi(options.uiDir ?? defaultUiDir());
  const destinations = new DestinationCache(host);
  const downloads = new Map<string, { path: string; fileName: string }>();
  const streams = new Set<ServerResponse>();
  const openFolder = options.openFolder ?? ((folder: string) => systemOpen(folder));
  // Plugin names as last seen, so a message about a plugin names it as the Plugins tab does.
  const displayNames = new Map<string, string>();
  const knownDestinations = async (): Promise<Awaited<ReturnType<DestinationCache['all']>>> => {
    const all = await destinations.all();
    for (const d of all) displayNames.set(d.slug, d.state === 'refused' ? (d.manifest?.name ?? d.slug) : d.descriptor.display);
    return all;
  };
  const words = (message: string): string => inInterfaceWords(message, (slug) => displayNames.get(slug));
  const baseErrorHandler = createErrorHandler(ERROR_WORDS);

  const app = Fastify({
    logger: options.logger ? { level: options.logger.level ?? 'info', ...(options.logger.stream ? { stream: options.logger.stream } : {}) } : false,
    bodyLimit: 1024 * 1024,
  });
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD, files: 2000, fields: 10 } });
  // Every refusal the page shows speaks of the window, not of the command line.
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof Error && typeof error.message === 'string') error.message = words(error.message);
    baseErrorHandler(error, request, reply);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorBody('no_route', `There is nothing at ${request.url.split('?')[0]}.`));
  });

  const send = (event: string, data: unknown): void => {
    const line = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of streams) res.write(line);
  };
  const broadcast = (summary: DocumentSummary): void => send('document', summary);
  const libraryDir = options.libraryDir ?? libraryFolder(host.appData);
  const dictionary = await UserDictionary.open(host.appData);
  const documents = new DocumentStore({
    libraryDir,
    knownWord: (text) => dictionary.knows(text),
    userWords: () => dictionary.words(),
    settings: () => readGuiSettings(host.appData),
    onChange: broadcast,
    onRemove: (id) => send('removed', { id }),
    ...(options.processPages ? { processPages: options.processPages } : {}),
  });

  // The token, before anything else: the page, its assets and every API route.
  app.addHook('onRequest', async (request, reply) => {
    const how = checkToken(request, token);
    if (how === 'refused') {
      const api = request.url.startsWith('/api/');
      void reply.code(401);
      if (api) return reply.send(errorBody('unauthorized', UNAUTHORIZED_MESSAGE));
      return reply.type('text/html; charset=utf-8').send(unauthorizedPage());
    }
    if (how === 'query') {
      setTokenCookie(reply, token);
      // The token leaves the address bar (and the history) once the cookie holds it.
      if (request.method === 'GET' && request.url.split('?')[0] === '/') return reply.redirect('/', 303);
    }
    return undefined;
  });

  /** A file the page may download once it knows the address: each in a folder of its own, under its own name. */
  const newDownload = async (fileName: string): Promise<{ url: string; path: string }> => {
    const id = randomBytes(9).toString('base64url');
    const dir = join(sessionDir, 'downloads', id);
    await mkdir(dir, { recursive: true });
    const path = join(dir, fileName);
    downloads.set(id, { path, fileName });
    return { url: `/api/downloads/${id}`, path };
  };
  /** A file written elsewhere (the export folder), offered for download where it is. */
  const offerDownload = (path: string, fileName: string): string => {
    const id = randomBytes(9).toString('base64url');
    downloads.set(id, { path, fileName });
    return `/api/downloads/${id}`;
  };

  // --- the page ---
  const page = (url: string): ReturnType<typeof ui.get> => ui.get(url);
  app.get('/', async (_request, reply) => {
    const file = page('/');
    if (!file) throw new HttpError(503, 'not_built', "The app's page has not been built; run npm run build.");
    return reply.type(file.type).header('cache-control', 'no-store').header('content-security-policy', "default-src 'self'; img-src 'self' blob: data:; style-src 'self' 'unsafe-inline'").send(file.body);
  });
  app.get('/assets/*', async (request, reply) => {
    const file = page(request.url.split('?')[0]);
    if (!file) throw notFound('file');
    return reply.type(file.type).header('cache-control', 'private, max-age=31536000, immutable').send(file.body);
  });
  app.get('/favicon.svg', async (_request, reply) => {
    const file = page('/favicon.svg');
    if (!file) throw notFound('file');
    return reply.type(file.type).send(file.body);
  });

  // --- app state ---
  app.get('/api/health', { schema: schemas.health }, async () => ({ ok: true, version: VERSION }));

  app.get('/api/state', async (request): Promise<BootState> => {
    // OCR engine plugins the user installed and accepted are offered beside the built-ins.
    await registerOcrPlugins(host).catch(() => []);
    const engines = await describeOcrEngines();
    return {
      version: VERSION,
      presets: Object.values(PRESETS).map((p) => ({ name: p.name, description: p.description })),
      ocrEngines: engines.map((e) => ({
        ...e,
        ...(e.reason ? { reason: words(e.reason) } : {}),
        languages: e.languages.map((code) => ({ code, name: languageName(code) ?? code })),
      })),
      settings: await settingsView(host.appData, host),
      local: isLoopback(request.ip),
    };
  });

  app.get('/api/settings', async () => settingsView(host.appData, host));
  app.put<{ Body: SettingsChange }>('/api/settings', { schema: schemas.settings }, async (request) => {
    const saved = await saveGuiSettings(host.appData, request.body, host);
    // Every window looks again: an engine may run now that its key is stored.
    send('settings', saved);
    return saved;
  });

  // Server-sent events: every change of every document, as it happens.
  app.get('/api/events', (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(`retry: 2000\n\n`);
    for (const summary of documents.list()) res.write(`event: document\ndata: ${JSON.stringify(summary)}\n\n`);
    streams.add(res);
    const beat = setInterval(() => res.write(': still here\n\n'), 15_000);
    beat.unref();
    request.raw.on('close', () => {
      clearInterval(beat);
      streams.delete(res);
    });
  });

  // --- documents ---
  app.get('/api/documents', async () => documents.list());

  app.post('/api/documents', async (request, reply) => {
    if (!request.isMultipart()) throw new HttpError(400, 'missing_file', 'Send the files as a multipart form.');
    const { id, dir, inputDir } = documents.newDocumentDir();
    await mkdir(inputDir, { recursive: true });
    const files: UploadedFile[] = [];
    const taken = new Set<string>();
    try {
      for await (const part of request.parts()) {
        if (part.type !== 'file') continue;
        const name = uploadName(part.filename, taken);
        taken.add(name);
        const path = join(inputDir, name);
        // A file Quire cannot open is refused on its first bytes, not once all of it is here.
        await pipeline(part.file, checkedUpload(name), createWriteStream(path));
        if (part.file.truncated) throw new HttpError(413, 'too_large', `${name} is larger than Quire opens here (${formatBytes(MAX_UPLOAD)}).`);
        if ((await stat(path)).size === 0) throw new HttpError(400, 'empty_file', `${name} is empty.`);
        files.push({ path, name });
      }
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      throw e;
    }
    const summary = await documents.open(id, dir, inputDir, files);
    return reply.code(202).send(summary);
  });

  app.get<{ Params: { id: string } }>('/api/documents/:id', { schema: { params: idParams } }, async (request) => documents.detail(documents.get(request.params.id)));
  app.delete<{ Params: { id: string } }>('/api/documents/:id', { schema: { params: idParams } }, async (request, reply) => {
    await documents.remove(request.params.id);
    return reply.code(204).send();
  });
  app.post<{ Params: { id: string } }>('/api/documents/:id/cancel', { schema: { params: idParams } }, async (request) => documents.cancel(request.params.id));
  app.post<{ Params: { id: string }; Body: { preset: PresetChoice } }>('/api/documents/:id/rerun', { schema: { params: idParams, ...schemas.rerun } }, async (request, reply) =>
    reply.code(202).send(await documents.rerun(request.params.id, request.body.preset)),
  );
  app.post<{ Params: { id: string }; Body: { engine: string; languages: string } }>('/api/documents/:id/ocr', { schema: { params: idParams, ...schemas.ocr } }, async (request, reply) => {
    const { engine, languages } = request.body;
    checkOcrChoice(engine, languages);
    return reply.code(202).send(await documents.recognize(request.params.id, engine, languages));
  });
  app.patch<{ Params: { id: string; index: number }; Body: { hidden: boolean } }>('/api/documents/:id/pages/:index', { schema: { params: pageParams, ...schemas.page } }, async (request) =>
    documents.setHidden(request.params.id, request.params.index, request.body.hidden),
  );
  app.get<{ Params: { id: string; index: number }; Querystring: { size?: 'thumb' | 'full' } }>(
    '/api/documents/:id/pages/:index/image',
    { schema: { params: pageParams, ...schemas.image } },
    async (request, reply) => {
      const path = await documents.pagePreview(request.params.id, request.params.index, request.query.size ?? 'full');
      return reply.type('image/jpeg').header('cache-control', 'private, max-age=3600').send(createReadStream(path));
    },
  );
  app.get<{ Params: { id: string; index: number } }>('/api/documents/:id/pages/:index/text', { schema: { params: pageParams } }, async (request) =>
    documents.pageText(request.params.id, request.params.index),
  );
  app.get<{ Params: { id: string; index: number } }>('/api/documents/:id/pages/:index/words', { schema: { params: pageParams } }, async (request) =>
    documents.pageWords(request.params.id, request.params.index),
  );
  app.put<{ Params: { id: string; index: number; n: number }; Body: { text?: string; was: string; restore?: boolean } }>(
    '/api/documents/:id/pages/:index/words/:n',
    { schema: { params: wordParams, ...schemas.word } },
    async (request) => documents.editWord(request.params.id, request.params.index, request.params.n, request.body),
  );
  app.get<{ Params: { id: string; index: number } }>('/api/documents/:id/frames/:index', { schema: { params: pageParams } }, async (request) => {
    const { path: _path, ...frame } = await documents.frame(request.params.id, request.params.index);
    return frame;
  });
  app.get<{ Params: { id: string; index: number } }>('/api/documents/:id/frames/:index/image', { schema: { params: pageParams } }, async (request, reply) => {
    const frame = await documents.frame(request.params.id, request.params.index);
    return reply.type('image/jpeg').header('cache-control', 'private, max-age=3600').send(createReadStream(frame.path));
  });

  // The person's dictionary: a word added stops being marked in every open document at once.
  dictionaryRoutes(app, dictionary, () => documents.recount());
  registerPageBoxRoutes(app, { documents, userWords: () => dictionary.words() });

  // --- export ---
  app.get('/api/exporters', async () => exporterCards(await knownDestinations(), host).map((c) => (c.reason ? { ...c, reason: words(c.reason) } : c)));
  app.post<{ Params: { id: string }; Body: ExportAsk }>('/api/documents/:id/export', { schema: { params: idParams, ...schemas.exportAsk } }, async (request, reply) => {
    const doc = documents.get(request.params.id);
    const settings = await readGuiSettings(host.appData);
    const context = { host, settings, destinations: knownDestinations, exportFolder: exportFolderOf(settings), offerDownload, stagingRoot: join(sessionDir, 'staging'), userWords: dictionary.words() };
    // Refusals (not set up, no such format) answer this request; the export itself runs as the document's task.
    const resolved = await resolveExport(request.body, context);
    const stages = doc.manifest ? exportStages(resolved, doc.manifest, settings) : [];
    return reply.code(202).send(documents.exportTask(doc.id, stages, (d, projectDir, signal, report) => runExport(d, projectDir, resolved, context, signal, report)));
  });
  app.post<{ Params: { id: string } }>('/api/documents/:id/open-folder', { schema: { params: idParams } }, async (request, reply) => {
    const doc = documents.get(request.params.id);
    const folder = doc.lastExport?.folder;
    if (!folder) throw new HttpError(409, 'no_export', 'This document has no export in a folder yet.');
    if (!isLoopback(request.ip)) throw new HttpError(403, 'not_local', 'Open folder shows the folder on the computer Quire runs on, and this window is on another one; use Download instead.');
    try {
      await openFolder(folder);
    } catch {
      throw new HttpError(502, 'no_file_manager', `No file manager could be started here; the files are in ${folder}.`);
    }
    return reply.code(204).send();
  });
  app.get<{ Params: { id: string } }>('/api/downloads/:id', { schema: { params: idParams } }, async (request, reply) => {
    const file = downloads.get(request.params.id);
    if (!file) throw notFound('download');
    // A file in the export folder may have been moved or deleted since.
    if (!(await stat(file.path).catch(() => undefined))?.isFile()) throw new HttpError(404, 'not_found', `${file.fileName} is no longer where Quire wrote it; export it again.`);
    return reply.type('application/octet-stream').header('content-disposition', attachment(file.fileName)).header('cache-control', 'no-store').send(createReadStream(file.path));
  });

  // --- plugins ---
  registerPagePluginRoutes(app, { host, registry, words });
  app.get('/api/plugins', async () => {
    // The Plugins tab looks again: a plugin folder may have been copied in by hand meanwhile.
    destinations.forget();
    return {
      installed: (await knownDestinations()).map((d) => pluginView(d, host)).map((p) => (p.reason ? { ...p, reason: words(p.reason) } : p)),
      secretStore: secretStoreName(host),
      isolation: await isolationView(host),
    };
  });
  app.get('/api/registry', async () => registryView(registry, host.appData));
  app.get<{ Params: { slug: string } }>('/api/registry/:slug', { schema: { params: slugParams } }, async (request) => registryDetail(registry, request.params.slug, host));
  app.post<{ Params: { slug: string }; Body: { allowUnisolated?: boolean } | undefined }>('/api/plugins/:slug/install', { schema: { params: slugParams, ...schemas.pluginInstall } }, async (request) => {
    try {
      // Where plugins cannot be isolated, the install dialog asks before it sets this (`--allow-unisolated`).
      const allowUnisolated = request.body?.allowUnisolated === true;
      const installed = await installFromRegistry(request.params.slug, { ...host, allowUnisolated, registry });
      return pluginView(installed, host);
    } finally {
      destinations.forget();
    }
  });
  app.delete<{ Params: { slug: string } }>('/api/plugins/:slug', { schema: { params: slugParams } }, async (request, reply) => {
    try {
      await removePlugin(request.params.slug, host);
    } finally {
      destinations.forget();
    }
    return reply.code(204).send();
  });
  app.get<{ Params: { slug: string } }>('/api/plugins/:slug/settings', { schema: { params: slugParams } }, async (request) =>
    pluginSettingsView(await destinations.usable(request.params.slug), host),
  );
  app.put<{ Params: { slug: string }; Body: { settings?: Record<string, string | number | boolean>; secrets?: Record<string, string>; forgetSecrets?: string[] } }>(
    '/api/plugins/:slug/settings',
    { schema: { params: slugParams, ...schemas.pluginSettings } },
    async (request) => {
      const d = await destinations.usable(request.params.slug);
      const { settings = {}, secrets = {}, forgetSecrets = [] } = request.body;
      for (const key of [...Object.keys(secrets), ...forgetSecrets]) {
        if (!d.descriptor.secretFields.some((f) => f.id === key)) throw new HttpError(400, 'bad_setting', `${d.descriptor.display} has no secret "${key}".`);
      }
      applySettings(d.descriptor, Object.entries(settings).map(([k, v]) => [k, String(v)] as const), host);
      const store = secretsOf(d.slug, host);
      // An empty secret field means "keep the stored one": the page never has it to send back.
      for (const [key, value] of Object.entries(secrets)) if (value.trim() !== '') store.set(key, value);
      for (const key of forgetSecrets) store.delete(key);
      return pluginSettingsView(d, host);
    },
  );
  // Check tests the values in the form (over the stored ones) and stores nothing: only Save stores.
  app.post<{ Params: { slug: string }; Body: UnsavedSettings | undefined }>('/api/plugins/:slug/check', { schema: { params: slugParams, ...schemas.pluginCheck } }, async (request) => {
    const d = await destinations.usable(request.params.slug);
    const form = request.body ?? {};
    return checkView(d, host, (detail) => request.log.info({ slug: request.params.slug, detail }, 'check'), { settings: form.settings ?? {}, secrets: form.secrets ?? {} });
  });
  app.post<{ Params: { slug: string }; Body: { withSecrets: boolean } }>('/api/plugins/:slug/config/export', { schema: { params: slugParams, ...schemas.configExport } }, async (request): Promise<ConfigExportView> => {
    const d = await destinations.usable(request.params.slug);
    const fileName = `${d.slug}-settings.json`;
    const { url, path } = await newDownload(fileName);
    const report = exportSettings(d.descriptor, path, request.body.withSecrets, host);
    return {
      download: { url, fileName, bytes: (await stat(path)).size },
      settings: report.settings,
      secretsWritten: report.secretsWritten,
      secretsUnreadable: report.secretsUnreadable,
      secretsNotSet: report.secretsNotSet,
      warnings: request.body.withSecrets ? exportWarnings(report) : [],
    };
  });
  app.post<{ Params: { slug: string }; Body: { content: string } }>('/api/plugins/:slug/config/import', { schema: { params: slugParams, ...schemas.configImport } }, async (request): Promise<ConfigImportView> => {
    const d = await destinations.usable(request.params.slug);
    const dir = await mkdtemp(join(sessionDir, 'staging', 'import-'));
    const path = join(dir, 'settings.json');
    try {
      await writeFile(path, request.body.content, { mode: 0o600 });
      const report = importSettings(d.descriptor, path, host);
      return { settings: report.settings, secrets: report.secrets };
    } catch (e) {
      // The bundle's path means nothing to the person who picked the file.
      if (e instanceof Error) e.message = e.message.split(path).join('The file');
      throw e;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  await documents.restore(offerDownload);
  await app.ready();

  let closing: Promise<void> | undefined;
  return {
    app,
    token,
    sessionDir,
    libraryDir,
    documents: () => documents.list(),
    unexported: () => documents.unexported(),
    url: (origin) => `${origin.replace(/\/+$/, '')}/?token=${encodeURIComponent(token)}`,
    close: () =>
      (closing ??= (async () => {
        for (const res of streams) res.end();
        streams.clear();
        await documents.close();
        await app.close();
        if (ownSession) await rm(sessionDir, { recursive: true, force: true });
      })()),
  };
}
