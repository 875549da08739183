import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { declaredLength, FORM_OVERHEAD, headerKey, type Pass, type Slot } from './admission.js';
import type { ServerContext } from './context.js';
import { isDiskFull } from './disk.js';
import { sendArtifact } from './download.js';
import { readFields, readRunForm } from './forms.js';
import { apiError } from './http-errors.js';
import { inputPath, jobDir, outputPath, uploadsDir, type ArtifactKind } from './layout.js';
import { errorResponses, textField, withForm, type FormDoc } from './openapi.js';
import { hashKey, isJobId, jobTag, newJobId } from './secrets.js';
import { ACTIVE_STATUSES, type ApiKey, type Job } from './store.js';
import { apiKeyQuery, checkSchema, getSchema, jobCheck, jobGet, jobParams, listSchema, runSchema } from './views.js';
import { checkWebhookUrl } from './webhooks.js';

/** `/run`'s form, as the OpenAPI document shows it. */
const RUN_FORM: FormDoc = {
  type: 'object',
  properties: {
    api_key: textField('The API key, unless it is sent in a header; it must come before the file.'),
    file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The scan bundle (.aglbundle, .zip) or PDF (.pdf).' },
    ocr: textField('OCR spec such as auto, tesseract:lang=fra+lat or remoteocr (run as a batch); none or absent: a plain image PDF.'),
    dpi: textField('Forces the input resolution, 50 to 2400.'),
    email_notif: textField('true: email the download links to the key owner when the job is done.'),
    webhook_url: textField("http(s) address posted to when the job ends (done, failed, cancelled), signed with the key's webhook secret."),
  },
  required: ['file'],
};

/** The key of a small POST form (`/cancel`, `/delete`). */
const KEY_FORM: FormDoc = { type: 'object', properties: { api_key: textField('The API key, unless it is sent in a header.') }, urlencoded: true };
const SECURED: Array<Record<string, string[]>> = [{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }];
const JOBS_TAG = ['jobs'];

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

/** `/list` pages: this many jobs unless the client asks, at most 500. */
export const LIST_DEFAULT = 50;
export const LIST_MAX = 500;

/** A `/list` cursor: opaque to clients, the submission number of the first job of the next page. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string): number | null {
  const m = /^s(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return m ? Number(m[1]) : null;
}

export function registerJobRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const access = jobAccess(ctx);
  registerSubmission(app, ctx, access);
  registerLookups(app, ctx, access);
  registerEnds(app, ctx, access);
}

/** How the job routes know the caller and their job. */
interface JobAccess {
  authenticate(raw: unknown, request: FastifyRequest): Promise<ApiKey>;
  queryKey(request: FastifyRequest<{ Querystring: { api_key?: string } }>): Promise<ApiKey>;
  formKey(request: FastifyRequest): Promise<ApiKey>;
  ownJob(jobId: string, key: ApiKey): Promise<Job>;
  currentJob(request: FastifyRequest<{ Params: { job_id: string }; Querystring: { api_key?: string } }>): Promise<Job>;
  webhookOf(raw: string | undefined, key: ApiKey): Promise<string | null>;
}

function jobAccess(ctx: ServerContext): JobAccess {
  const { store } = ctx;

  /** The key `raw` names; a wrong one counts against the caller's address, which is refused once over its allowance. */
  async function authenticate(raw: unknown, request: FastifyRequest): Promise<ApiKey> {
    ctx.authThrottle.check(request.ip);
    if (typeof raw !== 'string' || raw === '') throw apiError('unauthorized');
    const key = await store.findActiveKey(hashKey(raw));
    if (!key) {
      ctx.authThrottle.failed(request.ip);
      throw apiError('unauthorized', 'The API key is not valid, or it was revoked.');
    }
    return key;
  }

  /** The key of a GET: a header, else the `api_key` query parameter. */
  const queryKey = (request: FastifyRequest<{ Querystring: { api_key?: string } }>): Promise<ApiKey> =>
    authenticate(headerKey(request.headers) ?? request.query.api_key, request);
  /** The key of a small POST: a header, else the form's `api_key`. */
  const formKey = async (request: FastifyRequest): Promise<ApiKey> => authenticate(headerKey(request.headers) ?? (await readFields(request)).api_key, request);

  /** The caller's job; another key's job is answered exactly like one that does not exist. */
  async function ownJob(jobId: string, key: ApiKey): Promise<Job> {
    const job = isJobId(jobId) ? await store.getJob(jobId) : null;
    if (!job || job.keyId !== key.keyId) throw apiError('not_found');
    return job;
  }

  /**
   * `/check` and `/get` answer from the database at once; for a parked OCR batch they also have it polled in the
   * background, so a client polling sees the result on a later call without ever waiting on the OCR service.
   */
  async function currentJob(request: FastifyRequest<{ Params: { job_id: string }; Querystring: { api_key?: string } }>): Promise<Job> {
    const job = await ownJob(request.params.job_id, await queryKey(request));
    if (job.status === 'ocr_pending') ctx.requestPoll(job);
    return job;
  }

  /** A `webhook_url` the key may use and this server posts to; null when none was given. */
  async function webhookOf(raw: string | undefined, key: ApiKey): Promise<string | null> {
    if (raw === undefined || raw.trim() === '') return null;
    const url = await checkWebhookUrl(raw, ctx.webhookPolicy);
    if ((await store.getWebhookSecret(key.keyId)) === null) {
      throw apiError('bad_webhook', 'This API key was made before webhooks existed and has no secret to sign them with; ask the admin for a new key.');
    }
    return url;
  }

  return { authenticate, queryKey, formKey, ownJob, currentJob, webhookOf };
}

/** `POST /run`: an upload becomes a queued job. */
function registerSubmission(app: FastifyInstance, ctx: ServerContext, access: JobAccess): void {
  const { store, dataDir, admission } = ctx;
  const { authenticate, webhookOf } = access;

  const runSchemaDoc = {
    summary: 'Submit a job',
    tags: JOBS_TAG,
    security: SECURED,
    'x-form': RUN_FORM,
    response: {
      200: { ...runSchema, description: 'The job is queued.' },
      ...errorResponses(
        'bad_request',
        'unsupported_file',
        'missing_file',
        'bad_webhook',
        'unauthorized',
        'auth_throttled',
        'upload_timeout',
        'too_large',
        'rate_limited',
        'too_many_uploads',
        'too_many_unverified',
        'queue_full',
        'storage_full',
        'busy',
        'shutting_down',
        'disk_full',
      ),
    },
  };

  app.post('/run', { schema: runSchemaDoc }, async (request) => {
    if (ctx.draining()) throw apiError('shutting_down');
    const declared = declaredLength(request.headers);
    if (declared !== null && declared > ctx.maxUpload + FORM_OVERHEAD) throw apiError('too_large');
    // Everything that can be refused without the body is refused before a byte of it is read. An upload slot is
    // taken only once the key is verified: a connection without one holds nothing but its address's pass.
    let slot: Slot | null = null;
    let pass: Pass | null = null;
    try {
      await admission.checkDisk(declared);
      let key: ApiKey | null = null;
      const admit = async (raw: string): Promise<void> => {
        const k = await authenticate(raw, request);
        await ctx.checkRunRate(request, k);
        await admission.checkKey(k, declared);
        slot = admission.enter();
        slot.bind(k);
        pass?.leave();
        key = k;
      };
      const fromHeader = headerKey(request.headers);
      if (fromHeader !== null) await admit(fromHeader);
      else pass = admission.awaitKey(request.ip);
      const form = await readRunForm(request, {
        tempDir: uploadsDir(dataDir),
        maxUpload: ctx.maxUpload,
        keyKnown: fromHeader !== null,
        checkKey: admit,
        idleMs: ctx.limits.uploadIdleMs,
        keyWaitMs: ctx.limits.uploadKeyMs,
        deadlineMs: ctx.limits.uploadDeadlineMs,
        minBytesPerSecond: ctx.limits.uploadMinBytesPerSecond,
      });
      // Set inside admit, which TypeScript cannot follow.
      const owner = key as ApiKey | null;
      const upload = form.upload;
      try {
        if (!owner) throw apiError('unauthorized');
        if (!upload) throw apiError('missing_file');
        const options = parseRunOptions(form.fields);
        const webhookUrl = await webhookOf(form.fields.webhook_url, owner);
        if (ctx.draining()) throw apiError('shutting_down');
        const inputBytes = (await stat(upload.tempPath)).size;
        // A body sent without its length is held to the key's allowance once it is here.
        if (declared === null) await admission.checkQuota(owner, inputBytes);
        const jobId = newJobId();
        const dir = jobDir(dataDir, jobId);
        await mkdir(dir);
        try {
          await rename(upload.tempPath, inputPath(dataDir, { jobId, inputExt: upload.type }));
          // The row comes last: a job exists only once its upload is complete and in place.
          const linkBase = await ctx.linkBase(request);
          await store.insertJob(
            { jobId, keyId: owner.keyId, uploadName: upload.name, inputExt: upload.type, inputBytes, webhookUrl, linkBase, ...options },
            ctx.clock(),
          );
        } catch (e) {
          await rm(dir, { recursive: true, force: true });
          throw isDiskFull(e) ? apiError('disk_full') : e;
        }
        request.log.info({ job: jobTag(jobId), keyId: owner.keyId, bytes: inputBytes }, 'job submitted');
        ctx.processor.kick();
        return { job_id: jobId, status: 'pending' };
      } catch (e) {
        if (upload) await rm(upload.tempPath, { force: true });
        throw e;
      }
    } finally {
      (slot as Slot | null)?.leave();
      (pass as Pass | null)?.leave();
    }
  });
}

/** `/list`, `/check`, `/get` and `/download`: what the caller may see of their jobs. */
function registerLookups(app: FastifyInstance, ctx: ServerContext, access: JobAccess): void {
  const { store, dataDir } = ctx;
  const { queryKey, currentJob } = access;

  app.get<{ Querystring: { api_key?: string; limit?: number; cursor?: string } }>(
    '/list',
    {
      schema: {
        summary: "The caller's jobs, newest first, a page at a time",
        tags: JOBS_TAG,
        security: SECURED,
        querystring: {
          type: 'object',
          properties: {
            ...apiKeyQuery.properties,
            limit: { type: 'integer', minimum: 1, maximum: LIST_MAX, description: `Jobs in the page; default ${LIST_DEFAULT}.` },
            cursor: { type: 'string', maxLength: 64, description: 'The next value of the page before.' },
          },
        },
        response: {
          200: { ...listSchema, description: 'A page of jobs; next is there when another page follows.' },
          ...errorResponses('bad_request', 'unauthorized', 'auth_throttled'),
        },
      },
    },
    async (request, reply) => {
      const key = await queryKey(request);
      const cursor = request.query.cursor === undefined ? null : decodeCursor(request.query.cursor);
      if (request.query.cursor !== undefined && cursor === null) throw apiError('bad_request', 'cursor must be the next value of an earlier /list answer.');
      const page = await store.listJobsPage(key.keyId, request.query.limit ?? LIST_DEFAULT, cursor);
      // Already JSON (see listJobsPage): sent as is, the schema above documents it.
      const next = page.next === null ? '' : `,"next":${JSON.stringify(encodeCursor(page.next))}`;
      return reply.type('application/json; charset=utf-8').send(`{"jobs":${page.json}${next}}`);
    },
  );

  app.get<{ Params: { job_id: string }; Querystring: { api_key?: string } }>(
    '/check/:job_id',
    {
      schema: {
        summary: "A job's status and progress (a parked OCR batch is polled)",
        tags: JOBS_TAG,
        security: SECURED,
        params: jobParams,
        querystring: apiKeyQuery,
        response: {
          200: { ...checkSchema, description: 'The job as it is now.' },
          ...errorResponses('bad_request', 'unauthorized', 'auth_throttled', 'not_found'),
        },
      },
    },
    async (request) => jobCheck(await currentJob(request)),
  );

  app.get<{ Params: { job_id: string }; Querystring: { api_key?: string } }>(
    '/get/:job_id',
    {
      schema: {
        summary: "A job's status with its download links and webhook deliveries",
        tags: JOBS_TAG,
        security: SECURED,
        params: jobParams,
        querystring: apiKeyQuery,
        response: {
          200: { ...getSchema, description: 'The job as it is now; links only to files that exist.' },
          ...errorResponses('bad_request', 'unauthorized', 'auth_throttled', 'not_found'),
        },
      },
    },
    async (request) => jobGet(await currentJob(request), await ctx.linkBase(request)),
  );
  // No key: the job id is the capability, so links in the completion email work when clicked.
  const file = (description: string) => ({
    description,
    content: {
      'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } },
      'text/markdown': { schema: { type: 'string', contentMediaType: 'text/markdown' } },
    },
    headers: { etag: { type: 'string' }, 'last-modified': { type: 'string' }, 'content-disposition': { type: 'string' } },
  });
  const downloadSchema = {
    summary: "Download a job's PDF or Markdown (the job id is the credential)",
    tags: JOBS_TAG,
    params: { type: 'object', properties: { job_id: { type: 'string' }, kind: { type: 'string', description: 'pdf or md' } }, required: ['job_id', 'kind'] },
    headers: {
      type: 'object',
      properties: {
        range: { type: 'string', description: 'One byte range, bytes=start-end.' },
        'if-range': { type: 'string' },
        'if-none-match': { type: 'string' },
      },
    },
    response: {
      200: file('The whole file.'),
      206: { ...file('The byte range asked for.'), headers: { 'content-range': { type: 'string' } } },
      304: { type: 'null', description: 'The client has this version already (If-None-Match).' },
      ...errorResponses('bad_kind', 'not_found', 'no_artifact', 'expired', 'range'),
    },
  };
  app.get<{ Params: { job_id: string; kind: string } }>('/download/:job_id/:kind', { schema: downloadSchema }, async (request, reply) => {
    const { job_id: jobId, kind } = request.params;
    if (kind !== 'pdf' && kind !== 'md') throw apiError('bad_kind');
    const job = isJobId(jobId) ? await store.getJob(jobId) : null;
    if (!job) throw apiError('not_found');
    if (job.status !== 'done' || (kind === 'md' && !job.hasMd)) throw apiError('no_artifact');
    if (job.expired) throw apiError('expired');
    const name = job.docName ?? basename(job.uploadName, extname(job.uploadName));
    return sendArtifact(reply, outputPath(dataDir, jobId, kind as ArtifactKind), kind as ArtifactKind, name, request.headers);
  });
}

/** `/cancel` and `/delete`. */
function registerEnds(app: FastifyInstance, ctx: ServerContext, access: JobAccess): void {
  const { store } = ctx;
  const { formKey, ownJob } = access;

  app.post<{ Params: { job_id: string } }>(
    '/cancel/:job_id',
    {
      schema: withForm({
        summary: 'Cancel a job that has not ended (a running one stops at its next frame)',
        tags: JOBS_TAG,
        security: SECURED,
        params: jobParams,
        'x-form': KEY_FORM,
        response: {
          200: { ...runSchema, description: 'The job is cancelled.' },
          ...errorResponses('bad_request', 'unauthorized', 'auth_throttled', 'not_found', 'not_cancellable'),
        },
      }),
    },
    async (request) => {
      const key = await formKey(request);
      const job = await ownJob(request.params.job_id, key);
      if (!ACTIVE_STATUSES.includes(job.status)) throw apiError('not_cancellable');
      // The intent is recorded first and answered at once; a running job stops at its next frame boundary, and a
      // parked one's batch is cancelled in the background (the OCR service may be slow, or not answer at all).
      const before = await store.cancelJob(job.jobId, key.keyId, ctx.clock());
      if (!before) throw apiError('not_found');
      if (!ACTIVE_STATUSES.includes(before.status)) throw apiError('not_cancellable');
      await ctx.stopJobs([before]);
      request.log.info({ job: jobTag(job.jobId), was: before.status }, 'job cancelled');
      return { job_id: job.jobId, status: 'cancelled' };
    },
  );

  app.post<{ Params: { job_id: string } }>(
    '/delete/:job_id',
    {
      schema: withForm({
        summary: 'Delete a job and its files',
        tags: JOBS_TAG,
        security: SECURED,
        params: jobParams,
        'x-form': KEY_FORM,
        response: {
          200: { type: 'object', properties: { deleted: { type: 'boolean' } }, required: ['deleted'], description: 'The job and its files are gone.' },
          ...errorResponses('bad_request', 'unauthorized', 'auth_throttled', 'not_found'),
        },
      }),
    },
    async (request) => {
      const key = await formKey(request);
      const job = await ownJob(request.params.job_id, key);
      const before = await store.deleteJob(job.jobId, key.keyId);
      if (!before) throw apiError('not_found');
      await ctx.stopJobs([before]);
      request.log.info({ job: jobTag(job.jobId), was: job.status }, 'job deleted');
      return { deleted: true };
    },
  );
}
