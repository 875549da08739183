/** HTTP: the error vocabulary the job server and the web app answer in. */
export { createErrorHandler, describeFailure, errorBody, HttpError, statusOfQuireError, type ErrorBody, type ErrorWords } from './errors.js';
