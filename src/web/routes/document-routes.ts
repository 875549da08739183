/** Documents: listed, opened from uploaded files, shown, removed, cancelled, processed again, read (OCR). */
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { httpError } from '../../http/index.js';
import { formatBytes } from '../../util/index.js';
import type { PresetChoice } from '../api-types.js';
import type { UploadedFile } from '../documents.js';
import { idParams, schemas } from '../schemas.js';
import { checkOcrChoice } from '../settings.js';
import { checkedUpload } from '../upload-check.js';
import { MAX_UPLOAD } from '../upload-kind.js';
import type { GuiContext } from './context.js';

/** A name from the browser made safe as one file name in our folder. */
export function uploadName(raw: string | undefined, taken: ReadonlySet<string>): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned =
    base
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f<>:"|?*]+/g, '_')
      .replace(/^\.+/, '')
      .trim()
      .slice(0, 180) || 'upload';
  let name = cleaned;
  for (let n = 2; taken.has(name); n++) name = `${n}-${cleaned}`;
  return name;
}

export function registerDocumentRoutes(app: FastifyInstance, ctx: GuiContext): void {
  const { documents } = ctx;
  app.get('/api/documents', async () => documents.list());

  app.post('/api/documents', async (request, reply) => {
    if (!request.isMultipart()) throw httpError('missing_file', 'Send the files as a multipart form.');
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
        if (part.file.truncated) throw httpError('too_large', `${name} is larger than Quire opens here (${formatBytes(MAX_UPLOAD)}).`);
        if ((await stat(path)).size === 0) throw httpError('empty_file', `${name} is empty.`);
        files.push({ path, name });
      }
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      throw e;
    }
    const summary = await documents.open(id, dir, inputDir, files);
    return reply.code(202).send(summary);
  });

  app.get<{ Params: { id: string } }>('/api/documents/:id', { schema: { params: idParams } }, async (request) =>
    documents.detail(documents.get(request.params.id)),
  );
  app.delete<{ Params: { id: string } }>('/api/documents/:id', { schema: { params: idParams } }, async (request, reply) => {
    await documents.remove(request.params.id);
    return reply.code(204).send();
  });
  app.post<{ Params: { id: string } }>('/api/documents/:id/cancel', { schema: { params: idParams } }, async (request) => documents.cancel(request.params.id));
  app.post<{ Params: { id: string }; Body: { preset: PresetChoice } }>(
    '/api/documents/:id/rerun',
    { schema: { params: idParams, ...schemas.rerun } },
    async (request, reply) => reply.code(202).send(await documents.rerun(request.params.id, request.body.preset)),
  );
  app.post<{ Params: { id: string }; Body: { engine: string; languages: string } }>(
    '/api/documents/:id/ocr',
    { schema: { params: idParams, ...schemas.ocr } },
    async (request, reply) => {
      const { engine, languages } = request.body;
      checkOcrChoice(engine, languages);
      return reply.code(202).send(await documents.recognize(request.params.id, engine, languages));
    },
  );
}
