/**
 * The error vocabulary the job server and the web app share: every refusal answers
 * `{ "error": { "code", "message" } }` with a fitting status. A `QuireError` keeps its code and its
 * sentence, and its code decides the status (bad input is a 4xx, never a 500); anything unexpected
 * answers a plain 5xx sentence and goes to the log whole.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeError, ERROR_CODES, isQuireError, type ErrorCode } from '../errors.js';

/** A refusal a route throws: its status, a stable code for programs, one sentence for people. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  /** The settings still to fill in, when that is why (`not_set_up`). */
  readonly missing?: string[];

  constructor(statusCode: number, code: string, message: string, missing?: string[]) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.code = code;
    if (missing) this.missing = missing;
  }
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

/** The answer for any thrown value, as status and body; 5xx bodies never carry internals. */
export function describeFailure(error: unknown, words: ErrorWords = DEFAULT_WORDS): { status: number; body: ErrorBody } {
  if (error instanceof HttpError) return { status: error.statusCode, body: errorBody(error.code, error.message, error.missing) };
  if (isQuireError(error)) {
    const status = statusOfQuireError(error.code);
    return { status, body: errorBody(error.code, status === 500 ? words.internal : error.message) };
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
    const { status, body } = describeFailure(error, words);
    if (status >= 500) request.log.error({ err: describeError(error), detail: isQuireError(error) ? error.detail : undefined, stack: (error as Error | undefined)?.stack }, 'request failed');
    else request.log.info({ code: body.error.code, status }, 'request refused');
    // A refused upload may still be streaming in: close the connection rather than read the rest of it.
    if (status === 413 || (request.method === 'POST' && !request.raw.readableEnded)) reply.header('connection', 'close');
    void reply.code(status).send(body);
  };
}
