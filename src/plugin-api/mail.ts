/** SMTP submission through nodemailer; in a sandbox, the host submits for the plugin. */
import { hostBridge } from './bridge.js';
import type { MailMessage, MailReceipt, SmtpSettings } from './mail-types.js';
import type { CheckKind } from './results.js';

/**
 * Sending mail failed. `kind` says why as a {@link CheckKind}: `AUTH` the server refused the
 * user name or password (for many providers: an app-specific password is needed), `NETWORK`
 * the server could not be reached or TLS failed, `SERVER` the server refused the message or a
 * recipient, `UNKNOWN` otherwise. `code` (nodemailer's `EAUTH`, `ECONNECTION`, …) and
 * `response` (the server's words) belong in `detail`.
 *
 * @since API 1
 */
export class MailError extends Error {
  /** Why, as a check kind: `AUTH`, `NETWORK`, `SERVER` or `UNKNOWN`. */
  readonly kind: CheckKind;
  /** nodemailer's error code (`EAUTH`, `ECONNECTION`, …), for `detail`. */
  readonly code: string;
  /** The server's own reply, for `detail`; `''` when it said nothing. */
  readonly response: string;
  /** Built by {@link sendMail} and {@link verifySmtp}. */
  constructor(message: string, kind: CheckKind, code: string, response: string) {
    super(message);
    this.name = 'MailError';
    this.kind = kind;
    this.code = code;
    this.response = response;
  }
}

function mailErrorKind(code: string, responseCode: number | undefined): CheckKind {
  if (code === 'EAUTH' || responseCode === 535 || responseCode === 534) return 'AUTH';
  if (['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ECONNRESET'].includes(code)) return 'NETWORK';
  if (['EENVELOPE', 'EMESSAGE', 'EPROTOCOL'].includes(code) || (responseCode !== undefined && responseCode >= 400)) return 'SERVER';
  return 'UNKNOWN';
}

function transportOptions(smtp: SmtpSettings): Record<string, unknown> {
  const security = smtp.security ?? 'starttls';
  const timeout = smtp.timeoutMs ?? 60_000;
  return {
    host: smtp.host,
    port: smtp.port ?? 587,
    secure: security === 'tls',
    requireTLS: security === 'starttls',
    ignoreTLS: security === 'none',
    ...(smtp.user !== undefined ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    ...(smtp.ca ? { tls: { ca: smtp.ca } } : {}),
  };
}

function asMailError(e: unknown): MailError {
  if (e instanceof MailError) return e;
  const err = e as { message?: string; code?: string; responseCode?: number; response?: string };
  const code = err.code ?? 'UNKNOWN';
  return new MailError(err.message ?? String(e), mailErrorKind(code, err.responseCode), code, err.response ?? '');
}

/** A message as plain data, to cross to the host. */
function plainMessage(message: MailMessage): MailMessage {
  return {
    from: message.from,
    to: typeof message.to === 'string' ? message.to : [...message.to],
    subject: message.subject,
    ...(message.text !== undefined ? { text: message.text } : {}),
    ...(message.attachments ? { attachments: message.attachments.map((a) => ({ ...a })) } : {}),
    ...(message.headers ? { headers: { ...message.headers } } : {}),
  };
}

/**
 * Submit one message over SMTP (nodemailer underneath), attachments streamed from disk.
 * Resolves with the server's receipt once it accepted the message for delivery — which says
 * nothing about whether the mailbox will keep it. Rejects with {@link MailError}. In a sandbox the
 * host submits it, to a mail server the plugin's settings name.
 *
 * @since API 1
 */
export async function sendMail(smtp: SmtpSettings, message: MailMessage): Promise<MailReceipt> {
  const bridge = hostBridge();
  if (bridge) {
    const receipt = await bridge.mail({ op: 'send', smtp: { ...smtp }, message: plainMessage(message) });
    if (!receipt) throw new MailError('the host answered no receipt', 'UNKNOWN', 'EPROTOCOL', '');
    return receipt;
  }
  const nodemailer = await import('nodemailer');
  const transport = nodemailer.createTransport(transportOptions(smtp));
  try {
    const info = (await transport.sendMail({
      from: message.from,
      to: typeof message.to === 'string' ? message.to : [...message.to],
      subject: message.subject,
      text: message.text ?? '',
      headers: { ...(message.headers ?? {}) },
      attachments: (message.attachments ?? []).map((a) => ({
        path: a.path,
        ...(a.filename ? { filename: a.filename } : {}),
        ...(a.contentType ? { contentType: a.contentType } : {}),
      })),
    })) as { accepted?: unknown[]; rejected?: unknown[]; response?: string; messageId?: string };
    const addresses = (list: unknown[] | undefined): string[] =>
      (list ?? []).map((a) => (typeof a === 'string' ? a : String((a as { address?: string }).address)));
    return { accepted: addresses(info.accepted), rejected: addresses(info.rejected), response: info.response ?? '', messageId: info.messageId ?? '' };
  } catch (e) {
    throw asMailError(e);
  } finally {
    transport.close();
  }
}

/**
 * Connect, say hello, upgrade to TLS and sign in, without sending anything: what a
 * destination's `check()` does. Rejects with {@link MailError}.
 *
 * @since API 1
 */
export async function verifySmtp(smtp: SmtpSettings): Promise<void> {
  const bridge = hostBridge();
  if (bridge) {
    await bridge.mail({ op: 'verify', smtp: { ...smtp } });
    return;
  }
  const nodemailer = await import('nodemailer');
  const transport = nodemailer.createTransport(transportOptions(smtp));
  try {
    await transport.verify();
  } catch (e) {
    throw asMailError(e);
  } finally {
    transport.close();
  }
}
