import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { basicAuthorization, canAnswerDigest, digestAuthorization, parseChallenges, type AuthChallenge } from './digest.js';
import { hostBridge, type BridgeBody, type BridgeHttpReply } from './bridge.js';
import { multipartSource, type MultipartBody } from './multipart.js';

/**
 * How {@link httpRequest} signs in:
 * `basic` sends Basic credentials with every request (advised only over TLS);
 * `digest` answers the server's Digest challenge (MD5 or SHA-256, `qop=auth`) and never sends
 * the password itself; `auto` answers whichever challenge the server makes, preferring Digest.
 *
 * @since API 1
 */
export type HttpAuthMode = 'basic' | 'digest' | 'auto';

/** Credentials for {@link httpRequest}. @since API 1 */
export interface HttpAuth {
  /** The user name, sent as is (UTF-8). */
  username: string;
  /** The password; with Digest it never leaves this process. */
  password: string;
  /** Default `auto`. */
  mode?: HttpAuthMode;
}

/**
 * A request body: text (sent as UTF-8), bytes, a file streamed from disk (`{ file: path }`), or
 * a {@link MultipartBody}. Every kind can be sent twice, which a Digest retry needs.
 *
 * @since API 1
 */
export type HttpBody = string | Uint8Array | { file: string } | MultipartBody;

/** One HTTP request. @since API 1 */
export interface HttpRequestOptions {
  /** Absolute `http:` or `https:` URL; path segments already quoted (see {@link quotePathSegment}). */
  url: string | URL;
  /** Default `GET`, or `POST` when there is a body. */
  method?: string;
  /** Extra request headers (the destination's `headers` setting goes here). */
  headers?: Readonly<Record<string, string>>;
  /** What to send; see {@link HttpBody}. */
  body?: HttpBody;
  /** `Content-Type` of the body; a multipart body brings its own. */
  contentType?: string;
  /** Sign in with these; see {@link HttpAuthMode}. */
  auth?: HttpAuth;
  /** Give up when the connection is silent this long. Default 60 000 ms. */
  timeoutMs?: number;
  /** Refuse a reply body larger than this. Default 16 MiB. */
  maxResponseBytes?: number;
  /** For `https:`: extra trusted CA certificates (PEM), for a server with its own certificate. */
  ca?: string;
}

/** The server's reply, whatever its status (a 4xx or 5xx is returned, not thrown). @since API 1 */
export interface HttpResponse {
  /** The HTTP status (200, 401, …). */
  status: number;
  /** The server's reason phrase; for `detail`, never for the user. */
  statusText: string;
  /** Header names lower case; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  /** The whole reply body. */
  body: Buffer;
  /** The body as UTF-8 text. */
  text(): string;
  /** The body parsed as JSON; throws a `SyntaxError` when it is not JSON. */
  json(): unknown;
  /** The challenges of any `WWW-Authenticate` headers (scheme lower case). */
  challenges: readonly AuthChallenge[];
}

/**
 * The server could not be reached or stopped answering: refused connection, unknown host,
 * TLS failure, timeout. A destination reports it as `NETWORK`. `code` is Node's error code
 * (`ECONNREFUSED`, `ENOTFOUND`, `ETIMEDOUT`, …) for `detail`.
 *
 * @since API 1
 */
export class HttpNetworkError extends Error {
  /** Node's error code, for `detail`. */
  readonly code: string;
  /** @param message - host and cause, for `detail`; @param code - Node's error code. */
  constructor(message: string, code: string) {
    super(message);
    this.name = 'HttpNetworkError';
    this.code = code;
  }
}

interface PreparedBody {
  length: number;
  contentType?: string;
  open(): Readable | Buffer;
  /** The body as it crosses to the host from a sandbox. */
  bridged(): BridgeBody;
}

function prepareBody(body: HttpBody | undefined, contentType: string | undefined): PreparedBody | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    return { length: bytes.length, contentType, open: () => bytes, bridged: () => ({ kind: 'bytes', base64: bytes.toString('base64') }) };
  }
  if ('kind' in body && body.kind === 'multipart') {
    return {
      length: body.length,
      contentType: body.contentType,
      open: () => body.stream(),
      bridged: () => {
        const source = multipartSource(body);
        if (!source) throw new TypeError('a multipart body must come from multipartBody()');
        return { kind: 'multipart', ...source };
      },
    };
  }
  const file = (body as { file: string }).file;
  return {
    length: statSync(file).size,
    contentType: contentType ?? 'application/octet-stream',
    open: () => createReadStream(file),
    bridged: () => ({ kind: 'file', path: file }),
  };
}

/** A reply as the host handed it over. */
function bridgedResponse(reply: BridgeHttpReply): HttpResponse {
  const bytes = Buffer.from(reply.body, 'base64');
  return {
    status: reply.status,
    statusText: reply.statusText,
    headers: { ...reply.headers },
    body: bytes,
    text: () => bytes.toString('utf8'),
    json: () => JSON.parse(bytes.toString('utf8')) as unknown,
    challenges: reply.challenges,
  };
}

/** Send once; no auth handling. In a sandbox the host sends it. */
function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: PreparedBody | undefined,
  options: HttpRequestOptions,
): Promise<HttpResponse> {
  const bridge = hostBridge();
  if (bridge) {
    return bridge
      .http({
        url: url.href,
        method,
        headers: { ...headers },
        ...(body ? { body: body.bridged(), ...(body.contentType ? { contentType: body.contentType } : {}) } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
      })
      .then(bridgedResponse);
  }
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxBytes = options.maxResponseBytes ?? 16 * 1024 * 1024;
  const transport = url.protocol === 'https:' ? https : http;
  const allHeaders: Record<string, string | number> = { ...headers };
  if (body) {
    allHeaders['Content-Length'] = body.length;
    if (body.contentType && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) allHeaders['Content-Type'] = body.contentType;
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    let answered = false;
    const fail = (e: Error & { code?: string }): void => {
      if (settled) return;
      settled = true;
      reject(e instanceof HttpNetworkError ? e : new HttpNetworkError(`${url.host}: ${e.message}`, e.code ?? e.name));
    };
    const req = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers: allHeaders,
        agent: false,
        ...(options.ca ? { ca: options.ca } : {}),
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            fail(new HttpNetworkError(`${url.host}: the reply is larger than ${maxBytes} bytes`, 'ERESPONSETOOLARGE'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          if (settled) return;
          settled = true;
          const replyHeaders: Record<string, string> = {};
          const authenticate: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i].toLowerCase();
            const value = res.rawHeaders[i + 1];
            replyHeaders[name] = replyHeaders[name] === undefined ? value : `${replyHeaders[name]}, ${value}`;
            if (name === 'www-authenticate') authenticate.push(value);
          }
          const bytes = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: replyHeaders,
            body: bytes,
            text: () => bytes.toString('utf8'),
            json: () => JSON.parse(bytes.toString('utf8')) as unknown,
            challenges: parseChallenges(authenticate),
          });
        });
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new HttpNetworkError(`${url.host}: no answer within ${Math.round(timeoutMs / 1000)} s`, 'ETIMEDOUT')));
    req.on('error', (e: Error & { code?: string }) => {
      // An upload cut short by a server that has already replied is not a network failure.
      if ((e.code === 'EPIPE' || e.code === 'ECONNRESET') && answered) return;
      fail(e);
    });
    if (!body) {
      req.end();
      return;
    }
    const source = body.open();
    if (Buffer.isBuffer(source)) {
      req.end(source);
      return;
    }
    source.on('error', (e) => req.destroy(e));
    // The server may answer before taking the whole body (an early 401): stop reading the file then.
    req.on('close', () => source.destroy());
    source.pipe(req);
  });
}

/** Nonce counts per Digest nonce, so a second request with a remembered challenge counts on. */
interface DigestState {
  challenge: AuthChallenge;
  nc: number;
}

/**
 * An HTTP client for one destination: a base URL, default headers and credentials, and the
 * last Digest challenge, so consecutive requests sign in without an extra round trip.
 *
 * Digest sign-in first learns the challenge with a body-less `HEAD` (or `GET` where `HEAD` is not
 * allowed) when it has none yet and the request carries a body, so a large file is not uploaded
 * just to be answered 401.
 *
 * @since API 1
 */
export class HttpClient {
  readonly #headers: Readonly<Record<string, string>>;
  readonly #auth: HttpAuth | undefined;
  readonly #timeoutMs: number | undefined;
  #digest: DigestState | undefined;

  /**
   * @param options.headers - sent with every request (the destination's `headers` setting).
   * @param options.auth - credentials for every request.
   * @param options.timeoutMs - default silence timeout for every request.
   */
  constructor(options: { headers?: Readonly<Record<string, string>>; auth?: HttpAuth; timeoutMs?: number } = {}) {
    this.#headers = { ...(options.headers ?? {}) };
    this.#auth = options.auth;
    this.#timeoutMs = options.timeoutMs;
  }

  /**
   * Learn the Digest challenge without uploading anything: `HEAD`, then `GET` (safe methods, no
   * body, no credentials). calibre answers `HEAD` on its POST-only routes with 405 but `GET` with
   * the challenge. No challenge: the real request goes out unsigned and a 401 is answered after.
   */
  async #probe(url: URL, headers: Record<string, string>, options: HttpRequestOptions): Promise<DigestState | undefined> {
    for (const method of ['HEAD', 'GET']) {
      try {
        const reply = await sendOnce(url, method, headers, undefined, { ...options, maxResponseBytes: 1024 * 1024 });
        const digest = reply.challenges.find(canAnswerDigest);
        if (digest) return { challenge: digest, nc: 0 };
        if (reply.status !== 405 && reply.status !== 501) return undefined;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** Send one request; see {@link httpRequest}. Options given here win over the client's. */
  async request(options: HttpRequestOptions): Promise<HttpResponse> {
    const url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HttpNetworkError(`${url.protocol} is not an http: or https: URL`, 'EPROTOCOL');
    const body = prepareBody(options.body, options.contentType);
    const method = (options.method ?? (body ? 'POST' : 'GET')).toUpperCase();
    const auth = options.auth ?? this.#auth;
    const merged: HttpRequestOptions = { ...options, timeoutMs: options.timeoutMs ?? this.#timeoutMs };
    const headers = { ...this.#headers, ...(options.headers ?? {}) };
    const uri = `${url.pathname}${url.search}`;
    const mode = auth?.mode ?? 'auto';
    if (!auth) return sendOnce(url, method, headers, body, merged);
    if (mode === 'basic') return sendOnce(url, method, { ...headers, Authorization: basicAuthorization(auth.username, auth.password) }, body, merged);

    const signed = (state: DigestState): Record<string, string> => {
      state.nc += 1;
      return {
        ...headers,
        Authorization: digestAuthorization(state.challenge, { method, uri, username: auth.username, password: auth.password, nc: state.nc }),
      };
    };
    if (!this.#digest && body) this.#digest = await this.#probe(url, headers, merged);
    const signedFirst = this.#digest !== undefined;
    const first = await sendOnce(url, method, this.#digest ? signed(this.#digest) : headers, body, merged);
    if (first.status !== 401) return first;
    const digest = first.challenges.find(canAnswerDigest);
    const basic = first.challenges.find((c) => c.scheme === 'basic');
    // Unsigned first contact, or a nonce the server calls stale, is worth one retry; refused credentials are not.
    if (digest && (!signedFirst || digest.params.stale?.toLowerCase() === 'true')) {
      this.#digest = { challenge: digest, nc: 0 };
      return sendOnce(url, method, signed(this.#digest), body, merged);
    }
    if (!digest && basic && mode === 'auto' && !signedFirst) {
      return sendOnce(url, method, { ...headers, Authorization: basicAuthorization(auth.username, auth.password) }, body, merged);
    }
    return first;
  }
}

/**
 * Send one HTTP request and read the whole reply (up to `maxResponseBytes`). A reply with any
 * status resolves; only a failure to reach the server rejects, with {@link HttpNetworkError}.
 * Sign-in follows `auth.mode` (see {@link HttpAuthMode}). Redirects are not followed.
 *
 * @since API 1
 */
export function httpRequest(options: HttpRequestOptions): Promise<HttpResponse> {
  return new HttpClient().request(options);
}
