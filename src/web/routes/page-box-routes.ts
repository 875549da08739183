/**
 * The routes of pages set by hand (see `page-boxes.ts`): `PUT /api/documents/:id/frames/:index/pages` keeps the
 * boxes (or the split) a person set on a capture and makes that frame again; `DELETE` goes back to the automatic
 * split and crop. Both answer 202 with the document's summary; the new pages reach the window through the event
 * stream, as every task's outcome does.
 */
import type { FastifyInstance } from 'fastify';
import { isQuireError } from '../../errors.js';
import { httpError } from '../../http/index.js';
import type { HandSetPages } from '../../project/index.js';
import type { DocumentStore } from '../documents.js';
import { busy } from '../http-errors.js';
import { checkFramePages, remakeFrame } from '../page-boxes.js';
import { pageParams } from '../schemas.js';
import { ocrStage, pagesStage } from '../stages.js';

const box = {
  type: 'object',
  properties: { x: { type: 'integer' }, y: { type: 'integer' }, width: { type: 'integer' }, height: { type: 'integer' } },
  required: ['x', 'y', 'width', 'height'],
  additionalProperties: false,
} as const;

const pagesBody = {
  type: 'object',
  properties: { boxes: { type: 'array', items: box, minItems: 1, maxItems: 2 }, splitX: { type: 'integer' } },
  oneOf: [{ required: ['boxes'] }, { required: ['splitX'] }],
  additionalProperties: false,
} as const;

type Params = { id: string; index: number };

export function registerPageBoxRoutes(app: FastifyInstance, deps: { documents: DocumentStore; userWords: () => readonly string[] }): void {
  const { documents } = deps;

  const remake = async (id: string, frame: number, pages: HandSetPages | null) => {
    const doc = documents.get(id);
    if (doc.task) throw busy();
    if (doc.preset === 'flat') throw httpError('bad_page_box', 'Pages set by hand need the book or sheet preset: rerun the document with one of them first.');
    const view = await documents.frame(id, frame);
    if (pages) {
      try {
        checkFramePages(pages, view);
      } catch (e) {
        if (isQuireError(e)) throw httpError('bad_page_box', e.message);
        throw e;
      }
    }
    const stages = doc.manifest?.ocr ? [pagesStage(1), ocrStage()] : [pagesStage(1)];
    return documents.startTask(id, 'rerun', stages, (d, signal, report) => remakeFrame({ doc: d, frame, pages, userWords: deps.userWords(), signal, report }));
  };

  app.put<{ Params: Params; Body: HandSetPages }>(
    '/api/documents/:id/frames/:index/pages',
    { schema: { params: pageParams, body: pagesBody } },
    async (request, reply) => reply.code(202).send(await remake(request.params.id, request.params.index, request.body)),
  );
  app.delete<{ Params: Params }>('/api/documents/:id/frames/:index/pages', { schema: { params: pageParams } }, async (request, reply) =>
    reply.code(202).send(await remake(request.params.id, request.params.index, null)),
  );
}
