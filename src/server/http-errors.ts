import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeError } from '../errors.js';

/**
 * Every error answer is `{ "error": { "code", "message" } }`: a stable code for programs, one sentence for people.
 * 5xx answers never carry internals; those go to the log.
 */
export const HTTP_ERRORS = {
  unauthorized: { status: 401, message: 'A valid API key is needed: give it as api_key.' },
  admin_unauthorized: { status: 401, message: 'The admin secret is missing or wrong.' },
  not_found: { status: 404, message: 'There is no such job.' },
  no_artifact: { status: 404, message: 'This job has no such file (yet).' },
  no_route: { status: 404, message: 'There is nothing at this address.' },
  no_key: { status: 404, message: 'There is no API key with this id.' },
  bad_request: { status: 400, message: 'The request is not valid.' },
  bad_kind: { status: 400, message: 'The file kind must be pdf or md.' },
  unsupported_file: { status: 400, message: 'The file must be a scan bundle (.aglbundle or .zip) or a PDF (.pdf).' },
  missing_file: { status: 400, message: 'The request has no file: send it as the form field "file".' },
  too_large: { status: 413, message: 'The file is larger than this server accepts.' },
  range: { status: 416, message: 'The requested byte range is not in the file.' },
  not_cancellable: { status: 409, message: 'The job has already ended, so it cannot be cancelled.' },
  rate_limited: { status: 429, message: 'Too many jobs submitted with this API key; wait a little and try again.' },
  shutting_down: { status: 503, message: 'The server is shutting down and takes no new jobs; try again in a moment.' },
  internal: { status: 500, message: 'Something went wrong on the server.' },
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

export class HttpError extends Error {
  readonly code: HttpErrorCode;
  readonly statusCode: number;

  constructor(code: HttpErrorCode, message?: string) {
    super(message ?? HTTP_ERRORS[code].message);
    this.name = 'HttpError';
    this.code = code;
    this.statusCode = HTTP_ERRORS[code].status;
  }
}

export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

/** Map fastify's and its plugins' own errors (bad content type, body too large, multipart limits) onto our codes. */
function fromFastify(error: FastifyError): HttpError {
  const status = error.statusCode ?? 500;
  if (error.code === 'FST_FILES_LIMIT' || error.code === 'FST_PARTS_LIMIT' || error.code === 'FST_FIELDS_LIMIT') {
    return new HttpError('bad_request', 'The form has more fields or files than a job needs.');
  }
  if (error.code === 'FST_REQ_FILE_TOO_LARGE' || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) return new HttpError('too_large');
  if (error.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415 || status === 406) {
    return new HttpError('bad_request', 'The request body must be a multipart form.');
  }
  if (error.validation) return new HttpError('bad_request', `The request is not valid: ${error.message}.`);
  if (status === 429) return new HttpError('rate_limited');
  if (status >= 400 && status < 500) return new HttpError('bad_request');
  return new HttpError('internal');
}

export function errorHandler(error: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply): void {
  const http = error instanceof HttpError ? error : fromFastify(error);
  if (http.statusCode >= 500) request.log.error({ err: describeError(error), stack: error.stack }, 'request failed');
  else request.log.info({ code: http.code, status: http.statusCode }, 'request refused');
  // A refused upload may still be streaming in: close the connection rather than read the rest of it.
  if (http.statusCode === 413 || (request.method === 'POST' && !request.raw.readableEnded)) reply.header('connection', 'close');
  void reply.code(http.statusCode).send(errorBody(http.code, http.message));
}
