import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ConvertEngine, ConvertOptions, ConvertResult, OcrCheck, ProgressEvent } from '../convert/index.js';
import { ERROR_CODES, QuireError, type ErrorCode } from '../errors.js';
import { formatBytes } from '../util/index.js';

/** What crosses to a job's process: convert's options without the signal and callback (sent as messages). */
type PlainOptions = Omit<ConvertOptions, 'signal' | 'onProgress'>;

export type ChildRequest =
  | { type: 'run'; input: string | string[]; options: PlainOptions }
  /** Poll a parked job's OCR batch, finishing its exports when it is done. */
  | { type: 'check-ocr'; projectDir: string }
  | { type: 'cancel-ocr'; projectDir: string };

export type ChildReply =
  | { type: 'progress'; event: ProgressEvent }
  | { type: 'done'; result: ConvertResult }
  | { type: 'checked'; check: OcrCheck }
  | { type: 'cancelled' }
  | { type: 'error'; error: { code: ErrorCode | null; message: string; detail?: string | undefined; errno?: string | undefined } };

/** How much lower a job process's CPU priority is than the server's (added to its niceness). */
export const JOB_NICENESS = 10;

/** The default memory ceiling of one job's process. */
export const DEFAULT_JOB_MEMORY = 1.5 * 1024 ** 3;

export interface EngineOptions {
  /** Bytes one job's process may use, all of it (JavaScript heap and decoded images alike); default 1.5 GiB. */
  memoryLimit?: number;
  /** The child's entry point; default the built `job-child.js` beside this file. */
  childScript?: string;
  /** Keep one job process started ahead (default true); a server that runs no jobs (`--no-worker`) keeps none. */
  warm?: boolean;
  /** A poll or cancel of an OCR batch ends by then, however the OCR service behaves; default 2 minutes. */
  ocrDeadlineMs?: number;
}

/** The default deadline of one poll or cancel of an OCR batch (the remote client's own timeouts and retries fit in it). */
export const OCR_DEADLINE_MS = 120_000;

function ocrLate(ms: number): QuireError {
  return new QuireError(
    ERROR_CODES.REMOTE_OCR_FAILED,
    `The OCR service did not answer within ${Math.round(ms / 1000)} seconds; try again later.`,
    'the OCR batch: deadline passed',
  );
}

/** `promise`, or a rejection with {@link ocrLate} once `ms` have passed. */
function byDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(ocrLate(ms)), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The conversion verbs, each call in a process of its own. */
export interface Engine extends ConvertEngine {
  /** Stop every job process still running (after the server's grace period). */
  close(): Promise<void>;
}

/**
 * The conversion verbs run out of the server's process: every call (a conversion, a poll of an OCR batch, its
 * cancel) forks a process of its own with a memory ceiling, so that a hostile input fails its job with a clear
 * sentence and the server carries on. A separate worker process uses the same engine.
 *
 * The ceiling is enforced three ways, since no one of them covers everything: `ulimit -d` (RLIMIT_DATA, which
 * Linux applies to every private writable mapping, so native decoders' buffers count), V8's old-space limit for the
 * JavaScript heap, and a watchdog that reads the process's resident size from /proc and ends it past the ceiling.
 *
 * One process is started ahead and waits with its modules loaded, so a job does not wait for Node to start; it
 * still takes one job and exits.
 */
export function createEngine(options: EngineOptions = {}): Engine {
  const memoryLimit = options.memoryLimit ?? DEFAULT_JOB_MEMORY;
  const ocrDeadlineMs = options.ocrDeadlineMs ?? OCR_DEADLINE_MS;
  const script = options.childScript ?? fileURLToPath(new URL('./job-child.js', import.meta.url));
  const children = new Set<ChildProcess>();
  let spare: ChildProcess | null = null;
  let closed = false;

  /**
   * One job process started ahead, its modules loaded while it waits, so the next job does not pay for Node's start
   * (a second or more): still one process per job, never reused. It keeps nothing alive on its own.
   */
  const prime = (): void => {
    if (closed || spare || options.warm === false) return;
    const child = spawnJob(script, memoryLimit);
    child.on('error', () => undefined);
    child.once('exit', () => {
      if (spare === child) spare = null;
    });
    child.unref();
    child.channel?.unref();
    (child.stderr as Socket | null)?.unref();
    spare = child;
  };

  const take = (): ChildProcess => {
    const ready = spare !== null && spare.exitCode === null && spare.signalCode === null && spare.connected ? spare : null;
    spare = null;
    const child = ready ?? spawnJob(script, memoryLimit);
    child.ref();
    child.channel?.ref();
    (child.stderr as Socket | null)?.ref();
    prime();
    return child;
  };

  function run<T>(request: ChildRequest, label: string, onProgress?: (e: ProgressEvent) => void, signal?: AbortSignal, deadlineMs?: number): Promise<T> {
    const child = take();
    children.add(child);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      // The end of what it said is what explains a crash.
      stderr = (stderr + d.toString('utf8')).slice(-4000);
    });
    let overMemory = false;
    const watchdog = setInterval(() => {
      const rss = residentBytes(child.pid);
      if (rss !== null && rss > memoryLimit) {
        overMemory = true;
        child.kill('SIGKILL');
      }
    }, 250);
    watchdog.unref();
    let late = false;
    // A call to a peer (the OCR service) ends by its deadline, whatever the peer does: its process is killed.
    const deadline =
      deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            late = true;
            child.kill('SIGKILL');
          }, deadlineMs);
    deadline?.unref();
    return new Promise<T>((resolve, reject) => {
      let answered = false;
      child.on('message', (msg: ChildReply) => {
        if (msg.type === 'progress') return onProgress?.(msg.event);
        answered = true;
        if (msg.type === 'done') resolve(msg.result as T);
        else if (msg.type === 'checked') resolve(msg.check as T);
        else if (msg.type === 'cancelled') resolve(undefined as T);
        else reject(errorOf(msg.error, label, memoryLimit));
      });
      child.once('exit', (code, sig) => {
        clearInterval(watchdog);
        clearTimeout(deadline);
        children.delete(child);
        signal?.removeEventListener('abort', abort);
        if (answered) return;
        if (late) return reject(ocrLate(deadlineMs!));
        if (overMemory || sig === 'SIGKILL' || outOfMemory(stderr)) reject(memoryError(label, memoryLimit, `exit ${code ?? sig}; ${stderr.slice(-500)}`));
        else
          reject(
            new QuireError(ERROR_CODES.INTERNAL, 'The conversion stopped unexpectedly.', `job process exited with ${code ?? sig}: ${stderr.slice(-1000)}`),
          );
      });
      child.once('error', (e) => {
        if (!answered) reject(new QuireError(ERROR_CODES.INTERNAL, 'The conversion could not start.', String(e)));
      });
      // The job stops at its next frame boundary, as convert does with a signal of its own.
      const abort = (): void => {
        if (child.connected) child.send({ type: 'abort', reason: String(signal?.reason ?? 'abort') });
      };
      child.send(request);
      if (signal?.aborted) abort();
      else signal?.addEventListener('abort', abort, { once: true });
    });
  }

  // Warm from the start, as the job server's spec has it: the first job does not wait for a process either.
  prime();
  return {
    convert(input, opts) {
      const { signal, onProgress, ...plain } = opts;
      return run<ConvertResult>({ type: 'run', input, options: plain }, opts.label ?? String(input), onProgress, signal);
    },
    checkOcr: (projectDir) => run<OcrCheck>({ type: 'check-ocr', projectDir }, 'the OCR batch', undefined, undefined, ocrDeadlineMs),
    cancelOcr: (projectDir) => run<void>({ type: 'cancel-ocr', projectDir }, 'the OCR batch', undefined, undefined, ocrDeadlineMs),
    async close() {
      closed = true;
      spare?.kill('SIGKILL');
      spare = null;
      for (const child of children) child.kill('SIGKILL');
      children.clear();
    },
  };
}

/**
 * The conversion verbs run in this process, with no memory ceiling of their own: for an embedder that isolates jobs
 * its own way, and for tests of the server on its TypeScript sources (where no built `job-child.js` exists).
 */
export function inProcessEngine(options: Pick<EngineOptions, 'ocrDeadlineMs'> = {}): Engine {
  const ocrDeadlineMs = options.ocrDeadlineMs ?? OCR_DEADLINE_MS;
  return {
    convert: async (input, opts) => (await import('../convert/index.js')).convert(input, opts),
    checkOcr: async (projectDir) => byDeadline((await import('../convert/index.js')).checkProjectOcr(projectDir), ocrDeadlineMs),
    cancelOcr: async (projectDir) => byDeadline((await import('../convert/index.js')).cancelProjectOcr(projectDir), ocrDeadlineMs),
    close: async () => {},
  };
}

/**
 * Memory Node 22 and later map at start-up beyond the job's own (V8's reservations), which `ulimit -d` counts though
 * it is never resident: under a 300 MiB limit Node 24 cannot start at all, under 1.5 GiB a 24-page job ran out. The
 * data limit is raised by this much; the resident-size watchdog and the heap limit still hold the job to its ceiling.
 */
const V8_RESERVED = Number(process.versions.node.split('.')[0]) >= 22 ? 1024 ** 3 : 0;

/** Fork the child with its ceiling: through `sh` for `ulimit -d` where there is one (it only ever lowers a limit). */
function spawnJob(script: string, memoryLimit: number): ChildProcess {
  const heapMb = Math.max(64, Math.floor((memoryLimit * 0.75) / 1024 ** 2));
  const node = [process.execPath, `--max-old-space-size=${heapMb}`, script];
  const stdio: ['ignore', 'ignore', 'pipe', 'ipc'] = ['ignore', 'ignore', 'pipe', 'ipc'];
  if (process.platform === 'win32') return spawn(node[0], node.slice(1), { stdio });
  const kb = Math.floor((memoryLimit + V8_RESERVED) / 1024);
  // A lower CPU priority than the HTTP process (nice 10 more): a conversion takes what the API leaves, so requests
  // stay fast while jobs run on every core.
  return spawn(
    '/bin/sh',
    ['-c', `ulimit -d ${kb} 2>/dev/null; command -v nice >/dev/null && exec nice -n ${JOB_NICENESS} "$@"; exec "$@"`, 'quire-job', ...node],
    { stdio },
  );
}

/** A process's resident size from /proc (Linux), or null where there is none. */
export function residentBytes(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * What V8, libvips and the C library say when an allocation fails, and Node when a thread cannot start for want of
 * memory (under `ulimit -d` a thread's stack is refused like any other allocation).
 */
function outOfMemory(text: string): boolean {
  return /out of memory|allocation failed|heap limit|ENOMEM|Cannot allocate memory|std::bad_alloc|ERR_WORKER_OUT_OF_MEMORY|ERR_WORKER_INIT_FAILED|reaching memory limit|pthread_create|Resource temporarily unavailable/i.test(
    text,
  );
}

/** The sentence of a job that needed more memory than its ceiling, whoever noticed it (the watchdog, V8, a decoder). */
export function memoryError(label: string, limit: number, detail: string): QuireError {
  return new QuireError(
    ERROR_CODES.RESOURCE_LIMIT,
    `${label} needed more memory than the job limit of ${formatBytes(limit)}, so Quire stopped converting it.`,
    detail,
  );
}

/** The error a job's process reported, as a `QuireError` when it was one; an allocation failure says so plainly. */
function errorOf(error: Extract<ChildReply, { type: 'error' }>['error'], label: string, limit: number): Error {
  // A decoder that could not allocate says its image is unreadable: the memory is the cause, and it is named so.
  if (error.code !== ERROR_CODES.CANCELLED && outOfMemory(`${error.message} ${error.detail ?? ''} ${error.errno ?? ''}`))
    return memoryError(label, limit, error.detail ?? error.message);
  if (error.code && error.code !== ERROR_CODES.INTERNAL) return new QuireError(error.code, error.message, error.detail);
  if (error.code) return new QuireError(error.code, error.message, error.detail);
  const e = new Error(error.message) as NodeJS.ErrnoException;
  if (error.errno) e.code = error.errno;
  if (error.detail) e.stack = error.detail;
  return e;
}
