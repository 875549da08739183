import type { SmtpConfig } from './config.js';

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
