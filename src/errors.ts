/**
 * Errors that reach a person. `message` is one sentence for the user; `detail` is for the log.
 * Codes are stable: the CLI maps them to exit codes, the server to HTTP statuses.
 */
export const ERROR_CODES = {
  USAGE: 'usage',
  BUNDLE_VERSION: 'bundle_version',
  BUNDLE_MISSING: 'bundle_missing',
  BUNDLE_UNSAFE_PATH: 'bundle_unsafe_path',
  BUNDLE_TOO_LARGE: 'bundle_too_large',
  BAD_ARCHIVE: 'bad_archive',
  BAD_IMAGE: 'bad_image',
  BAD_PDF: 'bad_pdf',
  ENCRYPTED_PDF: 'encrypted_pdf',
  UNSUPPORTED_INPUT: 'unsupported_input',
  INPUT_NOT_FOUND: 'input_not_found',
  UNKNOWN_FORMAT: 'unknown_format',
  UNKNOWN_PIPELINE: 'unknown_pipeline',
  BAD_PROJECT: 'bad_project',
  OUTPUT: 'output',
  SEND_FAILED: 'send_failed',
  REMOTE_OCR_FAILED: 'remote_ocr_failed',
  CANCELLED: 'cancelled',
  /** A job needed more memory (or other resource) than the host allows it. */
  RESOURCE_LIMIT: 'resource_limit',
  INTERNAL: 'internal',
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export class QuireError extends Error {
  readonly code: ErrorCode;
  readonly detail?: string;

  constructor(code: ErrorCode, message: string, detail?: string) {
    super(message);
    this.name = 'QuireError';
    this.code = code;
    this.detail = detail;
  }

  /** Usage errors exit with 2, everything else with 1. */
  get exitCode(): number {
    return this.code === ERROR_CODES.USAGE || this.code === ERROR_CODES.UNKNOWN_FORMAT || this.code === ERROR_CODES.UNKNOWN_PIPELINE ? 2 : 1;
  }
}

export function isQuireError(e: unknown): e is QuireError {
  return e instanceof QuireError;
}

/** Describe an unknown thrown value for `detail`. */
export function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}
