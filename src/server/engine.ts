import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ConvertEngine, ConvertOptions, ConvertResult, OcrCheck, ProgressEvent } from '../convert/index.js';
import { ERROR_CODES, QuireError, type ErrorCode } from '../errors.js';

/** What crosses to the conversion thread: convert's options without the signal and callback (sent as messages). */
type PlainOptions = Omit<ConvertOptions, 'signal' | 'onProgress'>;

export type EngineRequest =
  | { type: 'run'; id: number; input: string | string[]; options: PlainOptions }
  | { type: 'abort'; id: number; reason: unknown }
  /** Poll a parked job's OCR batch, finishing its exports when it is done. */
  | { type: 'check-ocr'; id: number; projectDir: string }
  | { type: 'cancel-ocr'; id: number; projectDir: string };

export type EngineReply =
  | { type: 'progress'; id: number; event: ProgressEvent }
  | { type: 'done'; id: number; result: ConvertResult }
  | { type: 'checked'; id: number; check: OcrCheck }
  | { type: 'cancelled'; id: number }
  | { type: 'error'; id: number; error: { code: ErrorCode | null; message: string; detail?: string } };

/** The conversion verbs on their thread: finishing a batch writes the PDF, which is the engine's work too. */
export interface Engine extends ConvertEngine {
  /** Stop the thread (after the job in it ended or was given up on). */
  close(): Promise<void>;
}

interface Call {
  resolve: (r: unknown) => void;
  reject: (e: unknown) => void;
  onProgress?: (e: ProgressEvent) => void;
}

/**
 * `convert` on a long-lived worker thread, so the HTTP thread stays responsive while a job runs. Under the test
 * runner the compiled thread file does not exist (sources are TypeScript), and convert runs in this thread.
 */
export function createEngine(): Engine {
  const threadUrl = new URL('./convert-thread.js', import.meta.url);
  // Loaded here only then: the HTTP thread of a built server never loads the engine's modules at all.
  if (import.meta.url.endsWith('.ts')) {
    return {
      convert: async (input, options) => (await import('../convert/index.js')).convert(input, options),
      checkOcr: async (projectDir) => (await import('../convert/index.js')).checkProjectOcr(projectDir),
      cancelOcr: async (projectDir) => (await import('../convert/index.js')).cancelProjectOcr(projectDir),
      close: async () => {},
    };
  }

  let thread: Worker | null = null;
  let nextId = 1;
  const calls = new Map<number, Call>();

  const start = (): Worker => {
    const worker = new Worker(fileURLToPath(threadUrl));
    worker.on('message', (msg: EngineReply) => {
      const call = calls.get(msg.id);
      if (!call) return;
      if (msg.type === 'progress') return call.onProgress?.(msg.event);
      calls.delete(msg.id);
      if (msg.type === 'done') call.resolve(msg.result);
      else if (msg.type === 'checked') call.resolve(msg.check);
      else if (msg.type === 'cancelled') call.resolve(undefined);
      else call.reject(msg.error.code ? new QuireError(msg.error.code, msg.error.message, msg.error.detail) : new Error(msg.error.message));
    });
    // A thread that dies takes its job with it; the next job gets a new thread.
    const fail = (why: string): void => {
      if (thread === worker) thread = null;
      for (const [id, call] of calls) {
        calls.delete(id);
        call.reject(new QuireError(ERROR_CODES.INTERNAL, 'The conversion stopped unexpectedly.', why));
      }
    };
    worker.on('error', (e) => fail(String(e)));
    worker.on('exit', (code) => fail(`conversion thread exited with ${code}`));
    worker.unref();
    return worker;
  };

  /** One request to the thread, answered by one reply. */
  const ask = <T>(request: (id: number) => EngineRequest): Promise<T> => {
    thread ??= start();
    const worker = thread;
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      calls.set(id, { resolve: resolve as (r: unknown) => void, reject });
      worker.postMessage(request(id));
    });
  };

  return {
    checkOcr: (projectDir) => ask<OcrCheck>((id) => ({ type: 'check-ocr', id, projectDir })),
    cancelOcr: (projectDir) => ask<void>((id) => ({ type: 'cancel-ocr', id, projectDir })),
    convert(input, options) {
      thread ??= start();
      const worker = thread;
      const id = nextId++;
      const { signal, onProgress, ...plain } = options;
      return new Promise<ConvertResult>((resolve, reject) => {
        calls.set(id, { resolve: resolve as (r: unknown) => void, reject, ...(onProgress ? { onProgress } : {}) });
        worker.postMessage({ type: 'run', id, input, options: plain } satisfies EngineRequest);
        // The thread stops at its next frame boundary, as convert does with a signal of its own.
        const abort = (): void => worker.postMessage({ type: 'abort', id, reason: String(signal?.reason ?? 'abort') } satisfies EngineRequest);
        if (signal?.aborted) abort();
        else signal?.addEventListener('abort', abort, { once: true });
      });
    },
    async close() {
      const worker = thread;
      thread = null;
      if (worker) await worker.terminate();
    },
  };
}
