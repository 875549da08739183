/**
 * The one table of HTTP refusal codes, shared by the job server and the web app: each code has one status and a
 * one-sentence default message (a route may say more precisely what went wrong, never with another status). A code
 * means one thing in both servers; `test/http/codes.test.ts` checks that every refusal in `src/` comes from here.
 * A `QuireError` keeps its own code (`src/errors.ts`), answered with `statusOfQuireError`.
 */
import { HttpError } from './errors.js';

export const HTTP_ERRORS = {
  // Shared by both servers, and the generic refusals of the shared handler.
  bad_request: { status: 400, message: 'The request is not valid.' },
  bad_url: { status: 400, message: 'The address is not valid: a % in it must start a percent-encoded UTF-8 character.' },
  unauthorized: { status: 401, message: 'A valid API key is needed: give it as api_key.' },
  not_found: { status: 404, message: 'There is no such job.' },
  no_route: { status: 404, message: 'There is nothing at this address.' },
  method_not_allowed: { status: 405, message: 'This address does not take this method.' },
  request_timeout: { status: 408, message: 'The request did not arrive in time.' },
  missing_file: { status: 400, message: 'The request has no file: send it as the form field "file".' },
  too_large: { status: 413, message: 'The file is larger than this server accepts.' },
  uri_too_long: { status: 414, message: 'The address is longer than this server takes.' },
  headers_too_large: { status: 431, message: 'The request line and headers are larger than this server takes.' },
  rate_limited: { status: 429, message: 'Too many jobs submitted with this API key; wait a little and try again.' },
  internal: { status: 500, message: 'Something went wrong on the server.' },

  // The job server.
  admin_unauthorized: { status: 401, message: 'The admin secret is missing or wrong.' },
  bad_csrf: { status: 403, message: 'This form is out of date; reload the admin page and try again.' },
  no_artifact: { status: 404, message: 'This job has no such file (yet).' },
  no_key: { status: 404, message: 'There is no API key with this id.' },
  expired: { status: 410, message: 'The files of this job were removed, as this server keeps them only for a while after a job ends.' },
  upload_timeout: { status: 408, message: 'The upload stalled.' },
  bad_kind: { status: 400, message: 'The file kind must be pdf or md.' },
  bad_webhook: { status: 400, message: 'webhook_url is not an address this server posts to.' },
  unsupported_file: { status: 400, message: 'The file must be a scan bundle (.aglbundle or .zip) or a PDF (.pdf).' },
  range: { status: 416, message: 'The requested byte range is not in the file.' },
  not_cancellable: { status: 409, message: 'The job has already ended, so it cannot be cancelled.' },
  too_many_uploads: { status: 429, message: 'This API key is already sending as many uploads at once as this server takes; wait for one to finish.' },
  auth_throttled: { status: 429, message: 'Too many wrong API keys or admin secrets came from this address; wait a little and try again.' },
  too_many_unverified: {
    status: 429,
    message: 'This address already has as many uploads waiting for their API key as this server takes; send the key in a header.',
  },
  queue_full: { status: 429, message: 'This API key already has as many jobs waiting as this server takes; submit more once some are done.' },
  storage_full: { status: 429, message: 'The jobs of this API key already keep as much on the server as it allows; delete some jobs and try again.' },
  busy: { status: 503, message: 'The server is receiving as many uploads at once as it takes; try again in a moment.' },
  shutting_down: { status: 503, message: 'The server is shutting down and takes no new jobs; try again in a moment.' },
  database_unavailable: { status: 503, message: 'The job database does not answer; try again in a moment.' },
  disk_full: { status: 507, message: 'The server is short of disk space and cannot take this upload now; try again later.' },

  // The web app.
  not_built: { status: 503, message: "The app's page has not been built; run npm run build." },
  empty_file: { status: 400, message: 'The file is empty.' },
  unsupported_input: { status: 400, message: 'Quire cannot open this file.' },
  document_busy: { status: 409, message: 'This document is still busy; wait for it to finish or cancel it.' },
  no_pages: { status: 409, message: 'This document has no pages yet.' },
  no_captures: { status: 404, message: 'This document was opened from a slim project, which keeps the pages but not the captures they came from.' },
  slim_project: { status: 409, message: 'This document was opened from a slim project: its pages are made, and the captures they came from are not in it.' },
  no_image: { status: 404, message: 'This page is kept from its PDF as it is and has no page image.' },
  no_text: { status: 404, message: 'This page has no recognised text yet; run OCR from the OCR panel first.' },
  kept_page: { status: 409, message: 'This page is kept from its PDF with the text it had, so there is nothing to proofread.' },
  last_page: { status: 409, message: 'This is the only page left in the exports, so it cannot be hidden too.' },
  changed: { status: 409, message: 'This word reads otherwise now; look at it again before changing it.' },
  bad_setting: { status: 400, message: 'This setting is not valid.' },
  bad_word: { status: 400, message: 'This word cannot go into the dictionary.' },
  unknown_format: { status: 400, message: 'There is no export format by this name.' },
  no_format: { status: 409, message: 'This destination takes no format Quire writes.' },
  not_set_up: { status: 409, message: 'This destination is not set up yet.' },
  refused: { status: 409, message: 'This plugin cannot be used.' },
  registry: { status: 502, message: 'The plugin registry cannot be read.' },
  no_export: { status: 409, message: 'This document has no export in a folder yet.' },
  not_local: { status: 403, message: 'Open folder shows the folder on the computer Quire runs on, and this window is on another one; use Download instead.' },
  no_file_manager: { status: 502, message: 'No file manager could be started here.' },
  bad_page_box: { status: 400, message: 'This page box is not one Quire can make a page from.' },
  not_page_plugin: { status: 409, message: 'This plugin is a destination, not a processor or an OCR engine.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

/** A refusal by its code in the table above: its status from the table, its message the table's unless more precise. */
export function httpError(code: HttpErrorCode, message?: string, extra: { missing?: string[]; headers?: Record<string, string> } = {}): HttpError {
  return new HttpError(HTTP_ERRORS[code].status, code, message ?? HTTP_ERRORS[code].message, extra.missing, extra.headers);
}
