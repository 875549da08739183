/** The Plugins tab: installed destinations, the registry, install and remove. */
import type { FastifyInstance } from 'fastify';
import { installFromRegistry, removePlugin } from '../../plugins/index.js';
import { isolationView, pluginView, registryDetail, registryView, secretStoreName } from '../plugins.js';
import { schemas, slugParams } from '../schemas.js';
import type { GuiContext } from './context.js';

export function registerPluginRoutes(app: FastifyInstance, ctx: GuiContext): void {
  const { host, registry, destinations, words, knownDestinations } = ctx;
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
  app.get<{ Params: { slug: string } }>('/api/registry/:slug', { schema: { params: slugParams } }, async (request) =>
    registryDetail(registry, request.params.slug, host),
  );
  app.post<{ Params: { slug: string }; Body: { allowUnisolated?: boolean } | undefined }>(
    '/api/plugins/:slug/install',
    { schema: { params: slugParams, ...schemas.pluginInstall } },
    async (request) => {
      try {
        // Where plugins cannot be isolated, the install dialog asks before it sets this (`--allow-unisolated`).
        const allowUnisolated = request.body?.allowUnisolated === true;
        const installed = await installFromRegistry(request.params.slug, { ...host, allowUnisolated, registry });
        return pluginView(installed, host);
      } finally {
        destinations.forget();
      }
    },
  );
  app.delete<{ Params: { slug: string } }>('/api/plugins/:slug', { schema: { params: slugParams } }, async (request, reply) => {
    try {
      await removePlugin(request.params.slug, host);
    } finally {
      destinations.forget();
    }
    return reply.code(204).send();
  });
}
