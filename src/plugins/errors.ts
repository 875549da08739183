/**
 * The error codes the plugin host raises, in one place. `src/errors.ts` has no plugin codes yet;
 * these map onto the closest existing ones (see the report to the lead for the proposed
 * `plugin_not_ready`, `plugin_refused`, `plugin_registry`, `send_failed`).
 */
import { ERROR_CODES, QuireError, type ErrorCode } from '../errors.js';

export const PLUGIN_ERRORS = {
  /** A destination named on the command line is not installed, refused, or not set up. */
  NOT_READY: ERROR_CODES.USAGE,
  /** A setting, secret or bundle given by the user does not fit. */
  BAD_SETTING: ERROR_CODES.USAGE,
  /** The registry could not be read, or a file did not match its hash. */
  REGISTRY: ERROR_CODES.BAD_ARCHIVE,
  /** Writing the plugin's files failed. */
  OUTPUT: ERROR_CODES.OUTPUT,
} as const satisfies Record<string, ErrorCode>;

export function pluginError(code: ErrorCode, message: string, detail?: string): QuireError {
  return new QuireError(code, message, detail);
}
