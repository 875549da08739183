/**
 * The host's side of a plugin's network. A plugin's process has no network of its own; the API's
 * HTTP and mail helpers ask the host, which makes the request on the plugin's behalf only when
 * the plugin's manifest declares `network = true`, and only to a host its settings name (its base
 * URL, its SMTP server): a URL setting names its host and port, a host name setting its host on any
 * port. Files travel by path, and only the staged file and the plugin's own `files/` may be read.
 * Anything else is refused, and the refusal turns the plugin's answer into `PERMISSION`.
 */
import { closeSync, openSync, realpathSync } from 'node:fs';
import { basename, sep } from 'node:path';
import {
  HttpNetworkError,
  MailError,
  httpRequest,
  multipartBody,
  sendMail,
  verifySmtp,
  type BridgeBody,
  type BridgeHttpReply,
  type Field,
  type FieldValue,
  type HttpBody,
} from '../plugin-api/index.js';
import type { NetError, NetReply, NetRequest } from './sandbox/protocol.js';

/** A host a plugin may reach; `port` undefined: any port. */
export interface AllowedHost {
  host: string;
  port?: number;
}

/** What a plugin may reach during one check or send. */
export interface NetworkPolicy {
  /** The manifest declares `network = true`. */
  declared: boolean;
  hosts: AllowedHost[];
}

/** Where a plugin process may read a file it asks the host to send. */
export interface FileAccess {
  /** The staged file of a send. */
  staged?: string;
  /** The plugin's own `files/` folder. */
  filesDir: string;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'smtp:': 25, 'smtps:': 465, 'submission:': 587 };
const HOST_NAME =
  /^(?:localhost|(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;

/** The host named by one setting's text, if it names one: a URL, or a host name (with a dot), an IP address or `localhost`. */
export function hostOfSetting(text: string): AllowedHost | undefined {
  const value = text.trim();
  if (value === '' || /\s/.test(value)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      if (!(url.protocol in DEFAULT_PORTS) || url.hostname === '') return undefined;
      return { host: url.hostname.toLowerCase(), port: url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol] };
    } catch {
      return undefined;
    }
  }
  const m = HOST_NAME.exec(value);
  if (!m) return undefined;
  try {
    // The URL parser spells the host as a request would (IPv4 forms, IPv6 brackets, case).
    const url = new URL(`http://${value}`);
    return { host: url.hostname.toLowerCase(), ...(m[1] ? { port: Number(m[1]) } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * The policy of one run: the hosts named by the plugin's text and address settings that have a value (what the
 * user typed or imported; a default the plugin declared does not count).
 */
export function networkPolicy(declared: boolean, configFields: readonly Field[], settings: Readonly<Record<string, FieldValue>>): NetworkPolicy {
  const hosts: AllowedHost[] = [];
  if (declared) {
    for (const field of configFields) {
      const value = settings[field.id];
      if ((field.kind !== 'str' && field.kind !== 'url') || typeof value !== 'string') continue;
      const named = hostOfSetting(value);
      if (named) hosts.push(named);
    }
  }
  return { declared, hosts };
}

/** The hosts of `policy` in the user's words (`shelf.example.org:443`, `smtp.example.org`). */
export function describeHosts(policy: NetworkPolicy): string[] {
  const spell = (h: AllowedHost): string =>
    `${h.host.includes(':') && !h.host.startsWith('[') ? `[${h.host}]` : h.host}${h.port !== undefined ? `:${h.port}` : ''}`;
  return [...new Set(policy.hosts.map(spell))];
}

/** Why `host:port` may not be reached under `policy`, in the user's words; `undefined` when it may. */
export function refusalOf(policy: NetworkPolicy, host: string, port: number, display: string): string | undefined {
  if (!policy.declared) return `${display} does not declare network access (network = true in its manifest), and it tried to reach ${host}:${port}`;
  const wanted = host.toLowerCase().replace(/^\[|\]$/g, '');
  const named = policy.hosts.some((h) => h.host.replace(/^\[|\]$/g, '') === wanted && (h.port === undefined || h.port === port));
  if (named) return undefined;
  return `${display} tried to reach ${host}:${port}, which none of its settings names`;
}

/** A request the host will not make: its message completes "<plugin> …". */
class Refused extends Error {}

/**
 * A file a plugin may have sent: the staged file, or a file under its `files/`. It is opened first
 * and judged by what was opened, so a link swapped in meanwhile cannot point the host elsewhere;
 * the path returned (`/proc/self/fd/N` on Linux) reads that same open file. `opened` collects the
 * descriptors to close once the request is over.
 */
function readableFile(path: unknown, files: FileAccess, opened: number[]): string {
  if (typeof path !== 'string' || path === '') throw new Refused('asked to send a file without a name');
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw new Refused(`asked to send ${path}, which it cannot have`);
  }
  opened.push(fd);
  const byDescriptor = process.platform === 'linux' ? `/proc/self/fd/${fd}` : undefined;
  let real: string;
  try {
    real = realpathSync(byDescriptor ?? path);
  } catch {
    throw new Refused(`asked to send ${path}, which it cannot have`);
  }
  const filesDir = realpathSync(files.filesDir);
  if ((files.staged && real === realpathSync(files.staged)) || real.startsWith(filesDir + sep)) return byDescriptor ?? real;
  throw new Refused(`asked to send ${path}, a file outside its own folder`);
}

function bodyOf(body: BridgeBody | undefined, files: FileAccess, opened: number[]): HttpBody | undefined {
  if (body === undefined) return undefined;
  if (body.kind === 'bytes' && typeof body.base64 === 'string') return Buffer.from(body.base64, 'base64');
  if (body.kind === 'file') return { file: readableFile(body.path, files, opened) };
  if (body.kind === 'multipart' && body.fields && typeof body.fields === 'object' && Array.isArray(body.files)) {
    const fields = Object.fromEntries(Object.entries(body.fields).map(([k, v]) => [String(k), String(v)]));
    return multipartBody(
      fields,
      body.files.map((f) => ({
        name: String(f.name),
        path: readableFile(f.path, files, opened),
        // The name the server sees is the plugin's file's, not the descriptor's.
        filename: f.filename !== undefined ? String(f.filename) : basename(String(f.path)),
        ...(f.contentType !== undefined ? { contentType: String(f.contentType) } : {}),
      })),
    );
  }
  throw new Refused('asked to send a body Quire does not know');
}

/** The largest reply the host reads for a plugin. */
const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** A plain object of text headers, or a refusal. */
function textRecord(value: unknown, what: string): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Refused(`asked with ${what} Quire does not understand`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

/**
 * Serve one request of a plugin process: check it against `policy` and `files`, make it, and
 * answer as the child expects. `onRefused` hears each refusal (the run's result becomes `PERMISSION`).
 */
export async function serveNetworkRequest(
  id: number,
  request: NetRequest,
  context: { policy: NetworkPolicy; files: FileAccess; display: string; onRefused: (why: string) => void },
): Promise<NetReply> {
  const fail = (error: NetError): NetReply => ({ type: 'net-reply', id, ok: false, error });
  const opened: number[] = [];
  const refuse = (why: string): NetReply => {
    context.onRefused(why);
    return fail({ name: 'refused', message: `Quire stopped this request: ${why}.`, code: 'ERR_ACCESS_DENIED' });
  };
  try {
    if (request?.kind === 'http') {
      const r = request.http;
      let url: URL;
      try {
        url = new URL(String(r.url));
      } catch {
        return refuse(`${context.display} asked for an address that is not a URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        return refuse(`${context.display} asked for a ${url.protocol} address, and plugins reach only http and https servers`);
      const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol];
      const why = refusalOf(context.policy, url.hostname, port, context.display);
      if (why) return refuse(why);
      const body = bodyOf(r.body, context.files, opened);
      const reply = await httpRequest({
        url,
        method: String(r.method || 'GET'),
        headers: textRecord(r.headers, 'headers'),
        ...(body !== undefined ? { body } : {}),
        // A multipart body is built again here, with its own boundary and type.
        ...(r.contentType && r.body?.kind !== 'multipart' ? { contentType: String(r.contentType) } : {}),
        ...(typeof r.timeoutMs === 'number' ? { timeoutMs: r.timeoutMs } : {}),
        maxResponseBytes: Math.min(typeof r.maxResponseBytes === 'number' ? r.maxResponseBytes : 16 * 1024 * 1024, MAX_REPLY_BYTES),
        ...(typeof r.ca === 'string' ? { ca: r.ca } : {}),
      });
      const http: BridgeHttpReply = {
        status: reply.status,
        statusText: reply.statusText,
        headers: { ...reply.headers },
        body: reply.body.toString('base64'),
        challenges: reply.challenges.map((c) => ({ scheme: c.scheme, params: { ...c.params } })),
      };
      return { type: 'net-reply', id, ok: true, http };
    }
    if (request?.kind === 'mail') {
      const { op, smtp, message } = request.mail;
      const host = String(smtp?.host ?? '');
      const port = typeof smtp?.port === 'number' ? smtp.port : 587;
      const why = refusalOf(context.policy, host, port, context.display);
      if (why) return refuse(why);
      if (op === 'verify') {
        await verifySmtp(smtp);
        return { type: 'net-reply', id, ok: true, mail: null };
      }
      if (op !== 'send' || !message) return refuse(`${context.display} asked for a mail operation Quire does not know`);
      const attachments = (message.attachments ?? []).map((a) => ({
        ...a,
        path: readableFile(a.path, context.files, opened),
        filename: a.filename !== undefined ? String(a.filename) : basename(String(a.path)),
      }));
      const receipt = await sendMail(smtp, { ...message, headers: textRecord(message.headers, 'mail headers'), attachments });
      return { type: 'net-reply', id, ok: true, mail: receipt };
    }
    return refuse(`${context.display} asked for something that is neither HTTP nor mail`);
  } catch (e) {
    if (e instanceof Refused) return refuse(`${context.display} ${e.message}`);
    if (e instanceof HttpNetworkError) return fail({ name: 'network', message: e.message, code: e.code });
    if (e instanceof MailError) return fail({ name: 'mail', message: e.message, code: e.code, kind: e.kind, response: e.response });
    const err = e as { message?: string; code?: string };
    return fail({ name: 'network', message: err.message ?? String(e), code: typeof err.code === 'string' ? err.code : 'EUNKNOWN' });
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}
