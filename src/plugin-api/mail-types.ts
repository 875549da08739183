/** The data of SMTP submission: where and how to submit, a message, the server's receipt. */

/**
 * How the SMTP connection is protected: `starttls` plain connection upgraded with STARTTLS
 * (required; port 587), `tls` TLS from the first byte (port 465), `none` no encryption (only for
 * a server on this machine).
 *
 * @since API 1
 */
export type SmtpSecurity = 'starttls' | 'tls' | 'none';

/** Where and how to submit mail. @since API 1 */
export interface SmtpSettings {
  /** The submission server's host name or address. */
  host: string;
  /** Default 587. */
  port?: number;
  /** Default `starttls`. */
  security?: SmtpSecurity;
  /** Sign in with these; leave both out for a server without AUTH. */
  user?: string;
  /** The password; for many providers an app-specific one. */
  password?: string;
  /** Give up when the server is silent this long. Default 60 000 ms. */
  timeoutMs?: number;
  /** Extra trusted CA certificates (PEM), for a server with its own certificate. */
  ca?: string;
}

/** One attachment, streamed from disk. @since API 1 */
export interface MailAttachment {
  /** The file to attach, streamed from disk. */
  path: string;
  /** The name the recipient sees; defaults to the path's base name. */
  filename?: string;
  /** Defaults to the type of the file name's extension. */
  contentType?: string;
}

/** One message. @since API 1 */
export interface MailMessage {
  /** The sender; for an e-reader mailbox it must be on the approved-sender list. */
  from: string;
  /** One address or several. */
  to: string | readonly string[];
  /** The subject line (the document's title, for an e-reader). */
  subject: string;
  /** The plain-text body. */
  text?: string;
  /** Files to attach. */
  attachments?: readonly MailAttachment[];
  /** Extra message headers (the destination's `headers` setting). */
  headers?: Readonly<Record<string, string>>;
}

/** What the server said when it took the message. @since API 1 */
export interface MailReceipt {
  /** Recipients the server accepted. */
  accepted: string[];
  /** Recipients the server refused. */
  rejected: string[];
  /** The server's final reply (`250 2.0.0 OK …`), for `detail`. */
  response: string;
  /** The `Message-ID` the message went out with. */
  messageId: string;
}
