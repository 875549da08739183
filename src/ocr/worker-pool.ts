/**
 * A warm pool of OCR workers: at most `size`, created lazily, kept between pages and between
 * documents, each loaded with one language set. A page waits in a queue until a worker is free;
 * a free worker loaded with another language set is re-initialised rather than a new one created
 * past the limit (loading a language is cheaper than holding another worker's memory).
 */
import { ERROR_CODES, QuireError } from '../errors.js';

/** What the pool needs of a worker. */
export interface PoolWorker {
  /** Load another language set into this worker. */
  reinitialize(languages: readonly string[]): Promise<void>;
  terminate(): Promise<void>;
}

export interface WorkerPoolOptions<W extends PoolWorker> {
  size: number;
  /** Start a worker with these languages loaded. */
  create(languages: readonly string[]): Promise<W>;
}

export interface WorkerPoolStats {
  /** Workers started since the pool was made. */
  created: number;
  /** Times a warm worker was switched to another language set. */
  reinitialised: number;
  /** Workers alive now (starting, idle or busy). */
  alive: number;
}

export interface WorkerPool<W extends PoolWorker> {
  /** Run `task` on a worker loaded with `languages`, when one is free. */
  run<T>(languages: readonly string[], task: (worker: W) => Promise<T>, signal?: AbortSignal): Promise<T>;
  stats(): WorkerPoolStats;
  /** Refuse queued and running tasks, terminate every worker; the pool starts afresh if used again. */
  close(): Promise<void>;
}

interface Slot<W> {
  worker?: W;
  key: string;
  busy: boolean;
  /** Bumped on each use: the least recently used idle worker is the one re-initialised. */
  lastUsed: number;
}

interface Job<W> {
  key: string;
  languages: readonly string[];
  start(slot: Slot<W>, prepare: () => Promise<W>): void;
  fail(error: unknown): void;
}

/** The set's identity: `fra+lat` and `lat+fra` load different primary languages, so order counts. */
const keyOf = (languages: readonly string[]): string => languages.join('+');

function cancelled(): QuireError {
  return new QuireError(ERROR_CODES.CANCELLED, 'OCR was cancelled.');
}

export function createWorkerPool<W extends PoolWorker>(options: WorkerPoolOptions<W>): WorkerPool<W> {
  const size = Math.max(1, Math.floor(options.size));
  let slots: Array<Slot<W>> = [];
  let queue: Array<Job<W>> = [];
  /** Jobs on a worker now: close() must settle them too, a terminated tesseract worker never answers. */
  const active = new Set<Job<W>>();
  let created = 0;
  let reinitialised = 0;
  let clock = 0;

  const dropSlot = (slot: Slot<W>): void => {
    slots = slots.filter((s) => s !== slot);
  };

  /** A worker for `job` on `slot`: the slot's own, re-initialised, or a new one. */
  const prepareFor = (slot: Slot<W>, job: Job<W>) => async (): Promise<W> => {
    if (!slot.worker) {
      created += 1;
      const worker = await options.create(job.languages);
      if (!slots.includes(slot)) {
        // The pool was closed or the page cancelled while this worker started: end it, do not keep it.
        void worker.terminate();
        throw cancelled();
      }
      slot.worker = worker;
    } else if (slot.key !== job.key) {
      reinitialised += 1;
      await slot.worker.reinitialize(job.languages);
    }
    slot.key = job.key;
    return slot.worker;
  };

  const assign = (job: Job<W>, slot: Slot<W>): void => {
    queue = queue.filter((j) => j !== job);
    active.add(job);
    slot.busy = true;
    slot.lastUsed = ++clock;
    job.start(slot, prepareFor(slot, job));
  };

  const pump = (): void => {
    // First: idle workers take the oldest job already matching their languages.
    for (const slot of slots) {
      if (slot.busy) continue;
      const job = queue.find((j) => j.key === slot.key);
      if (job) assign(job, slot);
    }
    // Then, oldest job first: start a worker while under the limit, else switch the least recently used idle one.
    while (queue.length > 0) {
      const job = queue[0];
      if (slots.length < size) {
        const slot: Slot<W> = { key: job.key, busy: false, lastUsed: 0 };
        slots.push(slot);
        assign(job, slot);
        continue;
      }
      const idle = slots.filter((s) => !s.busy).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!idle) break;
      assign(job, idle);
    }
  };

  return {
    run<T>(languages: readonly string[], task: (worker: W) => Promise<T>, signal?: AbortSignal): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (signal?.aborted) {
          reject(cancelled());
          return;
        }
        let settled = false;
        let running: Slot<W> | undefined;
        const settle = (fn: () => void): void => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          fn();
        };
        const onAbort = (): void => {
          if (running) {
            // Tesseract cannot stop mid-page: the worker is ended and replaced later if needed.
            const slot = running;
            dropSlot(slot);
            void slot.worker?.terminate();
          } else {
            queue = queue.filter((j) => j !== job);
          }
          settle(() => reject(cancelled()));
          pump();
        };
        const job: Job<W> = {
          key: keyOf(languages),
          languages: [...languages],
          start(slot, prepare) {
            running = slot;
            prepare()
              .then(task, (error: unknown) => {
                // A worker that failed to start or to switch languages is not trusted again.
                if (slots.includes(slot)) {
                  dropSlot(slot);
                  void slot.worker?.terminate();
                }
                throw error;
              })
              .then(
                (value) => settle(() => resolve(value)),
                (error: unknown) => settle(() => reject(error)),
              )
              .finally(() => {
                active.delete(job);
                slot.busy = false;
                pump();
              });
          },
          fail(error) {
            settle(() => reject(error));
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(job);
        pump();
      });
    },
    stats() {
      return { created, reinitialised, alive: slots.length };
    },
    async close() {
      const waiting = [...queue, ...active];
      queue = [];
      active.clear();
      for (const job of waiting) job.fail(cancelled());
      const ending = slots;
      slots = [];
      // A worker still starting is ended as soon as it exists (its job then fails or finishes alone).
      await Promise.all(ending.map((slot) => slot.worker?.terminate()));
    },
  };
}
