import { createHmac, randomBytes } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import { describeError } from '../errors.js';
import { VERSION } from '../version.js';
import { apiError } from './http-errors.js';
import { systemClock, type Clock } from './clock.js';
import type { ProcessorLog } from './processor-types.js';
import { jobTag } from './secrets.js';
import type { DueWebhook, Job, JobStore, WebhookAttempt } from './store.js';

/**
 * Webhooks: a client gives `webhook_url` on `/run`; when its job ends (done, failed, cancelled) a sender POSTs the
 * job's outcome there, signed with its key's secret. Deliveries live in the jobs table, so any server or worker
 * sends them, each held by one sender at a time, and they survive restarts.
 *
 * Against request forgery, the address is checked when the job is submitted and again on every attempt, on the
 * very address the connection is made to (the lookup is the connection's own, so a name that changes its answer
 * between the two, DNS rebinding, is caught): loopback, private, link-local, unique-local and other non-public
 * addresses are refused unless the operator allows them.
 */

/** Attempts after the first, this long after the one before: about five minutes in all. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [5_000, 15_000, 30_000, 60_000, 90_000, 120_000];
/** One attempt may take this long, connection and answer together. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Deliveries posted at once, in all: the lanes wait past it. */
const MAX_IN_FLIGHT = 32;
/** A sender holds a delivery this long: longer than an attempt, so no other takes it meanwhile. */
const DELIVERY_LEASE_MS = 60_000;
export const SIGNATURE_HEADER = 'x-quire-signature';

/** A key's webhook signing secret: 32 random bytes, shown once when the key is made. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * The signature header of a body: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. The time is signed with
 * the body, so a receiver can refuse an old delivery replayed.
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** Whether an address is one on the public internet (not loopback, private, link-local, unique-local, reserved…). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // An IPv4-mapped address (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const parsed = ipaddr.process(address);
  // IPv4-compatible addresses (::/96: ::127.0.0.1, written ::7f00:1, or ::a9fe:a9fe) are deprecated and no public
  // host has one; some stacks still reach the IPv4 address inside, so none is posted to.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return false;
  return parsed.range() === 'unicast';
}

export interface WebhookPolicy {
  /** Deliver to loopback and private addresses too (`--allow-private-webhooks`): a receiver on the same network. */
  allowPrivate: boolean;
}

function refusedAddress(host: string, address: string): Error {
  return Object.assign(new Error(`${host} is ${address}, a loopback or private address, which this server does not post to`), { code: 'EWEBHOOKADDRESS' });
}

/** A `lookup` for sockets that refuses non-public answers: the check is made on the address connected to. */
export function guardedLookup(policy: WebhookPolicy): LookupFunction {
  return ((hostname: string, options: { all?: boolean } | number | undefined, callback: (...args: unknown[]) => void) => {
    const opts = typeof options === 'object' && options !== null ? options : {};
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const bad = addresses.find((a) => !isPublicAddress(a.address));
      if (bad && !policy.allowPrivate) return callback(refusedAddress(hostname, bad.address));
      if (opts.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  }) as LookupFunction;
}

/**
 * Check a `webhook_url` at submission: http or https, no credentials in it, a host that resolves to public addresses
 * only (unless the policy allows private ones). Returns it as it will be used; throws a 400 naming the problem.
 */
export async function checkWebhookUrl(raw: string, policy: WebhookPolicy): Promise<string> {
  const bad = (why: string) => apiError('bad_webhook', `webhook_url ${why}`);
  if (raw.length > 2048) throw bad('is too long (2048 characters at most).');
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw bad('is not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('must start with http:// or https://.');
  if (url.username !== '' || url.password !== '') throw bad('must not hold a user name or password; the signature authenticates each delivery.');
  url.hash = '';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(host, { all: true }, (e, a) => (e ? reject(e) : resolve(a))))).map(
        (a) => a.address,
      );
    } catch {
      throw bad(`names a host that could not be found (${host}).`);
    }
  }
  if (!policy.allowPrivate && addresses.some((a) => !isPublicAddress(a))) {
    throw bad(`points to a loopback or private address (${host}), which this server does not post to.`);
  }
  return url.toString();
}

/** What a webhook says: the job's outcome and where its files are. */
export function webhookBody(job: Job, base: string): string {
  const done = job.status === 'done' && !job.expired;
  return JSON.stringify({
    job_id: job.jobId,
    status: job.status,
    error: job.error,
    pdf_url: done ? `${base}/download/${job.jobId}/pdf` : null,
    md_url: done && job.hasMd ? `${base}/download/${job.jobId}/md` : null,
  });
}

export interface WebhookSenderOptions {
  store: JobStore;
  log: ProcessorLog;
  policy: WebhookPolicy;
  /** Identifies this sender while it holds a delivery. */
  senderId: string;
  /** Waits between attempts; default {@link WEBHOOK_RETRY_DELAYS_MS}. */
  retryDelaysMs?: readonly number[];
  /** Deliveries posted at once; default 4. */
  concurrency?: number;
  /** What decides when a delivery is due and when it is tried again (default the wall clock); a test moves it. */
  clock?: Clock;
}

export interface WebhookSender {
  /** Post every delivery that is due now (tests and the background loop); resolves with how many were attempted. */
  deliverDue(): Promise<number>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { store, log, policy, senderId } = options;
  const delays = options.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
  const concurrency = options.concurrency ?? 4;
  const clock = options.clock ?? systemClock;
  // No redirects are followed (undici's default): a redirect could lead anywhere.
  const agent = new Agent({
    connect: { lookup: guardedLookup(policy), timeout: ATTEMPT_TIMEOUT_MS },
    headersTimeout: ATTEMPT_TIMEOUT_MS,
    bodyTimeout: ATTEMPT_TIMEOUT_MS,
  });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  /** One attempt: the receiver's status, or null and why none came. */
  async function post(url: string, body: string, secret: string, attempt: number): Promise<{ status: number | null; error: string | null }> {
    const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
    // An address written in the URL is never looked up, so it is checked here.
    if (isIP(host) && !policy.allowPrivate && !isPublicAddress(host)) return { status: null, error: refusedAddress(host, host).message };
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': `Quire/${VERSION}`,
          [SIGNATURE_HEADER]: signWebhook(secret, body, Math.floor(Date.now() / 1000)),
          'x-quire-attempt': String(attempt),
        },
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return { status: res.statusCode, error: res.statusCode >= 200 && res.statusCode < 300 ? null : `the receiver answered ${res.statusCode}` };
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      return { status: null, error: describeError(cause instanceof Error ? cause : e) };
    }
  }

  /** Deliveries being posted, and how many per receiving host. */
  const inFlight = new Set<Promise<void>>();
  const perHost = new Map<string, number>();

  /**
   * Claim one due webhook and post it; false when none was due. A lane waits for its post only when its receiver has
   * nothing else in flight: further deliveries to a receiver that is slow (or never answers) go on beside the lanes,
   * so one such receiver holds up at most one lane, never everyone's deliveries. At most {@link MAX_IN_FLIGHT} at once.
   */
  async function deliverOne(): Promise<boolean> {
    const now = clock();
    const due = await store.claimWebhook(senderId, now, DELIVERY_LEASE_MS);
    if (!due) return false;
    const host = new URL(due.job.webhook!.url).host;
    const busy = (perHost.get(host) ?? 0) > 0;
    perHost.set(host, (perHost.get(host) ?? 0) + 1);
    const work = attempt(due, now)
      .catch((e: unknown) => log.warn({ job: jobTag(due.job.jobId), err: describeError(e) }, 'webhook attempt could not be recorded'))
      .finally(() => {
        const n = (perHost.get(host) ?? 1) - 1;
        if (n <= 0) perHost.delete(host);
        else perHost.set(host, n);
        inFlight.delete(work);
      });
    inFlight.add(work);
    if (!busy) await work;
    while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    return true;
  }

  /** Post one claimed webhook and record the attempt. */
  async function attempt(due: DueWebhook, now: number): Promise<void> {
    const { job, secret } = due;
    const webhook = job.webhook!;
    const attempts = webhook.attempts;
    let result: { status: number | null; error: string | null };
    if (secret === null) result = { status: null, error: 'the API key has no webhook secret' };
    else {
      const base = (await store.getConfig('base_url')) ?? job.linkBase ?? '';
      result = await post(webhook.url, webhookBody(job, base), secret, attempts.length + 1);
    }
    const record: WebhookAttempt = { at: now, status: result.status, error: result.error };
    const all = [...attempts, record];
    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    // Worth another try: the receiver is busy or failing (429, 5xx) or could not be reached. A refused address, a
    // redirect or another 4xx would answer the same again.
    const transient =
      !delivered &&
      secret !== null &&
      (result.status === null ? !/loopback or private address/.test(result.error ?? '') : result.status === 429 || result.status >= 500);
    const wait = delays[attempts.length];
    const next = delivered
      ? { state: 'delivered' as const }
      : transient && wait !== undefined
        ? { state: 'pending' as const, nextAt: clock() + wait }
        : { state: 'failed' as const };
    await store.recordWebhookAttempt(job.jobId, senderId, all, next);
    const logged = { job: jobTag(job.jobId), attempt: all.length, status: result.status, err: result.error ?? undefined };
    if (next.state === 'delivered') log.info(logged, 'webhook delivered');
    else if (next.state === 'pending') log.warn(logged, 'webhook not delivered; will try again');
    else log.warn(logged, 'webhook not delivered; given up');
  }

  async function deliverDue(): Promise<number> {
    let attempted = 0;
    const lane = async (): Promise<void> => {
      while (await deliverOne()) attempted++;
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    return attempted;
  }

  /** The lanes' claiming, once at a time; posts left in flight by it are not waited for. */
  const claimDue = (): Promise<number> => (running ??= deliverDue().finally(() => (running = null)));

  return {
    async deliverDue() {
      const attempted = await claimDue();
      await Promise.allSettled([...inFlight]);
      return attempted;
    },
    start(intervalMs) {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        claimDue().catch((e: unknown) => log.error({ err: describeError(e) }, 'webhook delivery failed'));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => undefined);
      await Promise.allSettled([...inFlight]);
      await agent.close().catch(() => undefined);
    },
  };
}
