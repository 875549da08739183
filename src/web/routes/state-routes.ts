/** The app's state as a window boots (engines, presets, settings) and the stream of changes that follows. */
import type { FastifyInstance } from 'fastify';
import { describeOcrEngines, languageName, PRESETS, registerOcrPlugins } from '../../convert/index.js';
import { VERSION } from '../../version.js';
import type { BootState } from '../api-types.js';
import { schemas } from '../schemas.js';
import { settingsView } from '../settings.js';
import { isLoopback, type GuiContext } from './context.js';

export function registerStateRoutes(app: FastifyInstance, ctx: GuiContext): void {
  const { host, words, documents, streams } = ctx;
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
}
