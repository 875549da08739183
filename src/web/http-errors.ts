/**
 * One error handler for the app's routes: every refusal is `{ "error": { "code", "message" } }`
 * with a fitting status; a QuireError keeps its own sentence; anything unexpected answers a plain
 * 500 sentence and goes to the log whole.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeError, ERROR_CODES, isQuireError, type ErrorCode } from '../errors.js';
import type { ApiError } from './api-types.js';

export class GuiHttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly missing?: string[];

  constructor(statusCode: number, code: string, message: string, missing?: string[]) {
    super(message);
    this.name = 'GuiHttpError';
    this.statusCode = statusCode;
    this.code = code;
    if (missing) this.missing = missing;
  }
}

export const notFound = (what: string): GuiHttpError => new GuiHttpError(404, 'not_found', `There is no such ${what}.`);
export const busy = (): GuiHttpError => new GuiHttpError(409, 'busy', 'This document is still busy; wait for it to finish or cancel it.');

/** The HTTP status a QuireError answers with. */
function statusOf(code: ErrorCode): number {
  switch (code) {
    case ERROR_CODES.CANCELLED:
      return 409;
    case ERROR_CODES.INTERNAL:
      return 500;
    case ERROR_CODES.OUTPUT:
    case ERROR_CODES.SEND_FAILED:
    case ERROR_CODES.REMOTE_OCR_FAILED:
      return 502;
    default:
      return 400;
  }
}

export function errorBody(code: string, message: string, missing?: string[]): ApiError {
  return { error: { code, message, ...(missing ? { missing } : {}) } };
}

/** The answer for any thrown value, as status and body; 5xx bodies never carry internals. */
export function describeFailure(error: unknown): { status: number; body: ApiError } {
  if (error instanceof GuiHttpError) return { status: error.statusCode, body: errorBody(error.code, error.message, error.missing) };
  if (isQuireError(error)) {
    const status = statusOf(error.code);
    return { status, body: errorBody(error.code, status >= 500 && status !== 502 ? 'Something went wrong in Quire.' : error.message) };
  }
  const fastify = error as Partial<FastifyError>;
  if (fastify.validation) return { status: 400, body: errorBody('bad_request', `The request is not valid: ${fastify.message ?? 'it does not fit'}.`) };
  if (fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, body: errorBody('too_large', 'The request is larger than this app accepts.') };
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return { status: fastify.statusCode, body: errorBody('bad_request', 'The request is not valid.') };
  }
  return { status: 500, body: errorBody('internal', 'Something went wrong in Quire.') };
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = describeFailure(error);
  if (status >= 500) request.log.error({ err: describeError(error), detail: isQuireError(error) ? error.detail : undefined }, 'request failed');
  void reply.code(status).send(body);
}

/** A sentence for the page from a failure that ended a background task. */
export function failureMessage(error: unknown): { code: string; message: string } {
  return describeFailure(error).body.error;
}
