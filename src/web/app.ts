/**
 * `createGuiApp()`: the local web app's server, built without listening (tests use `app.inject`;
 * `quire gui` listens on 127.0.0.1). The page and every route under `/api` answer 401 without the
 * session token. Work runs in this process through the same conversion verbs as the CLI, the
 * OCR engines and the plugin host; progress reaches the page as server-sent events. The routes live in
 * `routes/`, one group a file; this file builds what they share and registers them.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ServerResponse } from 'node:http';
import { createErrorHandler, errorBody } from '../http/index.js';
import { defaultRegistry, resolveHostOptions, type PluginHostOptions, type ResolvedHostOptions } from '../plugins/index.js';
import type { DocumentSummary } from './api-types.js';
import { newSessionToken, requireToken } from './auth.js';
import { UserDictionary } from './dictionary.js';
import { DocumentStore, type ProcessPagesFn } from './documents.js';
import { ERROR_WORDS } from './http-errors.js';
import { libraryFolder } from './library.js';
import { inInterfaceWords } from './interface-words.js';
import { DestinationCache } from './plugins.js';
import { readGuiSettings } from './settings.js';
import { defaultUiDir, loadUi } from './static.js';
import { systemOpen, type FolderOpener } from './system-open.js';
import { MAX_UPLOAD } from './upload-kind.js';
import { Downloads, type GuiContext } from './routes/context.js';
import { registerDictionaryRoutes } from './routes/dictionary-routes.js';
import { registerDocumentRoutes } from './routes/document-routes.js';
import { registerExportRoutes } from './routes/export-routes.js';
import { registerPageBoxRoutes } from './routes/page-box-routes.js';
import { registerPagePluginRoutes } from './routes/page-plugin-routes.js';
import { registerPageRoutes } from './routes/page-routes.js';
import { registerPluginRoutes } from './routes/plugin-routes.js';
import { registerPluginSettingsRoutes } from './routes/plugin-settings-routes.js';
import { registerSettingsRoutes } from './routes/settings-routes.js';
import { registerStateRoutes } from './routes/state-routes.js';
import { registerStaticRoutes } from './routes/static-routes.js';

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

/** The Fastify instance with its limits and its refusals in the window's words. */
async function buildFastify(options: GuiAppOptions, words: (message: string) => string): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ? { level: options.logger.level ?? 'info', ...(options.logger.stream ? { stream: options.logger.stream } : {}) } : false,
    bodyLimit: 1024 * 1024,
  });
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD, files: 2000, fields: 10 } });
  const baseErrorHandler = createErrorHandler(ERROR_WORDS);
  // Every refusal the page shows speaks of the window, not of the command line.
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof Error && typeof error.message === 'string') error.message = words(error.message);
    baseErrorHandler(error, request, reply);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorBody('no_route', `There is nothing at ${request.url.split('?')[0]}.`));
  });
  return app;
}

export async function createGuiApp(options: GuiAppOptions = {}): Promise<GuiApp> {
  const token = options.token ?? newSessionToken();
  const ownSession = options.sessionDir === undefined;
  const sessionDir = options.sessionDir ?? (await mkdtemp(join(tmpdir(), 'quire-gui-')));
  await mkdir(join(sessionDir, 'downloads'), { recursive: true });
  await mkdir(join(sessionDir, 'staging'), { recursive: true, mode: 0o700 });
  const host: ResolvedHostOptions = resolveHostOptions(options.host);
  const destinations = new DestinationCache(host);
  const streams = new Set<ServerResponse>();
  // Plugin names as last seen, so a message about a plugin names it as the Plugins tab does.
  const displayNames = new Map<string, string>();
  const knownDestinations = async (): Promise<Awaited<ReturnType<DestinationCache['all']>>> => {
    const all = await destinations.all();
    for (const d of all) displayNames.set(d.slug, d.state === 'refused' ? (d.manifest?.name ?? d.slug) : d.descriptor.display);
    return all;
  };
  const words = (message: string): string => inInterfaceWords(message, (slug) => displayNames.get(slug));
  const app = await buildFastify(options, words);

  const send = (event: string, data: unknown): void => {
    const line = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of streams) res.write(line);
  };
  const libraryDir = options.libraryDir ?? libraryFolder(host.appData);
  const dictionary = await UserDictionary.open(host.appData);
  const documents = new DocumentStore({
    libraryDir,
    knownWord: (text) => dictionary.knows(text),
    userWords: () => dictionary.words(),
    settings: () => readGuiSettings(host.appData),
    onChange: (summary) => send('document', summary),
    onRemove: (id) => send('removed', { id }),
    ...(options.processPages ? { processPages: options.processPages } : {}),
  });
  const ctx: GuiContext = {
    host,
    registry: options.registry ?? (process.env.QUIRE_REGISTRY || defaultRegistry()),
    sessionDir,
    documents,
    dictionary,
    destinations,
    knownDestinations,
    words,
    streams,
    send,
    downloads: new Downloads(sessionDir),
    openFolder: options.openFolder ?? ((folder: string) => systemOpen(folder)),
  };

  // The token, before anything else: the page, its assets and every API route.
  requireToken(app, token);
  registerStaticRoutes(app, loadUi(options.uiDir ?? defaultUiDir()));
  registerStateRoutes(app, ctx);
  registerSettingsRoutes(app, ctx);
  registerDocumentRoutes(app, ctx);
  registerPageRoutes(app, ctx);
  registerPageBoxRoutes(app, { documents: ctx.documents, userWords: () => ctx.dictionary.words() });
  registerDictionaryRoutes(app, ctx);
  registerExportRoutes(app, ctx);
  registerPluginRoutes(app, ctx);
  registerPagePluginRoutes(app, { host: ctx.host, registry: ctx.registry, words: ctx.words });
  registerPluginSettingsRoutes(app, ctx);

  await documents.restore((path, fileName) => ctx.downloads.offer(path, fileName));
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
