/**
 * The network of a sandboxed plugin is the host's. The plugin's process has no network of its own
 * (an empty network namespace, and Node's network modules disabled), so {@link HttpClient},
 * {@link httpRequest}, {@link sendMail} and {@link verifySmtp} hand each request to the host over
 * IPC; the host makes it on the plugin's behalf, and only to the hosts the plugin's settings name.
 * The types below are what crosses: plain data, file bodies by path (the host reads only the
 * staged file and the plugin's own `files/`).
 */
import type { MailMessage, MailReceipt, SmtpSettings } from './mail-types.js';
import type { MultipartFile } from './multipart.js';
import type { AuthChallenge } from './digest.js';

/**
 * A request body on its way to the host: text or bytes (base64), a file by path, or the parts of
 * a {@link multipartBody} (the host builds the form again).
 *
 * @since API 1
 */
export type BridgeBody =
  { kind: 'bytes'; base64: string } | { kind: 'file'; path: string } | { kind: 'multipart'; fields: Record<string, string>; files: MultipartFile[] };

/** One HTTP request, signed already (its `Authorization` header is in `headers`). @since API 1 */
export interface BridgeHttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: BridgeBody;
  contentType?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
  ca?: string;
}

/** The reply, whatever its status. @since API 1 */
export interface BridgeHttpReply {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  /** The body, base64. */
  body: string;
  challenges: AuthChallenge[];
}

/** Submit a message, or only connect and sign in. @since API 1 */
export interface BridgeMailRequest {
  op: 'send' | 'verify';
  smtp: SmtpSettings;
  message?: MailMessage;
}

/**
 * How the sandbox runner carries requests to the host. Each method rejects with the error the
 * direct call would throw ({@link HttpNetworkError}, {@link MailError}), or with an error of code
 * `ERR_ACCESS_DENIED` when the host refuses the destination.
 *
 * @since API 1
 */
export interface NetworkBridge {
  http(request: BridgeHttpRequest): Promise<BridgeHttpReply>;
  mail(request: BridgeMailRequest): Promise<MailReceipt | null>;
}

let bridge: NetworkBridge | undefined;

/**
 * Send every request of the HTTP and mail helpers through `to`: called once by the host's sandbox
 * runner before it loads the plugin; a plugin has no use for it (a second call throws).
 *
 * @since API 1
 */
export function routeNetworkThroughHost(to: NetworkBridge): void {
  if (bridge) throw new Error('the network already goes through the host');
  bridge = to;
}

/** The bridge, when this process is a sandbox; `undefined` in the host. */
export function hostBridge(): NetworkBridge | undefined {
  return bridge;
}
