import { createErrorHandler, HTTP_ERRORS, httpError, type HttpError, type HttpErrorCode } from '../http/index.js';

/**
 * The job server's refusals, in the shared vocabulary of `src/http/`: every error answer is
 * `{ "error": { "code", "message" } }`, a stable code for programs and one sentence for people, from the one table
 * of codes both servers answer with (`HTTP_ERRORS`).
 */
export { HTTP_ERRORS, type HttpErrorCode };

/** A refusal of the job server's own, by its code in the shared table (the message may be more precise). */
export function apiError(code: HttpErrorCode, message?: string, headers?: Record<string, string>): HttpError {
  return httpError(code, message, headers ? { headers } : {});
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
