/** HTTP: the error vocabulary the job server and the web app answer in. */
export {
  clientErrorAnswer,
  clientErrorHandler,
  clientWentAway,
  createErrorHandler,
  createFrameworkErrorHandler,
  isMalformedForm,
  DEFAULT_RETRY_AFTER_S,
  describeFailure,
  errorBody,
  HttpError,
  lingeringClose,
  LINGER,
  statusOfQuireError,
  type ErrorBody,
  type ErrorWords,
} from './errors.js';
export { HTTP_ERRORS, httpError, type HttpErrorCode } from './codes.js';
