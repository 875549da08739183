/** Export: the cards the page offers, an export run as the document's task, Open folder, and the session's downloads. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { httpError } from '../../http/index.js';
import { exporterCards, exportStages, resolveExport, runExport, type ExportAsk } from '../exports.js';
import { notFound } from '../http-errors.js';
import { idParams, schemas } from '../schemas.js';
import { exportFolderOf, readGuiSettings } from '../settings.js';
import { isLoopback, type GuiContext } from './context.js';

/** `Content-Disposition` for a download, with the UTF-8 name and a plain ASCII fallback. */
export function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export function registerExportRoutes(app: FastifyInstance, ctx: GuiContext): void {
  const { host, documents, downloads, words, knownDestinations } = ctx;
  app.get('/api/exporters', async () => exporterCards(await knownDestinations(), host).map((c) => (c.reason ? { ...c, reason: words(c.reason) } : c)));
  app.post<{ Params: { id: string }; Body: ExportAsk }>(
    '/api/documents/:id/export',
    { schema: { params: idParams, ...schemas.exportAsk } },
    async (request, reply) => {
      const doc = documents.get(request.params.id);
      const settings = await readGuiSettings(host.appData);
      const offerDownload = (path: string, fileName: string): string => downloads.offer(path, fileName);
      const context = {
        host,
        settings,
        destinations: knownDestinations,
        exportFolder: exportFolderOf(settings),
        offerDownload,
        stagingRoot: join(ctx.sessionDir, 'staging'),
        userWords: ctx.dictionary.words(),
      };
      // Refusals (not set up, no such format) answer this request; the export itself runs as the document's task.
      const resolved = await resolveExport(request.body, context);
      const stages = doc.manifest ? exportStages(resolved, doc.manifest, settings) : [];
      return reply
        .code(202)
        .send(documents.exportTask(doc.id, stages, (d, projectDir, signal, report) => runExport(d, projectDir, resolved, context, signal, report)));
    },
  );
  app.post<{ Params: { id: string } }>('/api/documents/:id/open-folder', { schema: { params: idParams } }, async (request, reply) => {
    const doc = documents.get(request.params.id);
    const folder = doc.lastExport?.folder;
    if (!folder) throw httpError('no_export', 'This document has no export in a folder yet.');
    if (!isLoopback(request.ip))
      throw httpError('not_local', 'Open folder shows the folder on the computer Quire runs on, and this window is on another one; use Download instead.');
    try {
      await ctx.openFolder(folder);
    } catch {
      throw httpError('no_file_manager', `No file manager could be started here; the files are in ${folder}.`);
    }
    return reply.code(204).send();
  });
  app.get<{ Params: { id: string } }>('/api/downloads/:id', { schema: { params: idParams } }, async (request, reply) => {
    const file = downloads.get(request.params.id);
    if (!file) throw notFound('download');
    // A file in the export folder may have been moved or deleted since.
    if (!(await stat(file.path).catch(() => undefined))?.isFile())
      throw httpError('not_found', `${file.fileName} is no longer where Quire wrote it; export it again.`);
    return reply
      .type('application/octet-stream')
      .header('content-disposition', attachment(file.fileName))
      .header('cache-control', 'no-store')
      .send(createReadStream(file.path));
  });
}
