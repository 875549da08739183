/**
 * The session token, like Jupyter's: random per run, given once in the address (`?token=`), then
 * carried by a cookie (or an `X-Quire-Token` header). Without it every route answers 401, the
 * page included, so no other origin and no other user of the machine can drive the app.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../http/index.js';

export const TOKEN_HEADER = 'x-quire-token';

/** 32 random bytes, URL-safe. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The cookie's name carries a hash of the token: cookies are shared by every port of a host, so
 * two `quire gui` windows on 127.0.0.1 must not overwrite each other's.
 */
export function cookieName(token: string): string {
  return `quire_gui_${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie from a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The token as given in the address, when it is there. */
export function queryToken(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get('token') ?? undefined;
}

export type TokenCheck = 'cookie' | 'query' | 'header' | 'refused';

/** How (and whether) the request proves it holds the token. */
export function checkToken(request: FastifyRequest, token: string): TokenCheck {
  const header = request.headers[TOKEN_HEADER];
  if (sameToken(typeof header === 'string' ? header : undefined, token)) return 'header';
  if (sameToken(readCookie(request.headers.cookie, cookieName(token)), token)) return 'cookie';
  if (sameToken(queryToken(request.url), token)) return 'query';
  return 'refused';
}

/** `HttpOnly` keeps it from scripts; `SameSite=Strict` keeps other sites' pages from sending it. */
export function setTokenCookie(reply: FastifyReply, token: string): void {
  void reply.header('set-cookie', `${cookieName(token)}=${token}; Path=/; HttpOnly; SameSite=Strict`);
}

export const UNAUTHORIZED_MESSAGE = 'This Quire window needs the address quire gui printed, with its token.';

/** The 401 page a browser shows: one sentence, no script, nothing of the app. */
export function unauthorizedPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Quire — not allowed</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5"><h1>Not allowed</h1><p>${UNAUTHORIZED_MESSAGE} Open the link from the terminal where you started it.</p></body></html>`;
}

/** Every request proves it holds the token before anything else runs: the page, its assets and every API route. */
export function requireToken(app: FastifyInstance, token: string): void {
  app.addHook('onRequest', async (request, reply) => {
    const how = checkToken(request, token);
    if (how === 'refused') {
      const api = request.url.startsWith('/api/');
      void reply.code(401);
      if (api) return reply.send(errorBody('unauthorized', UNAUTHORIZED_MESSAGE));
      return reply.type('text/html; charset=utf-8').send(unauthorizedPage());
    }
    if (how === 'query') {
      setTokenCookie(reply, token);
      // The token leaves the address bar (and the history) once the cookie holds it.
      if (request.method === 'GET' && request.url.split('?')[0] === '/') return reply.redirect('/', 303);
    }
    return undefined;
  });
}
