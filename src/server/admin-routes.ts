import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { adminPage, keyCreatedPage, signInPage } from './admin-page.js';
import { ADMIN_SECRET_HASH_KEY } from './config.js';
import type { ServerContext } from './context.js';
import { readFields } from './forms.js';
import { apiError } from './http-errors.js';
import { errorResponses, redirect, textField, withForm } from './openapi.js';
import { hashKey, matchesHash, newApiKey, newSessionToken } from './secrets.js';
import type { AdminSession } from './store.js';
import { errorSchema } from './views.js';
import { newWebhookSecret } from './webhooks.js';

const ADMIN_TAG = ['admin'];
const ADMIN_SECURITY: Array<Record<string, string[]>> = [{ bearer: [] }, { adminSecretHeader: [] }, { adminSession: [] }];
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const CSRF_FORM = {
  type: 'object' as const,
  properties: { csrf: textField("The admin page's token; needed with the session cookie only.") },
  urlencoded: true,
};

type AdminRequest = FastifyRequest<{ Querystring: { secret?: string; email?: string } }>;

/** The admin session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it). */
export const SESSION_COOKIE = 'quire_admin';
/** How long an admin session lasts. */
export const SESSION_MS = 12 * 3600_000;

/** A browser posting the admin page's forms gets pages back; programs (curl, scripts) get JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('text/html');
}

export function isEmailAddress(text: string): boolean {
  return text.length <= 254 && /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(text);
}

/** Admin pages: never cached, never sent on as a Referer, no script. */
function htmlHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
    .header('x-content-type-options', 'nosniff');
}

/** One cookie's value from a `Cookie` header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The admin secret as a program sends it: `Authorization: Bearer <secret>` or `X-Admin-Secret`. */
function headerSecret(request: FastifyRequest): string | undefined {
  const auth = request.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  if (m) return m[1];
  const x = request.headers['x-admin-secret'];
  return typeof x === 'string' ? x.trim() : undefined;
}

/** How an admin request proved itself: the secret (header or query) or a session cookie, which forms back with CSRF. */
type AdminAuth = { by: 'secret'; via: 'header' | 'query' } | { by: 'session'; session: AdminSession };

const secretQuery = {
  type: 'object',
  properties: {
    secret: { type: 'string', description: 'The admin secret (a header is better: it stays out of logs and history).' },
    email: { type: 'string' },
  },
};

/** The admin routes' guard: the secret or a session, and a session's CSRF token on its forms. */
interface AdminGuard {
  requireAdmin(request: AdminRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
  checkCsrf(request: FastifyRequest, fields: Record<string, string>): void;
}

export function registerAdminRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { store } = ctx;
  const auths = new WeakMap<FastifyRequest, AdminAuth>();

  // Checked before any body is read: a caller without the secret or a session costs nothing. The hash is read each
  // time, so a secret rotated by another process takes effect at once.
  const requireAdmin = async (request: AdminRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    ctx.authThrottle.check(request.ip);
    const stored = await store.getConfig(ADMIN_SECRET_HASH_KEY);
    const fromHeader = headerSecret(request);
    let auth: AdminAuth | null = null;
    if (fromHeader !== undefined && matchesHash(fromHeader, stored)) auth = { by: 'secret', via: 'header' };
    else if (request.query.secret !== undefined && matchesHash(request.query.secret, stored)) auth = { by: 'secret', via: 'query' };
    else {
      const token = cookieValue(request.headers.cookie, SESSION_COOKIE);
      const session = token ? await store.getAdminSession(hashKey(token), ctx.clock()) : null;
      if (session) auth = { by: 'session', session };
    }
    if (auth) {
      auths.set(request, auth);
      return undefined;
    }
    // A secret or a session that was given and is wrong counts against the address; a first visit with none does not.
    if (fromHeader !== undefined || request.query.secret !== undefined || cookieValue(request.headers.cookie, SESSION_COOKIE) !== undefined)
      ctx.authThrottle.failed(request.ip);
    if (request.method === 'GET' && wantsHtml(request)) return htmlHeaders(reply).code(401).send(signInPage());
    throw apiError('admin_unauthorized');
  };

  /** Forms posted on the strength of the cookie must carry the page's CSRF token; a secret needs none. */
  const checkCsrf = (request: FastifyRequest, fields: Record<string, string>): void => {
    const auth = auths.get(request);
    if (auth?.by !== 'session') return;
    const given = fields.csrf ?? request.headers['x-csrf-token'];
    if (typeof given !== 'string' || !matchesHash(given, hashKey(auth.session.csrf))) throw apiError('bad_csrf');
  };

  /** Start a session for a browser that came with the secret; the cookie is scoped to the admin pages. */
  const startSession = async (request: FastifyRequest, reply: FastifyReply): Promise<AdminSession> => {
    const token = newSessionToken();
    const now = ctx.clock();
    const session: AdminSession = { tokenHash: hashKey(token), csrf: newSessionToken(), created: now, expires: now + SESSION_MS };
    await store.createAdminSession(session);
    const secure = request.protocol === 'https' ? '; Secure' : '';
    reply.header(
      'set-cookie',
      `${SESSION_COOKIE}=${token}; Path=${ctx.pathPrefix(request)}/admin; Max-Age=${SESSION_MS / 1000}; HttpOnly; SameSite=Strict${secure}`,
    );
    return session;
  };

  const pageOf = async (request: FastifyRequest, session: AdminSession): Promise<string> => {
    const [counts, keys, workers] = await Promise.all([store.countJobsByStatus(), store.listKeys(), store.listWorkers(Date.now())]);
    return adminPage(ctx.pathPrefix(request), session.csrf, counts, keys, workers);
  };

  const adminPageSchema = {
    summary: 'The admin page: job counts and API keys',
    tags: ADMIN_TAG,
    security: ADMIN_SECURITY,
    querystring: secretQuery,
    response: {
      200: html('The admin page (and a session cookie when signed in with the secret in a header).'),
      303: redirect('Signed in with ?secret=: a session cookie is set and the browser sent on to /admin without the secret.'),
      401: {
        description: 'No valid secret or session: a page saying how to sign in (a browser), else the error admin_unauthorized.',
        content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: errorSchema } },
      },
      405: errorResponses()[405],
      429: errorResponses('auth_throttled')[429],
      500: errorResponses()[500],
    },
  };
  app.get<{ Querystring: { secret?: string } }>('/admin', { schema: adminPageSchema, preHandler: requireAdmin }, async (request, reply) => {
    const auth = auths.get(request)!;
    if (auth.by === 'session') return htmlHeaders(reply).send(await pageOf(request, auth.session));
    const session = await startSession(request, reply);
    // The secret leaves the address bar (and the browser's history) at once: the cookie carries the session.
    if (auth.via === 'query')
      return htmlHeaders(reply)
        .code(303)
        .header('location', `${ctx.pathPrefix(request)}/admin`)
        .send();
    return htmlHeaders(reply).send(await pageOf(request, session));
  });

  registerKeyRoutes(app, ctx, { requireAdmin, checkCsrf });

  const logoutSchema = {
    summary: 'End the admin session',
    tags: ADMIN_TAG,
    security: ADMIN_SECURITY,
    querystring: secretQuery,
    'x-form': CSRF_FORM,
    response: {
      200: { type: 'object', properties: { signed_out: { type: 'boolean' } }, required: ['signed_out'], description: 'Signed out.' },
      303: redirect('From the admin page: back to it.'),
      ...errorResponses('admin_unauthorized', 'auth_throttled', 'bad_csrf'),
    },
  };
  app.post<{ Querystring: { secret?: string } }>('/admin/logout', { schema: logoutSchema, preHandler: requireAdmin }, async (request, reply) => {
    checkCsrf(request, await readFields(request));
    const auth = auths.get(request)!;
    if (auth.by === 'session') await store.deleteAdminSessions(auth.session.tokenHash);
    reply.header('set-cookie', `${SESSION_COOKIE}=; Path=${ctx.pathPrefix(request)}/admin; Max-Age=0; HttpOnly; SameSite=Strict`);
    if (wantsHtml(request))
      return reply
        .code(303)
        .header('location', `${ctx.pathPrefix(request)}/admin`)
        .send();
    return { signed_out: true };
  });
}

/** `POST /admin/keys` and `/admin/keys/:key_id/revoke`. */
function registerKeyRoutes(app: FastifyInstance, ctx: ServerContext, guard: AdminGuard): void {
  const { store } = ctx;
  const { requireAdmin, checkCsrf } = guard;
  app.post<{ Querystring: { secret?: string; email?: string } }>(
    '/admin/keys',
    {
      schema: withForm({
        summary: 'Create an API key (shown once), with its webhook signing secret (shown once)',
        tags: ADMIN_TAG,
        security: ADMIN_SECURITY,
        querystring: secretQuery,
        'x-form': { ...CSRF_FORM, properties: { ...CSRF_FORM.properties, email: textField('Where completion emails go.') }, required: ['email'] },
        response: {
          200: {
            type: 'object',
            description: 'The new key; a browser (Accept: text/html) gets a page showing it instead.',
            properties: { key_id: { type: 'integer' }, email: { type: 'string' }, api_key: { type: 'string' }, webhook_secret: { type: 'string' } },
            required: ['key_id', 'email', 'api_key', 'webhook_secret'],
          },
          ...errorResponses('bad_request', 'admin_unauthorized', 'auth_throttled', 'bad_csrf'),
        },
      }),
      preHandler: requireAdmin,
    },
    async (request, reply) => {
      const fields = await readFields(request);
      checkCsrf(request, fields);
      const email = (fields.email ?? request.query.email ?? '').trim();
      if (!isEmailAddress(email)) throw apiError('bad_request', 'Give the email address of the key owner as email.');
      const raw = newApiKey();
      const webhookSecret = newWebhookSecret();
      const key = await store.createKey(email, hashKey(raw), ctx.clock(), webhookSecret);
      request.log.info({ keyId: key.keyId }, 'API key created');
      const body = { key_id: key.keyId, email: key.email, api_key: raw, webhook_secret: webhookSecret };
      if (wantsHtml(request)) return htmlHeaders(reply).send(keyCreatedPage(ctx.pathPrefix(request), body));
      return body;
    },
  );

  app.post<{ Params: { key_id: string }; Querystring: { secret?: string } }>(
    '/admin/keys/:key_id/revoke',
    {
      schema: withForm({
        summary: 'Revoke an API key, cancelling its jobs that have not ended',
        tags: ADMIN_TAG,
        security: ADMIN_SECURITY,
        params: { type: 'object', properties: { key_id: { type: 'string' } }, required: ['key_id'] },
        querystring: secretQuery,
        'x-form': CSRF_FORM,
        response: {
          200: {
            type: 'object',
            description: 'The key is revoked.',
            properties: { key_id: { type: 'integer' }, revoked: { type: 'boolean' }, cancelled_jobs: { type: 'integer' } },
            required: ['key_id', 'revoked', 'cancelled_jobs'],
          },
          303: redirect('From the admin page: back to it.'),
          ...errorResponses('admin_unauthorized', 'auth_throttled', 'bad_csrf', 'no_key'),
        },
      }),
      preHandler: requireAdmin,
    },
    async (request, reply) => {
      checkCsrf(request, await readFields(request));
      const id = Number(request.params.key_id);
      const key = /^\d{1,15}$/.test(request.params.key_id) ? await store.revokeKey(id, ctx.clock()) : null;
      if (!key) throw apiError('no_key');
      // Its jobs that have not ended go with it: a revoked key's queue must not run on.
      const cancelled = await store.cancelKeyJobs(key.keyId, ctx.clock());
      await ctx.stopJobs(cancelled);
      request.log.info({ keyId: key.keyId, cancelledJobs: cancelled.length }, 'API key revoked');
      if (wantsHtml(request))
        return reply
          .code(303)
          .header('location', `${ctx.pathPrefix(request)}/admin`)
          .send();
      return { key_id: key.keyId, revoked: true, cancelled_jobs: cancelled.length };
    },
  );
}
