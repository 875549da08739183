import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { adminPage, keyCreatedPage } from './admin-page.js';
import type { ServerContext } from './context.js';
import { readFields } from './forms.js';
import { apiError } from './http-errors.js';
import { hashKey, newApiKey, secretMatches } from './secrets.js';
import { errorSchema } from './views.js';

type AdminRequest = FastifyRequest<{ Querystring: { secret?: string; email?: string } }>;

/** A browser posting the admin page's forms gets pages back; programs (curl, scripts) get JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('text/html');
}

export function isEmailAddress(text: string): boolean {
  return text.length <= 254 && /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(text);
}

/** Pages carrying the secret in their URL: never cached, never sent on as a Referer, no script. */
function htmlHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
    .header('x-content-type-options', 'nosniff');
}

export function registerAdminRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { store } = ctx;
  const secretQuery = { type: 'object', properties: { secret: { type: 'string' }, email: { type: 'string' } } };

  // Checked before any body is read: a caller without the secret costs nothing.
  const requireAdmin = async (request: AdminRequest): Promise<void> => {
    if (!secretMatches(request.query.secret, ctx.adminSecret)) throw apiError('admin_unauthorized');
  };

  app.get<{ Querystring: { secret?: string } }>('/admin', { schema: { querystring: secretQuery }, preHandler: requireAdmin }, async (request, reply) => {
    const [counts, keys] = await Promise.all([store.countJobsByStatus(), store.listKeys()]);
    return htmlHeaders(reply).send(adminPage(ctx.adminSecret, counts, keys));
  });

  app.post<{ Querystring: { secret?: string; email?: string } }>(
    '/admin/keys',
    {
      schema: {
        querystring: secretQuery,
        response: { 200: { type: 'object', properties: { key_id: { type: 'integer' }, email: { type: 'string' }, api_key: { type: 'string' } } }, '4xx': errorSchema },
      },
      preHandler: requireAdmin,
    },
    async (request, reply) => {
      const fields = await readFields(request);
      const email = (fields.email ?? request.query.email ?? '').trim();
      if (!isEmailAddress(email)) throw apiError('bad_request', 'Give the email address of the key owner as email.');
      const raw = newApiKey();
      const key = await store.createKey(email, hashKey(raw), Date.now());
      request.log.info({ keyId: key.keyId }, 'API key created');
      const body = { key_id: key.keyId, email: key.email, api_key: raw };
      if (wantsHtml(request)) return htmlHeaders(reply).send(keyCreatedPage(ctx.adminSecret, body));
      return body;
    },
  );

  app.post<{ Params: { key_id: string }; Querystring: { secret?: string } }>(
    '/admin/keys/:key_id/revoke',
    {
      schema: {
        querystring: secretQuery,
        response: { 200: { type: 'object', properties: { key_id: { type: 'integer' }, revoked: { type: 'boolean' } } }, '4xx': errorSchema },
      },
      preHandler: requireAdmin,
    },
    async (request, reply) => {
      await readFields(request);
      const id = Number(request.params.key_id);
      const key = /^\d{1,15}$/.test(request.params.key_id) ? await store.revokeKey(id, Date.now()) : null;
      if (!key) throw apiError('no_key');
      request.log.info({ keyId: key.keyId }, 'API key revoked');
      if (wantsHtml(request)) return reply.code(303).header('location', `/admin?secret=${encodeURIComponent(ctx.adminSecret)}`).send();
      return { key_id: key.keyId, revoked: true };
    },
  );
}
