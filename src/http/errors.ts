/**
 * The error vocabulary the job server and the web app share: every refusal answers
 * `{ "error": { "code", "message" } }` with a fitting status. A `QuireError` keeps its code and its
 * sentence, and its code decides the status (bad input is a 4xx, never a 500); anything unexpected
 * answers a plain 5xx sentence and goes to the log whole.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeError, ERROR_CODES, isQuireError, type ErrorCode } from '../errors.js';

/** A refusal a route throws: its status, a stable code for programs, one sentence for people. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  /** The settings still to fill in, when that is why (`not_set_up`). */
  readonly missing?: string[];
  /** Headers the answer carries (`Retry-After`, `Allow`). */
  readonly headers?: Record<string, string>;

  constructor(statusCode: number, code: string, message: string, missing?: string[], headers?: Record<string, string>) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.code = code;
    if (missing) this.missing = missing;
    if (headers) this.headers = headers;
  }
}

/** Seconds a client is told to wait on a 429, 503 or 507 that does not say otherwise. */
export const DEFAULT_RETRY_AFTER_S = 30;

/** Errors that mean the client went away mid-request: not ours, and nothing to answer. */
const GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'FST_ERR_CTP_INVALID_CONTENT_LENGTH']);

/** The request's client hung up (or its connection broke) before an answer: logged as information, never answered. */
export function clientWentAway(request: FastifyRequest, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return request.raw.socket?.destroyed === true || (typeof code === 'string' && GONE.has(code)) || message === 'aborted' || message === 'Premature close';
}

/** What a refusal reads of a body still coming in, at most, before the connection goes. */
export const LINGER = { bytes: 1024 * 1024, ms: 5_000 };

/**
 * Answer a request whose body is still coming in, then close its connection without losing the answer. Closing at
 * once, with unread bytes in the socket, makes the kernel reset the connection, and a client still sending (most
 * do not read before they finish) may never see the status. So the connection is half-closed after the answer and
 * the rest of the body read and dropped, up to `bounds`, before it is closed for good.
 */
export function lingeringClose(request: FastifyRequest, reply: FastifyReply, bounds = LINGER): void {
  reply.header('connection', 'close');
  const req = request.raw;
  const socket = req.socket as Socket | null;
  if (!socket || typeof socket.destroySoon !== 'function' || req.readableEnded || socket.destroyed) return;
  let left = bounds.bytes;
  const finish = (): void => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(finish, bounds.ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // Whatever was reading the body (the multipart parser) is done with it: the rest is counted and dropped.
  req.unpipe();
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) finish();
  });
  req.once('end', () => {
    if (socket.writableEnded) finish();
  });
  req.resume();
  // Node ends a `connection: close` answer with destroySoon (close once written); for this socket, close only the
  // sending side, and let the reading above end it.
  socket.destroySoon = function lingering(this: Socket): void {
    this.end();
    if (req.readableEnded) finish();
  };
}

export interface ErrorBody {
  error: { code: string; message: string; missing?: string[] };
}

export function errorBody(code: string, message: string, missing?: string[]): ErrorBody {
  return { error: { code, message, ...(missing ? { missing } : {}) } };
}

/** The status a `QuireError` answers with: the caller's input is at fault unless the code says otherwise. */
export function statusOfQuireError(code: ErrorCode): number {
  switch (code) {
    case ERROR_CODES.CANCELLED:
      return 409;
    case ERROR_CODES.INTERNAL:
      return 500;
    case ERROR_CODES.OUTPUT:
    case ERROR_CODES.SEND_FAILED:
    case ERROR_CODES.REMOTE_OCR_FAILED:
      // A peer (a disk, a destination, the OCR service) failed: a bad gateway, and its sentence says which.
      return 502;
    default:
      return 400;
  }
}

/** The sentences an app answers its generic refusals with, in its own words. */
export interface ErrorWords {
  /** A 500: never internals. */
  internal: string;
  /** A request body past the app's limit. */
  tooLarge: string;
  /** Too many requests. */
  rateLimited: string;
}

const DEFAULT_WORDS: ErrorWords = {
  internal: 'Something went wrong on the server.',
  tooLarge: 'The request is larger than this server accepts.',
  rateLimited: 'Too many requests; wait a little and try again.',
};

/** The multipart parser's own errors for a body that is not a well-formed form: no boundary, or it ends early. */
const MALFORMED_FORM =
  /^(Multipart: Boundary not found|Boundary required|Unexpected end of multipart data|.* terminated early due to unexpected end of multipart data)$/;

/** A request body that is not a well-formed multipart form: the client's fault, answered 400 and logged as information. */
export function isMalformedForm(error: unknown): boolean {
  return error instanceof Error && MALFORMED_FORM.test(error.message);
}

/** The answer for any thrown value, as status and body; 5xx bodies never carry internals. */
export function describeFailure(error: unknown, words: ErrorWords = DEFAULT_WORDS): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  if (error instanceof HttpError)
    return { status: error.statusCode, body: errorBody(error.code, error.message, error.missing), ...(error.headers ? { headers: error.headers } : {}) };
  if (isQuireError(error)) {
    const status = statusOfQuireError(error.code);
    return { status, body: errorBody(error.code, status === 500 ? words.internal : error.message) };
  }
  if (isMalformedForm(error)) {
    return {
      status: 400,
      body: errorBody('bad_request', 'The request body is not a well-formed multipart form: its boundary is missing or it ends before the form does.'),
    };
  }
  // fastify's and its plugins' own errors: bad content type, body too large, multipart limits, schema validation.
  const fastify = (error ?? {}) as Partial<FastifyError>;
  const status = typeof fastify.statusCode === 'number' ? fastify.statusCode : 500;
  if (fastify.code === 'FST_FILES_LIMIT' || fastify.code === 'FST_PARTS_LIMIT' || fastify.code === 'FST_FIELDS_LIMIT') {
    return { status: 400, body: errorBody('bad_request', 'The form has more fields or files than this request takes.') };
  }
  if (fastify.code === 'FST_REQ_FILE_TOO_LARGE' || fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
    return { status: 413, body: errorBody('too_large', words.tooLarge) };
  }
  if (fastify.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || fastify.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415 || status === 406) {
    return { status: 400, body: errorBody('bad_request', 'The request body must be a multipart form.') };
  }
  if (fastify.validation) return { status: 400, body: errorBody('bad_request', `The request is not valid: ${fastify.message ?? 'it does not fit'}.`) };
  if (status === 429) return { status: 429, body: errorBody('rate_limited', words.rateLimited) };
  if (status >= 400 && status < 500) return { status, body: errorBody('bad_request', 'The request is not valid.') };
  return { status: 500, body: errorBody('internal', words.internal) };
}

/** A fastify error handler speaking this vocabulary in `words`. */
export function createErrorHandler(words: ErrorWords = DEFAULT_WORDS): (error: unknown, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    if (clientWentAway(request, error)) {
      request.log.info({ err: describeError(error) }, 'client went away before the answer');
      if (!reply.sent) void reply.code(499).send();
      return;
    }
    const { status, body, headers } = describeFailure(error, words);
    if (status >= 500 && status !== 503 && status !== 507)
      request.log.error(
        { err: describeError(error), detail: isQuireError(error) ? error.detail : undefined, stack: (error as Error | undefined)?.stack },
        'request failed',
      );
    else request.log.info({ code: body.error.code, status }, 'request refused');
    if (headers) reply.headers(headers);
    // Whoever should wait is told how long.
    if ((status === 429 || status === 503 || status === 507) && !reply.hasHeader('retry-after')) reply.header('retry-after', String(DEFAULT_RETRY_AFTER_S));
    // A refused upload may still be streaming in: answer, read a little more of it, then close (see lingeringClose).
    if (status === 413 || ((request.method === 'POST' || request.method === 'PUT') && !request.raw.readableEnded)) lingeringClose(request, reply);
    void reply.code(status).send(body);
  };
}

/**
 * fastify's `frameworkErrors`: the refusals fastify makes before any route runs, in this vocabulary. An address that
 * is not valid percent-encoding is a 400, a path segment longer than the router takes a 414.
 */
export function createFrameworkErrorHandler(words: ErrorWords = DEFAULT_WORDS): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    if (error.code === 'FST_ERR_BAD_URL') {
      request.log.info({ code: 'bad_url', status: 400 }, 'request refused');
      return void reply.code(400).send(errorBody('bad_url', 'The address is not valid: a % in it must start a percent-encoded UTF-8 character.'));
    }
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      request.log.info({ code: 'uri_too_long', status: 414 }, 'request refused');
      return void reply.code(414).send(errorBody('uri_too_long', 'The address is longer than this server takes.'));
    }
    request.log.error({ err: describeError(error) }, 'request failed');
    void reply.code(500).send(errorBody('internal', words.internal));
  };
}

/** Node's own refusals of a request it could not parse, by the error it raises. */
const CLIENT_ERRORS: Record<string, { status: number; reason: string; code: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', code: 'request_timeout', message: 'The request did not arrive in time.' },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'headers_too_large',
    message: 'The request line and headers are larger than this server takes.',
  },
};
const CLIENT_ERROR_DEFAULT = { status: 400, reason: 'Bad Request', code: 'bad_request', message: 'The request is not valid HTTP.' };

/** The raw HTTP answer to a request Node could not parse (a 400, 408 or 431), in the `{"error":{code,message}}` shape. */
export function clientErrorAnswer(error: { code?: string }): string {
  const { status, reason, code, message } = CLIENT_ERRORS[error.code ?? ''] ?? CLIENT_ERROR_DEFAULT;
  const body = JSON.stringify(errorBody(code, message));
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * fastify's `clientErrorHandler`: Node's own 400, 408 and 431 with the error shape every other answer has. Logged
 * at debug level only: a client that sends garbage must not fill the log.
 */
export function clientErrorHandler(this: { log: { debug(o: object, m: string): void } }, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: describeError(error) }, 'unparsable request refused');
  if (!socket.writable) return void socket.destroy();
  // Closed once the answer is out; a client that never reads it is dropped soon after.
  socket.end(clientErrorAnswer(error));
  socket.setTimeout(5_000, () => socket.destroy());
}
