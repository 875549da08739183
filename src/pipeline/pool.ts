import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { QuireError, type ErrorCode } from '../errors.js';
import type { ExtraStepOutcome, ExtraStepPage, ExtraStepFacts, ExtraStepRunner } from './extra-steps.js';
import { processFrame, type FrameResult, type FrameTask } from './process.js';

/** Runs frames through the pipeline on worker threads, a bounded number at a time. */
export interface FramePool {
  readonly size: number;
  run(task: FrameTask): Promise<FrameResult>;
  close(): Promise<void>;
}

export function defaultWorkerCount(): number {
  return Math.max(1, availableParallelism());
}

interface Pending {
  resolve: (r: FrameResult) => void;
  reject: (e: Error) => void;
}

/**
 * The threads' script, the build's `dist/pipeline/worker.js`, found from this file's place in the package: `src/pipeline/`
 * and `dist/pipeline/` both lie two folders under the package root. So code run from the TypeScript sources (the
 * tests) runs its frames on the built pipeline too, like the CLI the tests spawn: build first (`npm test` does).
 */
const WORKER_FILE = fileURLToPath(new URL('../../dist/pipeline/worker.js', import.meta.url));

/** `size` threads; 0 runs frames in this thread, one after the other. */
export function createFramePool(size = defaultWorkerCount(), runExtra?: ExtraStepRunner): FramePool {
  if (size <= 0) return inProcessPool(runExtra);

  const idle: Worker[] = [];
  /** Frames waiting for a free thread (there is one lane more than threads: see `runFrames`). */
  const waiting: Array<{ resolve: (w: Worker) => void; reject: (e: Error) => void }> = [];
  const pending = new Map<number, Pending>();
  const owner = new Map<Worker, number>();
  let nextId = 1;
  let closed = false;

  const release = (worker: Worker): void => {
    owner.delete(worker);
    const next = waiting.shift();
    if (next) next.resolve(worker);
    else idle.push(worker);
  };
  const spawn = (): Worker => {
    const worker = new Worker(WORKER_FILE);
    worker.on(
      'message',
      (msg: {
        id: number;
        result?: FrameResult;
        error?: { code: ErrorCode; message: string; detail?: string };
        step?: { call: number; name: string; page: ExtraStepPage; facts: ExtraStepFacts };
      }) => {
        if (msg.step) {
          void serveStep(worker, msg.step);
          return;
        }
        const job = pending.get(msg.id);
        pending.delete(msg.id);
        release(worker);
        if (!job) return;
        if (msg.error) job.reject(new QuireError(msg.error.code, msg.error.message, msg.error.detail));
        else job.resolve(msg.result as FrameResult);
      },
    );
    worker.on('error', (e) => {
      const id = owner.get(worker);
      const job = id === undefined ? undefined : pending.get(id);
      if (id !== undefined) pending.delete(id);
      job?.reject(new QuireError('internal', 'A pipeline worker failed unexpectedly.', String(e)));
      // Replace the dead thread so the pool keeps its size.
      const i = workers.indexOf(worker);
      if (i >= 0 && !closed) {
        workers[i] = spawn();
        release(workers[i]);
      }
    });
    return worker;
  };
  /** An added step a worker asks for: run here, the pixels handed back and forth without a copy. */
  const serveStep = async (worker: Worker, step: { call: number; name: string; page: ExtraStepPage; facts: ExtraStepFacts }): Promise<void> => {
    const original = step.page.pixels;
    const outcome: ExtraStepOutcome = runExtra ? await runExtra(step.name, step.page, step.facts) : { ok: false, message: 'no step runner' };
    const reply: ExtraStepOutcome = outcome.ok ? outcome : { ...outcome, original };
    const pixels = reply.ok ? reply.image.pixels : reply.original;
    const own = pixels !== undefined && pixels.byteOffset === 0 && pixels.byteLength === pixels.buffer.byteLength;
    worker.postMessage({ stepReply: { call: step.call, outcome: reply } }, own ? [pixels.buffer as ArrayBuffer] : []);
  };
  const workers = Array.from({ length: size }, spawn);
  idle.push(...workers);

  const acquire = (): Promise<Worker> => {
    const w = idle.pop();
    return w ? Promise.resolve(w) : new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };

  return {
    size,
    async run(task) {
      if (closed) throw new QuireError('cancelled', 'The conversion was stopped.');
      const worker = await acquire();
      // Closed while the thread was handed over: no answer would come from it.
      if (closed) throw new QuireError('cancelled', 'The conversion was stopped.');
      const id = nextId++;
      owner.set(worker, id);
      return new Promise<FrameResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        const data = task.frame.data;
        // Hand the bytes over without a copy when the buffer is ours alone.
        const own = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
        worker.postMessage({ id, task }, own ? [data.buffer as ArrayBuffer] : []);
      });
    },
    async close() {
      closed = true;
      // The frames in the threads, and those waiting for a thread (which no thread will free now), are stopped.
      for (const job of pending.values()) job.reject(new QuireError('cancelled', 'The conversion was stopped.'));
      pending.clear();
      for (const waiter of waiting.splice(0)) waiter.reject(new QuireError('cancelled', 'The conversion was stopped.'));
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

/** Frames one after the other in this thread, as a pool of one: a frame handed in while another runs waits its turn. */
function inProcessPool(runExtra?: ExtraStepRunner): FramePool {
  let last: Promise<unknown> = Promise.resolve();
  return {
    size: 1,
    run(task) {
      const result = last.then(() => processFrame(task, runExtra));
      last = result.catch(() => {});
      return result;
    },
    close: async () => {},
  };
}
