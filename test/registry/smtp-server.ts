/**
 * A real SMTP server on loopback (the `smtp-server` package) standing in for the user's mail
 * provider, with AUTH, and a small MIME reader for what it received: enough to tell what an
 * e-reader mailbox would see (subject, headers, attachments under their names).
 */
import { SMTPServer } from 'smtp-server';

/** One message as the server received it. */
export interface ReceivedMail {
  /** Envelope sender and recipients. */
  from: string;
  to: string[];
  /** The signed-in user. */
  user: string;
  raw: Buffer;
}

export interface SmtpPeer {
  port: number;
  /** Messages accepted, in order. */
  messages: ReceivedMail[];
  /** TCP connections opened, and sign-in attempts made. */
  readonly connections: number;
  readonly authAttempts: number;
  stop(): Promise<void>;
}

/**
 * Start a submission server on 127.0.0.1 that accepts `users` (name → password) with PLAIN or
 * LOGIN, over a plain connection: it offers no STARTTLS, like a relay on this machine.
 */
export async function startSmtp(users: Readonly<Record<string, string>>): Promise<SmtpPeer> {
  const messages: ReceivedMail[] = [];
  let connections = 0;
  let authAttempts = 0;
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      authAttempts += 1;
      if (auth.username !== undefined && users[auth.username] === auth.password) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const address = (a: unknown): string => (a && typeof a === 'object' && 'address' in a ? String((a as { address: string }).address) : '');
        messages.push({
          from: address(session.envelope.mailFrom),
          to: session.envelope.rcptTo.map(address),
          user: String(session.user ?? ''),
          raw: Buffer.concat(chunks),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    messages,
    get connections() {
      return connections;
    },
    get authAttempts() {
      return authAttempts;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A MIME part: its headers (names lower case, unfolded, encoded words decoded) and decoded body. */
export interface MailPart {
  headers: Record<string, string>;
  body: Buffer;
  parts: MailPart[];
}

/** What an e-reader mailbox would look at. */
export interface ReadMail {
  headers: Record<string, string>;
  subject: string;
  attachments: Array<{ filename: string; contentType: string; content: Buffer }>;
}

/** RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`); adjacent ones join without their space. */
function decodeWords(text: string): string {
  const joined = text.replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1');
  return joined.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_m, _charset: string, encoding: string, data: string) => {
    if (encoding.toUpperCase() === 'B') return Buffer.from(data, 'base64').toString('utf8');
    const bytes = data.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_x, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  });
}

/** `value; a="x"; b*0*=utf-8''%C3%A9; b*1*=%C3%A9` → the value and its parameters (RFC 2231 continuations joined). */
function headerParams(header: string): { value: string; params: Record<string, string> } {
  const pieces = header.match(/(?:[^;"]+|"(?:\\.|[^"])*")+/g) ?? [];
  const value = (pieces.shift() ?? '').trim().toLowerCase();
  const raw: Array<{ name: string; index: number; encoded: boolean; text: string }> = [];
  for (const piece of pieces) {
    const eq = piece.indexOf('=');
    if (eq < 0) continue;
    const m = /^([^*]+)(?:\*(\d+))?(\*)?$/.exec(piece.slice(0, eq).trim().toLowerCase());
    if (!m) continue;
    let text = piece.slice(eq + 1).trim();
    if (text.startsWith('"')) text = text.slice(1, -1).replace(/\\(.)/g, '$1');
    raw.push({ name: m[1], index: Number(m[2] ?? 0), encoded: m[3] === '*', text });
  }
  const params: Record<string, string> = {};
  for (const name of new Set(raw.map((r) => r.name))) {
    const sections = raw.filter((r) => r.name === name).sort((a, b) => a.index - b.index);
    const bytes: number[] = [];
    for (const s of sections) {
      const text = s.encoded && s.index === 0 ? s.text.replace(/^[^']*'[^']*'/, '') : s.text;
      if (s.encoded) bytes.push(...Buffer.from(text.replace(/%([0-9A-Fa-f]{2})/g, (_x, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1'));
      else bytes.push(...Buffer.from(text, 'utf8'));
    }
    params[name] = decodeWords(Buffer.from(bytes).toString('utf8'));
  }
  return { value, params };
}

function parsePart(raw: Buffer): MailPart {
  const text = raw.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const bodyText = split < 0 ? '' : text.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(Buffer.from(line.slice(colon + 1).trim(), 'latin1').toString('utf8'));
  }
  const type = headerParams(headers['content-type'] ?? 'text/plain');
  if (type.value.startsWith('multipart/') && type.params.boundary) {
    const delimiter = `--${type.params.boundary}`;
    const sections = bodyText.split(delimiter).slice(1);
    const parts = sections.filter((s) => !s.startsWith('--')).map((s) => parsePart(Buffer.from(s.replace(/^\r\n/, '').replace(/\r\n$/, ''), 'latin1')));
    return { headers, body: Buffer.alloc(0), parts };
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  let body: Buffer;
  if (encoding === 'base64') body = Buffer.from(bodyText.replace(/\s+/g, ''), 'base64');
  else if (encoding === 'quoted-printable') {
    body = Buffer.from(bodyText.replace(/=\r\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_x, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1');
  } else body = Buffer.from(bodyText, 'latin1');
  return { headers, body, parts: [] };
}

/** Read a received message: its headers, subject and attachments (parts with a file name). */
export function readMail(raw: Buffer): ReadMail {
  const root = parsePart(raw);
  const attachments: ReadMail['attachments'] = [];
  const visit = (part: MailPart): void => {
    const disposition = headerParams(part.headers['content-disposition'] ?? '');
    const type = headerParams(part.headers['content-type'] ?? 'text/plain');
    const filename = disposition.params.filename ?? type.params.name;
    if (filename !== undefined && part.parts.length === 0) attachments.push({ filename, contentType: type.value, content: part.body });
    part.parts.forEach(visit);
  };
  visit(root);
  return { headers: root.headers, subject: root.headers.subject ?? '', attachments };
}
