/**
 * The sandboxed plugin process. Started by the host inside bubblewrap (where the system has it)
 * with Node's permission model; closes what the plugin must not reach ({@link lockDown}), routes
 * the API's HTTP and mail requests to the host, receives one `run` message over IPC, loads the
 * plugin module from a `data:` URL (so only Node built-ins and the host's API module, named by
 * absolute URL, can be imported), runs one operation, answers, and exits. It never opens the
 * keychain or a settings file: what it needs arrives in the message.
 */
import {
  Destination,
  HttpNetworkError,
  MailError,
  normalizeBookMeta,
  registeredDestinations,
  routeNetworkThroughHost,
  type CheckResult,
  type DestinationClass,
  type SendResult,
} from '../../plugin-api/index.js';
import { lockDown } from './lockdown.js';
import { describeThrown, isSandboxRefusal } from './thrown.js';
import type { ChildMessage, DestinationDescriptor, FailureStage, HostMessage, NetError, NetReply, NetRequest, RunMessage } from './protocol.js';

/** The IPC sender, kept before the lockdown takes `process.send` away from the plugin. */
const sendToHost = process.send?.bind(process);

class StageError extends Error {
  readonly stage: FailureStage;
  readonly detail: string;
  constructor(stage: FailureStage, message: string, detail = '') {
    super(message);
    this.stage = stage;
    this.detail = detail;
  }
}

let answered = false;

/** Send a message to the host; after the final answer, only that, and then the process ends. */
function answer(message: ChildMessage): void {
  const final = message.type !== 'log' && message.type !== 'net' && message.type !== 'refused';
  if (final && answered) return;
  if (final) answered = true;
  if (!sendToHost) {
    process.exitCode = 70;
    return;
  }
  sendToHost(message, undefined, {}, () => {
    if (final) process.exit(0);
  });
}

/** Network requests waiting for the host's answer. */
const waiting = new Map<number, { resolve: (reply: Extract<NetReply, { ok: true }>) => void; reject: (e: Error) => void }>();
let nextId = 1;

function errorOf(e: NetError): Error {
  if (e.name === 'network') return new HttpNetworkError(e.message, e.code);
  if (e.name === 'mail') return new MailError(e.message, e.kind ?? 'UNKNOWN', e.code, e.response ?? '');
  const refused = new Error(e.message) as Error & { code: string };
  refused.code = 'ERR_ACCESS_DENIED';
  return refused;
}

function askHost(request: NetRequest): Promise<Extract<NetReply, { ok: true }>> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    answer({ type: 'net', id, request });
  });
}

routeNetworkThroughHost({
  http: async (http) => {
    const reply = await askHost({ kind: 'http', http });
    if (!reply.http) throw new HttpNetworkError('the host answered without a reply', 'EPROTO');
    return reply.http;
  },
  mail: async (mail) => (await askHost({ kind: 'mail', mail })).mail ?? null,
});

lockDown((what) => answer({ type: 'refused', what }));

function fail(stage: FailureStage, e: unknown): void {
  const message =
    e instanceof StageError ? e.message : stage === 'load' ? 'it failed while loading' : stage === 'construct' ? 'it failed while starting' : 'it failed';
  const detail = e instanceof StageError ? e.detail : describeThrown(e);
  answer({ type: 'failed', stage: e instanceof StageError ? e.stage : stage, message, detail, sandbox: isSandboxRefusal(e) });
}

function onlyDestination(): DestinationClass {
  const classes = registeredDestinations();
  if (classes.length === 0) throw new StageError('register', 'it registers no destination (registerDestination was never called)');
  if (classes.length > 1) throw new StageError('register', `it registers ${classes.length} destinations, and a plugin registers exactly one`);
  const cls = classes[0];
  if (!(cls.prototype instanceof Destination)) throw new StageError('register', 'its registered class does not extend Destination');
  return cls;
}

/** Read what the instance says about itself; shape errors are the plugin's. */
function descriptorOf(instance: Destination, slug: string): DestinationDescriptor {
  const text = (value: unknown, member: string): string => {
    if (typeof value !== 'string' || value.trim() === '') throw new StageError('register', `its ${member} must be a non-empty text`);
    return value;
  };
  const name = text(instance.name, 'name');
  if (name !== slug) throw new StageError('register', `its destination is named "${name}" but the plugin's slug is "${slug}"`);
  const accepts = instance.accepts as unknown;
  if (!Array.isArray(accepts) || accepts.length === 0 || !accepts.every((a) => typeof a === 'string' && /^[a-z0-9]+$/.test(a))) {
    throw new StageError('register', 'its accepts must list export format names (pdf, md, …)');
  }
  const fields = (value: unknown, member: string): DestinationDescriptor['configFields'] => {
    if (!Array.isArray(value)) throw new StageError('register', `its ${member} must be a list of Field`);
    return value.map((f) => ({ ...(f as DestinationDescriptor['configFields'][number]) }));
  };
  return {
    name,
    display: text(instance.display, 'display'),
    description: text(instance.description, 'description'),
    accepts: [...new Set(accepts as string[])],
    configFields: fields(instance.CONFIG_FIELDS, 'CONFIG_FIELDS'),
    secretFields: fields(instance.SECRET_FIELDS, 'SECRET_FIELDS'),
  };
}

async function run(message: RunMessage): Promise<void> {
  try {
    await import(`data:text/javascript;base64,${Buffer.from(message.source, 'utf8').toString('base64')}`);
  } catch (e) {
    fail('load', e);
    return;
  }
  let instance: Destination;
  try {
    const cls = onlyDestination();
    instance = new cls({
      slug: message.slug,
      dataDir: message.dataDir,
      settings: message.settings,
      secrets: message.secrets,
      secretStore: message.secretStore,
      log: (line: string) => answer({ type: 'log', line: String(line).slice(0, 2000) }),
    });
  } catch (e) {
    fail('construct', e);
    return;
  }
  let descriptor: DestinationDescriptor;
  try {
    descriptor = descriptorOf(instance, message.slug);
  } catch (e) {
    fail('register', e);
    return;
  }
  try {
    if (message.op === 'describe') {
      answer({ type: 'described', descriptor });
    } else if (message.op === 'check') {
      const result: CheckResult = await instance.check();
      answer({ type: 'checked', result: { ...result } });
    } else {
      if (!message.file || !message.meta) throw new StageError('run', 'nothing to send');
      const result: SendResult = await instance.send(message.file, normalizeBookMeta(message.meta));
      answer({ type: 'sent', result: { ...result } });
    }
  } catch (e) {
    fail('run', e);
  }
}

process.on('uncaughtException', (e) => fail('run', e));
process.on('unhandledRejection', (e) => fail('run', e));
let started = false;
process.on('message', (message: HostMessage) => {
  if (message.type === 'run' && !started) {
    started = true;
    void run(message);
  } else if (message.type === 'net-reply') {
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (!pending) return;
    if (message.ok) pending.resolve(message);
    else pending.reject(errorOf(message.error));
  }
});
