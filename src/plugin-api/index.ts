/**
 * `quire/plugin-api`: the only module a destination plugin may import.
 *
 * A destination is a place a finished export goes (a library server, an e-reader mailbox, a
 * document corpus). A plugin is a directory `<APP_DATA>/plugins/destinations/<slug>/` holding a
 * manifest `quire-plugin.toml` and one ESM module that subclasses {@link Destination} and calls
 * {@link registerDestination}. The host runs it in a child process isolated by the operating
 * system (bubblewrap: its own PID and network namespaces, a read-only view) and by Node's
 * permission model; its HTTP and mail requests go out through the host. See `docs/plugins.md`.
 *
 * The two other plugin kinds, a pipeline step ({@link Processor}, in `plugins/processors/<slug>/`) and an OCR engine
 * ({@link OcrEnginePlugin}, in `plugins/ocr/<slug>/`), run in the same sandbox, one process per run serving every
 * page. Everything here exists since API 1 ({@link API_VERSION}); the page plugin kinds were added to API 1
 * without breaking a destination, so they keep its number.
 *
 * @packageDocumentation
 */
export { API_VERSION } from './version.js';
export {
  Destination,
  registerDestination,
  registeredDestinations,
  type DestinationClass,
  type DestinationContext,
  type DestinationInit,
  type SecretStoreKind,
} from './destination.js';
export { Field, headersField, missingFieldLabels, parseHeaderLines, parseFieldValue, type FieldKind, type FieldOptions, type FieldValue } from './fields.js';
export { normalizeBookMeta, type BookMeta } from './meta.js';
export { CheckResult, SendResult, CHECK_KINDS, CHECK_KIND_LABELS, isCheckKind, type CheckKind } from './results.js';
export {
  HttpClient,
  HttpNetworkError,
  httpRequest,
  type HttpAuth,
  type HttpAuthMode,
  type HttpBody,
  type HttpRequestOptions,
  type HttpResponse,
} from './http.js';
export { multipartBody, type MultipartBody, type MultipartFile } from './multipart.js';
export { MailError, sendMail, verifySmtp } from './mail.js';
export type { MailAttachment, MailMessage, MailReceipt, SmtpSecurity, SmtpSettings } from './mail-types.js';
export { contentTypeFor, extensionOf, formatBinaryBytes, formatBytes, quotePathSegment } from './text.js';
export type { AuthChallenge } from './digest.js';
export { parseBaseUrl, type BaseUrlProblem } from './url.js';
export {
  OcrEnginePlugin,
  PROCESSOR_PLACES,
  Processor,
  registerOcrEnginePlugin,
  registeredPagePlugins,
  registerProcessor,
  type FactValue,
  type OcrBoxLike,
  type OcrEnginePluginClass,
  type PageBox,
  type PageFacts,
  type PageImage,
  type PagePluginContext,
  type PagePluginInit,
  type ProcessorClass,
  type ProcessorPlace,
  type ProcessResult,
  type RecognizedLine,
  type RecognizedPage,
  type RecognizedWord,
  type TesseractRequest,
} from './page.js';
export {
  routeNetworkThroughHost,
  type BridgeBody,
  type BridgeHttpReply,
  type BridgeHttpRequest,
  type BridgeMailRequest,
  type NetworkBridge,
} from './bridge.js';
