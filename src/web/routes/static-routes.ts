/** The page itself and its assets: served from memory, only the files the build wrote. */
import type { FastifyInstance } from 'fastify';
import { httpError } from '../../http/index.js';
import { notFound } from '../http-errors.js';
import type { loadUi } from '../static.js';

export function registerStaticRoutes(app: FastifyInstance, ui: ReturnType<typeof loadUi>): void {
  const page = (url: string): ReturnType<typeof ui.get> => ui.get(url);
  app.get('/', async (_request, reply) => {
    const file = page('/');
    if (!file) throw httpError('not_built', "The app's page has not been built; run npm run build.");
    return reply
      .type(file.type)
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'self'; img-src 'self' blob: data:; style-src 'self' 'unsafe-inline'")
      .send(file.body);
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
}
