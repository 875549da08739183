import { createErrorHandler, HttpError } from '../http/index.js';

/**
 * The job server's refusals, in the shared vocabulary of `src/http/`: every error answer is
 * `{ "error": { "code", "message" } }`, a stable code for programs and one sentence for people.
 */
export const HTTP_ERRORS = {
  unauthorized: { status: 401, message: 'A valid API key is needed: give it as api_key.' },
  admin_unauthorized: { status: 401, message: 'The admin secret is missing or wrong.' },
  bad_csrf: { status: 403, message: 'This form is out of date; reload the admin page and try again.' },
  not_found: { status: 404, message: 'There is no such job.' },
  no_artifact: { status: 404, message: 'This job has no such file (yet).' },
  no_route: { status: 404, message: 'There is nothing at this address.' },
  no_key: { status: 404, message: 'There is no API key with this id.' },
  expired: { status: 410, message: 'The files of this job were removed, as this server keeps them only for a while after a job ends.' },
  method_not_allowed: { status: 405, message: 'This address does not take this method.' },
  upload_timeout: { status: 408, message: 'The upload stalled.' },
  bad_request: { status: 400, message: 'The request is not valid.' },
  bad_url: { status: 400, message: 'The address is not valid: a % in it must start a percent-encoded UTF-8 character.' },
  uri_too_long: { status: 414, message: 'The address is longer than this server takes.' },
  bad_kind: { status: 400, message: 'The file kind must be pdf or md.' },
  bad_webhook: { status: 400, message: 'webhook_url is not an address this server posts to.' },
  unsupported_file: { status: 400, message: 'The file must be a scan bundle (.aglbundle or .zip) or a PDF (.pdf).' },
  missing_file: { status: 400, message: 'The request has no file: send it as the form field "file".' },
  too_large: { status: 413, message: 'The file is larger than this server accepts.' },
  range: { status: 416, message: 'The requested byte range is not in the file.' },
  not_cancellable: { status: 409, message: 'The job has already ended, so it cannot be cancelled.' },
  rate_limited: { status: 429, message: 'Too many jobs submitted with this API key; wait a little and try again.' },
  too_many_uploads: { status: 429, message: 'This API key is already sending as many uploads at once as this server takes; wait for one to finish.' },
  auth_throttled: { status: 429, message: 'Too many wrong API keys or admin secrets came from this address; wait a little and try again.' },
  too_many_unverified: { status: 429, message: 'This address already has as many uploads waiting for their API key as this server takes; send the key in a header.' },
  queue_full: { status: 429, message: 'This API key already has as many jobs waiting as this server takes; submit more once some are done.' },
  storage_full: { status: 429, message: 'The jobs of this API key already keep as much on the server as it allows; delete some jobs and try again.' },
  busy: { status: 503, message: 'The server is receiving as many uploads at once as it takes; try again in a moment.' },
  shutting_down: { status: 503, message: 'The server is shutting down and takes no new jobs; try again in a moment.' },
  database_unavailable: { status: 503, message: 'The job database does not answer; try again in a moment.' },
  disk_full: { status: 507, message: 'The server is short of disk space and cannot take this upload now; try again later.' },
  internal: { status: 500, message: 'Something went wrong on the server.' },
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

/** A refusal of the job server's own, by its code in the table above (the message may be more precise). */
export function apiError(code: HttpErrorCode, message?: string, headers?: Record<string, string>): HttpError {
  return new HttpError(HTTP_ERRORS[code].status, code, message ?? HTTP_ERRORS[code].message, undefined, headers);
}

/** A refusal telling the client when to try again (429, 503, 507). */
export function retryLater(code: HttpErrorCode, seconds: number, message?: string): HttpError {
  return apiError(code, message, { 'retry-after': String(Math.max(1, Math.ceil(seconds))) });
}

/** The job server's words for the shared handler's generic refusals. */
export const ERROR_WORDS = {
  internal: HTTP_ERRORS.internal.message,
  tooLarge: HTTP_ERRORS.too_large.message,
  rateLimited: HTTP_ERRORS.rate_limited.message,
};

/** The shared error handler, in the job server's words. */
export const errorHandler = createErrorHandler(ERROR_WORDS);
