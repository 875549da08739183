import { readSmtpConfig, type ServerSettings, type SmtpConfig } from './config.js';
import type { ProcessorLog } from './processor-types.js';
import { jobTag } from './secrets.js';
import type { Job } from './store.js';

export interface CompletionMail {
  to: string;
  docName: string;
  pdfUrl: string;
  mdUrl: string | null;
}

/** The completion email: what is ready and where to download it. Plain text, so every client shows the links. */
export function completionMessage(mail: CompletionMail): { subject: string; text: string } {
  const lines = [`Your document "${mail.docName}" is ready.`, '', `PDF: ${mail.pdfUrl}`];
  if (mail.mdUrl) lines.push(`Markdown: ${mail.mdUrl}`);
  lines.push('', 'Anyone with these links can download the files; delete the job when you no longer need them.', '', '— Quire');
  return { subject: `Quire: "${mail.docName}" is ready`, text: lines.join('\n') + '\n' };
}

function senderOf(smtp: SmtpConfig): string {
  if (smtp.from) return smtp.from;
  if (smtp.user?.includes('@')) return smtp.user;
  return `quire@${smtp.host}`;
}

/** Send one completion email through the configured server; rejects when the server refuses it. */
export async function sendCompletionMail(smtp: SmtpConfig, mail: CompletionMail): Promise<void> {
  // Loaded on the first email: most servers never send one.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port ?? (smtp.tls ? 465 : 587),
    secure: smtp.tls === true,
    ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  });
  try {
    await transport.sendMail({ from: senderOf(smtp), to: mail.to, ...completionMessage(mail) });
  } finally {
    transport.close();
  }
}

/**
 * The completion email of a finished job, sent by whichever process finished it (a server or a `quire worker`):
 * SMTP settings from the database, the password from this machine's secret store. Links start with `base_url`,
 * else the address the job was submitted to, else `fallbackBase()`.
 */
export function completionMailer(settings: ServerSettings, log: ProcessorLog, fallbackBase: () => Promise<string>): (job: Job) => Promise<void> {
  return async (job) => {
    const smtp = await readSmtpConfig(settings);
    if (!smtp) {
      log.info({ job: jobTag(job.jobId) }, 'no smtp setting; completion email not sent');
      return;
    }
    const key = await settings.store.getKey(job.keyId);
    if (!key) return;
    const base = (await settings.store.getConfig('base_url')) ?? job.linkBase ?? (await fallbackBase());
    await sendCompletionMail(smtp, {
      to: key.email,
      docName: job.docName ?? job.uploadName,
      pdfUrl: `${base}/download/${job.jobId}/pdf`,
      mdUrl: job.hasMd ? `${base}/download/${job.jobId}/md` : null,
    });
    log.info({ job: jobTag(job.jobId), keyId: key.keyId }, 'completion email sent');
  };
}
