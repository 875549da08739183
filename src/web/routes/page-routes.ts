/** A document's pages and the frames they came from: shown, hidden, their text and words read and corrected (proofreading). */
import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { pageParams, schemas, wordParams } from '../schemas.js';
import type { GuiContext } from './context.js';

export function registerPageRoutes(app: FastifyInstance, ctx: GuiContext): void {
  const { documents } = ctx;
  app.patch<{ Params: { id: string; index: number }; Body: { hidden: boolean } }>(
    '/api/documents/:id/pages/:index',
    { schema: { params: pageParams, ...schemas.page } },
    async (request) => documents.setHidden(request.params.id, request.params.index, request.body.hidden),
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
}
