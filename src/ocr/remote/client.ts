/**
 * The HTTP client of the remote OCR API: one place that sends requests, retries what is safe to retry, and turns
 * every failure into one sentence (`QuireError`) with the status and the service's words in `detail`.
 *
 * What is retried, with exponential backoff (a `Retry-After` header wins):
 * - network failures, timeouts, 429 and 5xx, for requests that change nothing when repeated: every GET, `/v1/ocr`,
 *   a file upload (a repeat only leaves an unused file), a batch cancel;
 * - for the one request that is not (creating a batch job, which a repeat could start twice), only what proves the
 *   service did not take it: 429, 503, and a connection that never opened.
 * 401 and 403 are never retried (the key is wrong), nor are other 4xx (the request is).
 */
import type { Agent } from 'undici';
import { ERROR_CODES, QuireError, type ErrorCode } from '../../errors.js';
import {
  ProtocolError,
  errorText,
  parseBatchJob,
  parseBatchResults,
  parseFileId,
  parseOcrReply,
  type BatchJob,
  type BatchResultLine,
  type OcrReply,
} from './protocol.js';

/** The code of a failure of the service itself (HTTP 502 in the web app). */
export const REMOTE_FAILED: ErrorCode = ERROR_CODES.REMOTE_OCR_FAILED;

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubled for each further one. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the call fails at once, saying when to try again. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 1_000, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

export interface RemoteOcrClientOptions {
  baseUrl: string;
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  /**
   * Per request: `/v1/ocr` reads up to 1000 pages, so it gets long (`ocrMs`, default 15 minutes); the short ones
   * (status, create, cancel) get `otherMs` (default 30 s). `connectMs` bounds opening a connection (default 10 s).
   */
  timeouts?: { ocrMs?: number; otherMs?: number; connectMs?: number };
  /** How waits happen; tests pass one that records the delays instead of waiting. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RemoteOcrClient {
  readonly host: string;
  ocr(body: Record<string, unknown>, signal?: AbortSignal): Promise<OcrReply>;
  uploadFile(name: string, bytes: Uint8Array, contentType: string, purpose: 'ocr' | 'batch', signal?: AbortSignal): Promise<string>;
  createBatch(body: Record<string, unknown>, signal?: AbortSignal): Promise<BatchJob>;
  getBatch(id: string, signal?: AbortSignal): Promise<BatchJob>;
  batchResults(fileId: string, signal?: AbortSignal): Promise<BatchResultLine[]>;
  cancelBatch(id: string, signal?: AbortSignal): Promise<BatchJob>;
}

/** A failure of one try, classified. */
interface TryFailure {
  kind: 'network' | 'timeout' | 'status';
  status?: number;
  /** The connection never opened, so the service cannot have acted on the request. */
  notSent?: boolean;
  retryAfterMs?: number;
  detail: string;
}

/** Connection errors that happen before a byte of the request is sent. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait before try `attempt + 1` (attempt counts from 1): doubling from the base, jittered ±20 %, capped. */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
  const raw = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(raw * (0.8 + 0.4 * random()));
}

function causeCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let depth = 0; depth < 4 && cur; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

function minutes(ms: number): string {
  const m = Math.ceil(ms / 60_000);
  return m <= 1 ? 'a minute' : `${m} minutes`;
}

/** The sentence for a failure that ends the call. */
function failure(host: string, what: string, f: TryFailure, tries: number): QuireError {
  const after = tries > 1 ? ` (tried ${tries} times)` : '';
  const detail = `${what}: ${f.detail}`;
  if (f.kind === 'timeout') return new QuireError(REMOTE_FAILED, `The remote OCR service at ${host} did not answer in time${after}; try again later.`, detail);
  if (f.kind === 'network') {
    return new QuireError(
      REMOTE_FAILED,
      `Could not reach the remote OCR service at ${host}${after}; check the network and the remoteocr.base_url setting.`,
      detail,
    );
  }
  const status = f.status!;
  if (status === 401 || status === 403) {
    return new QuireError(
      ERROR_CODES.USAGE,
      `The remote OCR service at ${host} refused the API key (HTTP ${status}); set the right one with quire config set-secret remoteocr.api_key.`,
      detail,
    );
  }
  if (status === 429) {
    const when = f.retryAfterMs !== undefined && f.retryAfterMs > 0 ? `in ${minutes(f.retryAfterMs)}` : 'later';
    return new QuireError(REMOTE_FAILED, `The remote OCR service at ${host} is limiting requests (HTTP 429)${after}; try again ${when}.`, detail);
  }
  if (status >= 500) return new QuireError(REMOTE_FAILED, `The remote OCR service at ${host} failed (HTTP ${status})${after}; try again later.`, detail);
  return new QuireError(
    REMOTE_FAILED,
    `The remote OCR service at ${host} rejected the request (HTTP ${status}): ${f.detail.replace(/^HTTP \d+: /, '').slice(0, 200)}.`,
    detail,
  );
}

/** Whether a failed try may be tried again: a busy service always, a failure after sending only when the call can repeat. */
function retryable(f: TryFailure, idempotent: boolean): boolean {
  if (f.kind === 'status') {
    const s = f.status!;
    if (s === 429) return true;
    if (s === 503) return true;
    return idempotent && s >= 500;
  }
  return idempotent || f.notSent === true;
}

export function createRemoteOcrClient(options: RemoteOcrClientOptions): RemoteOcrClient {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const base = options.baseUrl.replace(/\/+$/, '');
  const host = new URL(base).host;
  const sleep = options.sleep ?? sleepFor;
  const ocrMs = options.timeouts?.ocrMs ?? 15 * 60_000;
  const otherMs = options.timeouts?.otherMs ?? 30_000;
  // undici is loaded on the first request: every run builds the engine list, few read remotely.
  let dispatcher: Promise<Agent> | undefined;
  const agent = (): Promise<Agent> =>
    (dispatcher ??= import('undici').then(({ Agent }) => new Agent({ connect: { timeout: options.timeouts?.connectMs ?? 10_000 } })));

  async function once(path: string, init: RequestInit, timeoutMs: number, signal?: AbortSignal): Promise<Response | TryFailure> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const res = await fetch(`${base}${path}`, {
        ...init,
        signal: combined,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
        // undici's own agent (the one Node's fetch is built on), for the connect timeout fetch does not offer.
        dispatcher: await agent(),
      } as RequestInit);
      if (res.ok) return res;
      const body = await res.text().catch(() => '');
      let said = body.slice(0, 500);
      try {
        said = errorText(JSON.parse(body));
      } catch {
        // not JSON: keep the text
      }
      // The body is read either way, so the connection can be reused.
      return { kind: 'status', status: res.status, retryAfterMs: retryAfterMs(res.headers.get('retry-after')), detail: `HTTP ${res.status}: ${said}` };
    } catch (e) {
      if (signal?.aborted) throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
      if (timeout.aborted) return { kind: 'timeout', detail: `no answer within ${Math.round(timeoutMs / 1000)} s` };
      const code = causeCode(e);
      return {
        kind: 'network',
        notSent: code !== undefined && NOT_SENT.has(code),
        detail: `${e instanceof Error ? e.message : String(e)}${code ? ` (${code})` : ''}`,
      };
    }
  }

  /** Send one request with retries; `read` turns the successful response into the result. */
  async function request<T>(
    what: string,
    path: string,
    init: () => RequestInit,
    opts: { idempotent: boolean; timeoutMs?: number; signal?: AbortSignal | undefined },
    read: (res: Response) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const got = await once(path, init(), opts.timeoutMs ?? otherMs, opts.signal);
      if (got instanceof Response) {
        try {
          return await read(got);
        } catch (e) {
          if (e instanceof QuireError) throw e;
          const why = e instanceof ProtocolError || e instanceof SyntaxError ? e.message : String(e);
          throw new QuireError(REMOTE_FAILED, `The remote OCR service at ${host} sent a reply Quire cannot read.`, `${what}: ${why}`);
        }
      }
      if (attempt >= policy.attempts || !retryable(got, opts.idempotent)) throw failure(host, what, got, attempt);
      if (got.retryAfterMs !== undefined && got.retryAfterMs > policy.maxRetryAfterMs) throw failure(host, what, got, attempt);
      const wait = got.retryAfterMs ?? backoffMs(attempt, policy);
      try {
        await sleep(wait, opts.signal);
      } catch {
        throw new QuireError(ERROR_CODES.CANCELLED, 'The conversion was cancelled.');
      }
    }
  }

  const json = async (res: Response): Promise<unknown> => JSON.parse(await res.text()) as unknown;
  const postJson = (body: unknown) => (): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const get = (): RequestInit => ({ method: 'GET' });
  const id = (v: string): string => encodeURIComponent(v);

  return {
    host,
    ocr: (body, signal) =>
      request('POST /v1/ocr', '/v1/ocr', postJson(body), { idempotent: true, timeoutMs: ocrMs, signal }, async (r) => parseOcrReply(await json(r))),
    uploadFile: (name, bytes, contentType, purpose, signal) =>
      request(
        'POST /v1/files',
        '/v1/files',
        () => {
          const form = new FormData();
          form.append('purpose', purpose);
          form.append('file', new Blob([new Uint8Array(bytes)], { type: contentType }), name);
          return { method: 'POST', body: form };
        },
        { idempotent: true, timeoutMs: ocrMs, signal },
        async (r) => parseFileId(await json(r)),
      ),
    createBatch: (body, signal) =>
      request('POST /v1/batch/jobs', '/v1/batch/jobs', postJson(body), { idempotent: false, signal }, async (r) => parseBatchJob(await json(r))),
    getBatch: (batchId, signal) =>
      request(`GET /v1/batch/jobs/${batchId}`, `/v1/batch/jobs/${id(batchId)}`, get, { idempotent: true, signal }, async (r) => parseBatchJob(await json(r))),
    batchResults: (fileId, signal) =>
      request(`GET /v1/files/${fileId}/content`, `/v1/files/${id(fileId)}/content`, get, { idempotent: true, timeoutMs: ocrMs, signal }, async (r) =>
        parseBatchResults(await r.text()),
      ),
    cancelBatch: (batchId, signal) =>
      request(`POST /v1/batch/jobs/${batchId}/cancel`, `/v1/batch/jobs/${id(batchId)}/cancel`, postJson({}), { idempotent: true, signal }, async (r) =>
        parseBatchJob(await json(r)),
      ),
  };
}
