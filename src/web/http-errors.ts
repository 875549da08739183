/**
 * The web app's refusals, in the shared vocabulary of `src/http/`: every refusal is
 * `{ "error": { "code", "message" } }` with a fitting status; a QuireError keeps its own sentence.
 */
import { describeFailure, type HttpError, httpError, type ErrorWords } from '../http/index.js';

export const ERROR_WORDS: ErrorWords = {
  internal: 'Something went wrong in Quire.',
  tooLarge: 'The request is larger than this app accepts.',
  rateLimited: 'Too many requests; wait a little and try again.',
};

export const notFound = (what: string): HttpError => httpError('not_found', `There is no such ${what}.`);
export const busy = (): HttpError => httpError('document_busy');

/** A sentence for the page from a failure that ended a background task. */
export function failureMessage(error: unknown): { code: string; message: string } {
  return describeFailure(error, ERROR_WORDS).body.error;
}
