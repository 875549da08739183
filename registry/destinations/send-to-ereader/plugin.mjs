/**
 * Send to e-reader: mails each export to an e-reader's mailbox (Send-to-Kindle style) through
 * the user's own SMTP submission server, the file as a MIME attachment under the export's name
 * and the document's title as the subject.
 *
 * The mailbox drops mail from senders missing from its approved-sender list after SMTP has
 * accepted it, with no report, so success can only mean "accepted for delivery".
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import {
  CheckResult,
  Destination,
  Field,
  MailError,
  SendResult,
  contentTypeFor,
  formatBytes,
  headersField,
  registerDestination,
  sendMail,
  verifySmtp,
} from 'quire/plugin-api';

/** E-reader mailboxes take about 50 MB of attachments per mail; larger files are refused before connecting. */
const ATTACHMENT_CEILING = 50_000_000;

/** A setting that cannot work, found before any connection: answered as `CONFIG`. */
class SettingProblem extends Error {
  constructor(message, detail = '') {
    super(message);
    this.detail = detail;
  }
}

/** `me@example.org` or `Me <me@example.org>` → the bare address; `undefined` when it is neither. */
function bareAddress(text) {
  const m = /^(?:[^<>]*<\s*([^\s<>@,;]+@[^\s<>@,;]+\.[^\s<>@,;]+)\s*>|([^\s<>@,;]+@[^\s<>@,;]+\.[^\s<>@,;]+))$/.exec(text.trim());
  return m ? (m[1] ?? m[2]) : undefined;
}

/** What the mail server said, for `detail` only. */
function mailDetail(e, server) {
  return `${server.host}:${server.port} ${server.security}: ${e.code}${e.response ? ` ${e.response}` : ''} (${e.message})`;
}

class SendToEreader extends Destination {
  name = 'send-to-ereader';
  display = 'Send to e-reader';
  description = "Mails the book to your e-reader's address as an attachment.";
  accepts = ['pdf', 'epub', 'txt', 'md', 'docx'];
  CONFIG_FIELDS = [
    Field('smtp_host', 'Mail server (SMTP)', 'str', '', { required: true, help: 'Your provider\'s submission server, e.g. smtp.gmail.com.' }),
    Field('smtp_port', 'SMTP port', 'port', 587, { help: '587 with STARTTLS, 465 with TLS.' }),
    Field('smtp_security', 'Connection security', 'choice', 'starttls', { choices: ['starttls', 'tls', 'none'], help: 'none only for a mail server on this machine.' }),
    Field('smtp_user', 'SMTP user name', 'str', '', { required: true, help: 'Usually your full mail address.' }),
    Field('from_address', 'From address', 'str', '', { required: true, help: "Must be on the e-reader mailbox's approved-sender list, or the mail is silently dropped." }),
    Field('to_address', "E-reader's address", 'str', '', { required: true, help: 'The mailbox of your device, e.g. name@kindle.com.' }),
    headersField('Extra mail headers (one "Name: value" per line)'),
  ];
  SECRET_FIELDS = [
    Field('smtp_password', 'SMTP password', 'secret', '', { required: true, help: 'For Gmail, iCloud or Outlook: an app-specific password, not your usual one.' }),
  ];

  /** The SMTP settings and addresses; throws {@link SettingProblem} before any connection. */
  mailer() {
    const missing = this.missingSettings();
    if (missing.length > 0) throw new SettingProblem(`Send to e-reader is not set up yet: set ${missing.join(', ')}.`);
    const host = String(this.conf('smtp_host')).trim();
    if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) throw new SettingProblem(`The mail server "${host}" is not a host name such as smtp.example.org.`);
    const port = Number(this.conf('smtp_port'));
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new SettingProblem(`The SMTP port ${port} is not a port number (587 is the usual one).`);
    const security = String(this.conf('smtp_security'));
    const from = String(this.conf('from_address')).trim();
    const fromAddress = bareAddress(from);
    if (!fromAddress) throw new SettingProblem(`The from address "${from}" is not a mail address.`);
    const to = String(this.conf('to_address')).split(/[,;]/).map((a) => a.trim()).filter((a) => a !== '');
    const bad = to.find((a) => !bareAddress(a));
    if (bad !== undefined || to.length === 0) throw new SettingProblem(`The e-reader's address "${bad ?? ''}" is not a mail address.`);
    let headers;
    try {
      headers = this.extraHeaders();
    } catch (e) {
      throw new SettingProblem('The extra mail headers setting needs one "Name: value" per line.', e.message);
    }
    return {
      smtp: { host, port, security, user: String(this.conf('smtp_user')).trim(), password: this.secret('smtp_password') ?? '' },
      from,
      fromAddress,
      to,
      headers,
    };
  }

  /** A MailError in the user's words; the server's reply only in `detail`. */
  failure(e, mailer) {
    const { smtp } = mailer;
    const detail = mailDetail(e, smtp);
    if (e.kind === 'AUTH') {
      return [
        CheckResult.AUTH,
        `The mail server refused the sign-in of ${smtp.user}; many providers (Gmail, iCloud, Outlook) need an app-specific password here, not your usual one.`,
        detail,
      ];
    }
    if (e.kind === 'NETWORK') {
      if (e.code === 'ETLS' || /certificate|tls|ssl/i.test(e.message)) {
        return [CheckResult.NETWORK, `No secure connection to the mail server ${smtp.host}:${smtp.port} could be set up; check the connection security (starttls for port 587, tls for 465).`, detail];
      }
      return [CheckResult.NETWORK, `The mail server ${smtp.host}:${smtp.port} cannot be reached.`, detail];
    }
    if (e.kind === 'SERVER') return [CheckResult.SERVER, 'The mail server did not accept the mail.', detail];
    return [CheckResult.UNKNOWN, 'The mail could not be sent.', detail];
  }

  /** Connect, secure the connection and sign in, without sending anything. */
  async check() {
    let mailer;
    try {
      mailer = this.mailer();
    } catch (e) {
      if (e instanceof SettingProblem) return CheckResult.failed(CheckResult.CONFIG, e.message, e.detail);
      throw e;
    }
    const where = `${mailer.smtp.host}:${mailer.smtp.port} ${mailer.smtp.security}`;
    try {
      await verifySmtp(mailer.smtp);
    } catch (e) {
      if (!(e instanceof MailError)) throw e;
      const [kind, message, detail] = this.failure(e, mailer);
      return CheckResult.failed(kind, message, detail);
    }
    return CheckResult.passed(
      `The mail server accepts the sign-in of ${mailer.smtp.user}; mail reaches the e-reader only if ${mailer.fromAddress} is on its approved-sender list.`,
      where,
    );
  }

  async send(path, meta) {
    let mailer;
    try {
      mailer = this.mailer();
    } catch (e) {
      if (e instanceof SettingProblem) return SendResult.failed(CheckResult.CONFIG, e.message, e.detail);
      throw e;
    }
    const fileName = basename(path);
    const size = statSync(path).size;
    if (size > ATTACHMENT_CEILING) {
      return SendResult.failed(
        CheckResult.CONFIG,
        `${fileName} is ${formatBytes(size)}, more than the ${formatBytes(ATTACHMENT_CEILING)} an e-reader mailbox accepts, so it was not sent.`,
        `${size} bytes > ${ATTACHMENT_CEILING} bytes; no connection made`,
      );
    }
    let receipt;
    try {
      receipt = await sendMail(mailer.smtp, {
        from: mailer.from,
        to: mailer.to,
        subject: meta.title,
        text: `"${meta.title}", sent by Quire.\n`,
        attachments: [{ path, filename: fileName, contentType: contentTypeFor(fileName) }],
        headers: mailer.headers,
      });
    } catch (e) {
      if (!(e instanceof MailError)) throw e;
      const [kind, message, detail] = this.failure(e, mailer);
      return SendResult.failed(kind, message, detail);
    }
    return SendResult.sent(
      `The mail with "${meta.title}" was accepted for delivery; it reaches the e-reader only if ${mailer.fromAddress} is on its approved-sender list.`,
      `${mailer.smtp.host}:${mailer.smtp.port} accepted ${receipt.accepted.join(', ')}${receipt.rejected.length ? ` rejected ${receipt.rejected.join(', ')}` : ''}: ${receipt.response} ${receipt.messageId}`,
    );
  }
}

registerDestination(SendToEreader);
