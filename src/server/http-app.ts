import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { describeError } from '../errors.js';
import { clientErrorHandler, createFrameworkErrorHandler, DEFAULT_RETRY_AFTER_S, describeFailure, errorBody } from '../http/index.js';
import { declaredLength, FORM_OVERHEAD, headerKey } from './admission.js';
import type { ServerLimits } from './config.js';
import type { ServerContext } from './context.js';
import { ERROR_WORDS, HTTP_ERRORS, apiError, errorHandler } from './http-errors.js';
import { loggerOptions } from './logging.js';
import { renderMetrics } from './metrics.js';
import { errorResponses, registerOpenApi } from './openapi.js';
import { hashKey } from './secrets.js';
import type { JobStore } from './store.js';
import { DATABASE_RETRY_S } from './store-outage.js';
import { errorSchema } from './views.js';

/**
 * Which reverse proxies to believe (`X-Forwarded-For`, `-Proto`, `-Host`, `-Prefix`), as fastify's `trustProxy`:
 * true for any, or addresses and subnets (`127.0.0.1`, `10.0.0.0/8`, `loopback`), as a list or comma-separated.
 */
export type TrustProxy = boolean | string | string[];

/**
 * The fastify instance with what every route shares: the error vocabulary, no caching, 405 naming the methods an
 * address takes, and a 503 once shutdown began (`closeHttp`).
 */
export async function buildFastify(options: {
  logger: false | { level?: string; stream?: { write(line: string): void } } | undefined;
  trustProxy: TrustProxy | undefined;
  limits: ServerLimits;
}): Promise<{ app: FastifyInstance; closeHttp(): void }> {
  const app = Fastify({
    logger: options.logger ? loggerOptions(options.logger.level ?? 'info', options.logger.stream) : false,
    // Uploads have timeouts of their own (limits.uploadIdleMs); this ends any other connection that goes quiet.
    connectionTimeout: Math.max(120_000, options.limits.uploadIdleMs * 2),
    requestTimeout: 0,
    bodyLimit: 64 * 1024,
    // Every refusal, fastify's and Node's own included, answers {"error":{code,message}}; shutdown's 503 is ours too.
    frameworkErrors: createFrameworkErrorHandler(ERROR_WORDS),
    clientErrorHandler,
    return503OnClosing: false,
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
  });
  await registerOpenApi(app);
  await app.register(multipart, { throwFileSizeLimit: true });
  await app.register(rateLimit, { global: false });
  // Plain HTML forms (the admin page) post URL-encoded bodies.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.setErrorHandler(errorHandler);
  // Answers carry keys, webhook secrets, download links (the job id is their credential) and CSRF tokens: no cache
  // keeps them, and no browser reads them as anything but their declared type. A download sets its own caching.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  let httpClosing = false;
  app.addHook('onRequest', async (_request, reply) => {
    if (!httpClosing) return;
    // Sent as text: the route's own response schema (say /health's 503) must not reshape it.
    const body = JSON.stringify(errorBody('shutting_down', HTTP_ERRORS.shutting_down.message));
    return reply
      .code(503)
      .type('application/json; charset=utf-8')
      .headers({ connection: 'close', 'retry-after': String(DEFAULT_RETRY_AFTER_S) })
      .send(body);
  });
  const routes: Array<{ method: string; pattern: RegExp }> = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+')}$`);
    for (const method of [route.method].flat()) routes.push({ method, pattern });
  });
  app.setNotFoundHandler((request, reply) => {
    // An address that exists answers 405 to another method, naming the ones it takes.
    const path = request.url.split('?')[0];
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      if (!request.raw.readableEnded && request.method !== 'GET' && request.method !== 'HEAD') void reply.header('connection', 'close');
      return void reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(errorBody('method_not_allowed', `${HTTP_ERRORS.method_not_allowed.message.slice(0, -1)}: it takes ${allowed.join(', ')}.`));
    }
    void reply.code(404).send(errorBody('no_route', HTTP_ERRORS.no_route.message));
  });
  return { app, closeHttp: () => (httpClosing = true) };
}

/** The path a trusted reverse proxy serves this server under (`X-Forwarded-Prefix`), '' when none. */
export function pathPrefixFor(trusted: ((address: string, hop: number) => boolean) | null): (request: FastifyRequest) => string {
  return (request) => {
    const header = request.headers['x-forwarded-prefix'];
    const socket = request.raw.socket;
    if (typeof header !== 'string' || !trusted || !socket?.remoteAddress || !trusted(socket.remoteAddress, 0)) return '';
    const prefix = header.split(',')[0].trim().replace(/\/+$/, '');
    // A path and nothing else: it is written into links and into a cookie's Path, where ; or , would start another
    // attribute (Domain=…), so only unreserved characters and percent-escapes pass.
    return /^(\/([A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+)*$/.test(prefix) && !prefix.split('/').some((s) => s === '..' || s === '.') ? prefix : '';
  };
}

/** `/health`, `/metrics` and `/openapi.json`. */
export function registerServiceRoutes(app: FastifyInstance, store: JobStore, requestStore: JobStore): void {
  const healthSchema = {
    summary: 'Liveness: the server answers and its database does',
    tags: ['service'],
    response: {
      ...errorResponses(),
      200: { type: 'object', properties: { ok: { type: 'boolean', const: true } }, required: ['ok'], description: 'Up.' },
      503: {
        type: 'object',
        description: 'The database does not answer.',
        properties: {
          ok: { type: 'boolean', const: false },
          error: { ...errorSchema.properties.error, description: `\`database_unavailable\`: ${HTTP_ERRORS.database_unavailable.message}` },
        },
        required: ['ok', 'error'],
      },
    },
  };
  app.get('/health', { schema: healthSchema }, async (_request, reply) => {
    try {
      await within(store.ping(), 5_000);
      return { ok: true };
    } catch (e) {
      app.log.warn({ err: describeError(e) }, 'health: the database does not answer');
      return reply
        .code(503)
        .header('retry-after', String(DATABASE_RETRY_S))
        .send({ ok: false, ...errorBody('database_unavailable', HTTP_ERRORS.database_unavailable.message) });
    }
  });
  const metricsSchema = {
    summary: 'Prometheus metrics of the whole cluster (jobs, queue wait, processing time, pages, workers)',
    tags: ['service'],
    response: { 200: { description: 'Prometheus text format 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errorResponses() },
  };
  app.get('/metrics', { schema: metricsSchema }, async (_request, reply) =>
    reply
      .type('text/plain; version=0.0.4; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(await renderMetrics(requestStore)),
  );
  const openApiSchema = {
    summary: 'This document: the API as OpenAPI 3.1',
    tags: ['service'],
    response: { 200: { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } }, ...errorResponses() },
  };
  app.get('/openapi.json', { schema: openApiSchema }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );
}

/**
 * A client that asks before sending its body (`Expect: 100-continue`) is answered before it sends one byte when the
 * answer is a refusal; Node would otherwise say "continue" to every request.
 */
export function answerExpectContinue(app: FastifyInstance, ctx: ServerContext): void {
  app.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    refusalBeforeBody(req, ctx)
      .then((refusal) => {
        if (!refusal) {
          res.writeContinue();
          app.server.emit('request', req, res);
          return;
        }
        const { status, body, headers } = describeFailure(refusal);
        app.log.info({ status, code: body.error.code }, 'upload refused before its body');
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          connection: 'close',
          ...(status === 429 || status === 503 || status === 507 ? { 'retry-after': String(DEFAULT_RETRY_AFTER_S) } : {}),
          ...headers,
        });
        res.end(JSON.stringify(body));
      })
      .catch((e: unknown) => {
        app.log.error({ err: describeError(e) }, 'checking an upload before its body failed');
        res.writeContinue();
        app.server.emit('request', req, res);
      });
  });
}

/** A `POST /run` refused on its headers alone (shutting down, too large, full, a bad or over-limit key); else null. */
async function refusalBeforeBody(req: IncomingMessage, context: ServerContext): Promise<Error | null> {
  if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/run') return null;
  try {
    if (context.draining()) throw apiError('shutting_down');
    const declared = declaredLength(req.headers);
    if (declared !== null && declared > context.maxUpload + FORM_OVERHEAD) throw apiError('too_large');
    context.admission.checkSlots();
    await context.admission.checkDisk(declared);
    const raw = headerKey(req.headers);
    if (raw !== null) {
      const address = req.socket.remoteAddress ?? '';
      context.authThrottle.check(address);
      const key = await context.store.findActiveKey(hashKey(raw));
      if (!key) {
        context.authThrottle.failed(address);
        throw apiError('unauthorized', 'The API key is not valid, or it was revoked.');
      }
      await context.admission.checkKey(key, declared);
    }
    return null;
  } catch (e) {
    return e as Error;
  }
}

/** Whether a peer address is a trusted proxy, as fastify decides for `X-Forwarded-Host`; null when none is. */
export function trustFunction(trust: TrustProxy | undefined): ((address: string, hop: number) => boolean) | null {
  if (trust === undefined || trust === false) return null;
  if (trust === true) return () => true;
  return proxyAddr.compile(typeof trust === 'string' ? trust.split(',').map((s) => s.trim()) : trust);
}

/** `promise`, or a rejection once `ms` have passed without it settling. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
