import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerContext } from './context.js';
import { sendArtifact } from './download.js';
import { readFields, readRunForm } from './forms.js';
import { apiError } from './http-errors.js';
import { inputPath, jobDir, outputPath, uploadsDir, type ArtifactKind } from './layout.js';
import { hashKey, isJobId, newJobId } from './secrets.js';
import { ACTIVE_STATUSES, type ApiKey, type Job } from './store.js';
import { apiKeyQuery, checkSchema, errorSchema, getSchema, jobCheck, jobGet, jobParams, listSchema, runSchema } from './views.js';

/** Room for the form's boundaries and short fields around the file, when judging a request by its Content-Length. */
const FORM_OVERHEAD = 64 * 1024;

export interface RunOptions {
  emailNotif: boolean;
  ocr: string | null;
  dpi: number | null;
}

/** `/run`'s optional fields, checked before a job exists. */
export function parseRunOptions(fields: Record<string, string>): RunOptions {
  const flag = (fields.email_notif ?? '').trim().toLowerCase();
  if (!['', 'true', 'false', '1', '0', 'yes', 'no', 'on', 'off'].includes(flag)) {
    throw apiError('bad_request', 'email_notif must be true or false.');
  }
  const ocr = (fields.ocr ?? '').trim();
  if (ocr !== '' && !/^[A-Za-z0-9:+=,._-]{1,200}$/.test(ocr)) throw apiError('bad_request', 'ocr must be an OCR spec such as auto or tesseract:lang=fra+lat.');
  const dpiText = (fields.dpi ?? '').trim();
  const dpi = dpiText === '' ? null : Number(dpiText);
  if (dpi !== null && !(/^\d+$/.test(dpiText) && dpi >= 50 && dpi <= 2400)) throw apiError('bad_request', 'dpi must be a whole number from 50 to 2400.');
  return { emailNotif: ['true', '1', 'yes', 'on'].includes(flag), ocr: ocr === '' ? null : serverOcrSpec(ocr), dpi };
}

/**
 * The remote OCR engine on the server runs as a batch unless the spec says `streaming`: a job does not hold the
 * queue for hours, and the batch is cheaper. `remoteocr` and `remoteocr:model=x` become `remoteocr:batch…`.
 */
export function serverOcrSpec(ocr: string): string {
  const m = /^remoteocr(?::(.*))?$/i.exec(ocr);
  if (!m) return ocr;
  const rest = m[1] ?? '';
  const first = rest.split(':')[0];
  if (first !== '' && !first.includes('=')) return ocr;
  return rest === '' ? 'remoteocr:batch' : `remoteocr:batch:${rest}`;
}

export function registerJobRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { store, dataDir } = ctx;

  async function authenticate(raw: unknown): Promise<ApiKey> {
    if (typeof raw !== 'string' || raw === '') throw apiError('unauthorized');
    const key = await store.findActiveKey(hashKey(raw));
    if (!key) throw apiError('unauthorized', 'The API key is not valid, or it was revoked.');
    return key;
  }

  /** The caller's job; another key's job is answered exactly like one that does not exist. */
  async function ownJob(jobId: string, key: ApiKey): Promise<Job> {
    const job = isJobId(jobId) ? await store.getJob(jobId) : null;
    if (!job || job.keyId !== key.keyId) throw apiError('not_found');
    return job;
  }

  /** `/check` and `/get` ask a parked OCR batch for its result first, so a client polling sees it at once. */
  async function freshJob(request: FastifyRequest<{ Params: { job_id: string }; Querystring: { api_key?: string } }>): Promise<Job> {
    const key = await authenticate(request.query.api_key);
    const job = await ownJob(request.params.job_id, key);
    if (job.status !== 'ocr_pending') return job;
    await ctx.processor.poll(job);
    return (await store.getJob(job.jobId)) ?? job;
  }

  app.post('/run', { schema: { response: { 200: runSchema, '4xx': errorSchema, '5xx': errorSchema } } }, async (request) => {
    if (ctx.draining()) throw apiError('shutting_down');
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > ctx.maxUpload + FORM_OVERHEAD) throw apiError('too_large');
    let key: ApiKey | null = null;
    const form = await readRunForm(request, {
      tempDir: uploadsDir(dataDir),
      maxUpload: ctx.maxUpload,
      checkKey: async (raw) => {
        key = await authenticate(raw);
        await ctx.checkRunRate(request, key);
      },
    });
    // Set inside checkKey, which TypeScript cannot follow.
    const owner = key as ApiKey | null;
    const upload = form.upload;
    try {
      if (!owner) throw apiError('unauthorized');
      if (!upload) throw apiError('missing_file');
      const options = parseRunOptions(form.fields);
      if (ctx.draining()) throw apiError('shutting_down');
      const jobId = newJobId();
      const dir = jobDir(dataDir, jobId);
      await mkdir(dir);
      try {
        await rename(upload.tempPath, inputPath(dataDir, { jobId, inputExt: upload.type }));
        // The row comes last: a job exists only once its upload is complete and in place.
        await store.insertJob({ jobId, keyId: owner.keyId, uploadName: upload.name, inputExt: upload.type, ...options }, Date.now());
      } catch (e) {
        await rm(dir, { recursive: true, force: true });
        throw e;
      }
      request.log.info({ jobId, keyId: owner.keyId, upload: upload.name }, 'job submitted');
      ctx.processor.kick();
      return { job_id: jobId, status: 'pending' };
    } catch (e) {
      if (upload) await rm(upload.tempPath, { force: true });
      throw e;
    }
  });

  app.get<{ Querystring: { api_key?: string; limit?: number } }>(
    '/list',
    {
      schema: {
        querystring: { type: 'object', properties: { ...apiKeyQuery.properties, limit: { type: 'integer', minimum: 1, maximum: 100000 } } },
        response: { 200: listSchema, '4xx': errorSchema },
      },
    },
    async (request, reply) => {
      const key = await authenticate(request.query.api_key);
      // Already JSON (see listJobsJson): sent as is, the schema above documents it.
      const jobs = await store.listJobsJson(key.keyId, request.query.limit);
      return reply.type('application/json; charset=utf-8').send(`{"jobs":${jobs}}`);
    },
  );

  app.get<{ Params: { job_id: string }; Querystring: { api_key?: string } }>(
    '/check/:job_id',
    { schema: { params: jobParams, querystring: apiKeyQuery, response: { 200: checkSchema, '4xx': errorSchema } } },
    async (request) => jobCheck(await freshJob(request)),
  );

  app.get<{ Params: { job_id: string }; Querystring: { api_key?: string } }>(
    '/get/:job_id',
    { schema: { params: jobParams, querystring: apiKeyQuery, response: { 200: getSchema, '4xx': errorSchema } } },
    async (request) => jobGet(await freshJob(request), await ctx.linkBase(request)),
  );

  // No key: the job id is the capability, so links in the completion email work when clicked.
  app.get<{ Params: { job_id: string; kind: string } }>('/download/:job_id/:kind', async (request, reply) => {
    const { job_id: jobId, kind } = request.params;
    if (kind !== 'pdf' && kind !== 'md') throw apiError('bad_kind');
    const job = isJobId(jobId) ? await store.getJob(jobId) : null;
    if (!job) throw apiError('not_found');
    if (job.status !== 'done' || (kind === 'md' && !job.hasMd)) throw apiError('no_artifact');
    const name = job.docName ?? basename(job.uploadName, extname(job.uploadName));
    return sendArtifact(reply, outputPath(dataDir, jobId, kind as ArtifactKind), kind as ArtifactKind, name, request.headers.range);
  });

  app.post<{ Params: { job_id: string } }>(
    '/cancel/:job_id',
    { schema: { params: jobParams, response: { 200: runSchema, '4xx': errorSchema } } },
    async (request) => {
      const key = await authenticate((await readFields(request)).api_key);
      const job = await ownJob(request.params.job_id, key);
      if (!ACTIVE_STATUSES.includes(job.status)) throw apiError('not_cancellable');
      if (job.status === 'ocr_pending') await ctx.processor.cancelBatch(job);
      const before = await store.cancelJob(job.jobId, key.keyId, Date.now());
      if (!before) throw apiError('not_found');
      if (!ACTIVE_STATUSES.includes(before.status)) throw apiError('not_cancellable');
      // A running job stops at its next frame boundary; its worker removes what it wrote after this.
      ctx.processor.abort(job.jobId);
      await rm(jobDir(dataDir, job.jobId), { recursive: true, force: true });
      request.log.info({ jobId: job.jobId, was: before.status }, 'job cancelled');
      return { job_id: job.jobId, status: 'cancelled' };
    },
  );

  app.post<{ Params: { job_id: string } }>(
    '/delete/:job_id',
    { schema: { params: jobParams, response: { 200: { type: 'object', properties: { deleted: { type: 'boolean' } } }, '4xx': errorSchema } } },
    async (request) => {
      const key = await authenticate((await readFields(request)).api_key);
      const job = await ownJob(request.params.job_id, key);
      if (job.status === 'ocr_pending') await ctx.processor.cancelBatch(job);
      if (!(await store.deleteJob(job.jobId, key.keyId))) throw apiError('not_found');
      ctx.processor.abort(job.jobId);
      await rm(jobDir(dataDir, job.jobId), { recursive: true, force: true });
      request.log.info({ jobId: job.jobId, was: job.status }, 'job deleted');
      return { deleted: true };
    },
  );
}
