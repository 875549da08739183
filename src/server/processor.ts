import { describeError } from '../errors.js';
import { systemClock } from './clock.js';
import { createJobRunner, newWorkerId } from './job-runner.js';
import type { JobEnds } from './job-end.js';
import { scrubbingLog } from './logging.js';
import { createOcrPoller, engineBatch } from './ocr-poller.js';
import type { Processor, ProcessorOptions } from './processor-types.js';
import { createRetention } from './retention.js';
import { DEFAULT_LEASE_MS, type StoreEvent } from './store.js';

export type { OcrBatch, Processor, ProcessorLog, ProcessorOptions, TickResult } from './processor-types.js';

const DEFAULTS = { leaseMs: DEFAULT_LEASE_MS, heartbeatMs: 5_000, maxAttempts: 3, retryMs: 60_000, pollConcurrency: 2, clientPollEveryMs: 10_000 };

/**
 * One worker of the job queue: the job runner (`job-runner.ts`), the OCR batch poller (`ocr-poller.ts`) and
 * retention (`retention.ts`) on one clock, and the background loop that drives them.
 */
export function createProcessor(options: ProcessorOptions): Processor {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  // A job's errors name its files by path, and the path holds the job id: the log gets the job's tag instead.
  const log = scrubbingLog(options.log);
  const workerId = options.workerId ?? newWorkerId();
  const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
  const heartbeatMs = options.heartbeatMs ?? Math.min(DEFAULTS.heartbeatMs, Math.floor(leaseMs / 3));
  const housekeeping = options.housekeeping ?? true;
  const retention = createRetention({ store, dataDir: options.dataDir, ...(options.retention ? { retention: options.retention } : {}), log, clock });
  const ends: JobEnds = { store, dataDir: options.dataDir, log, workerId, clock, retention, onDone: options.onDone };
  const batch = options.ocrBatch ?? engineBatch(ends, options.engine, { leaseMs, heartbeatMs });
  const poller = createOcrPoller({
    batch,
    ends,
    concurrency: options.pollConcurrency ?? DEFAULTS.pollConcurrency,
    clientPollEveryMs: options.clientPollEveryMs ?? DEFAULTS.clientPollEveryMs,
  });
  const runner = createJobRunner({
    ends,
    engine: options.engine,
    batch,
    leaseMs,
    heartbeatMs,
    maxAttempts: options.maxAttempts ?? DEFAULTS.maxAttempts,
    retryMs: options.retryMs ?? DEFAULTS.retryMs,
    minFreeDisk: options.minFreeDisk ?? 0,
    workers: options.workers,
    jobTimeMs: options.jobTimeMs,
  });
  let stopping = false;
  let unsubscribe: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let housekeeper: NodeJS.Timeout | null = null;

  /** Parked jobs are polled beside the queue, never on its path: a service that does not answer holds up only its own polls. Retention runs on the same ticker. */
  function startHousekeeping(intervalMs: number): void {
    let busy = false;
    housekeeper = setInterval(() => {
      if (busy || stopping) return;
      busy = true;
      const sweeping = retention.due() ? retention.sweep().catch((e: unknown) => log.error({ err: describeError(e) }, 'retention sweep failed')) : null;
      Promise.all([poller.pollDue(), sweeping])
        .catch((e: unknown) => log.error({ err: describeError(e) }, 'OCR batch polling failed'))
        .finally(() => (busy = false));
    }, intervalMs);
    housekeeper.unref();
  }

  /** Run jobs one after another; between them, wait for `intervalMs` or a kick. */
  async function runLoop(intervalMs: number): Promise<void> {
    while (!stopping) {
      const result = await runner.runNext().catch((e: unknown) => {
        log.error({ err: describeError(e) }, 'worker tick failed');
        return null;
      });
      if (result || stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  }

  const processor: Processor = {
    workerId,
    async tick() {
      const [, result] = await Promise.all([poller.pollDue(), runner.runNext()]);
      return result;
    },
    runNext: () => runner.runNext(),
    start(intervalMs) {
      if (loop) return;
      // A job queued elsewhere wakes this worker at once; one cancelled or deleted elsewhere stops at its next frame.
      unsubscribe = store.subscribe((event: StoreEvent) => {
        if (event.type === 'queued') processor.kick();
        else if (event.jobId) processor.abort(event.jobId);
      });
      if (housekeeping) startHousekeeping(intervalMs);
      loop = runLoop(intervalMs);
    },
    kick() {
      wake?.();
    },
    abort: (jobId) => runner.abort(jobId, 'cancel'),
    poll: (job) => poller.poll(job),
    requestPoll: (job) => (stopping ? undefined : poller.requestPoll(job)),
    sweep: (now) => retention.sweep(now),
    pollsSettled: () => poller.settled(),
    pollDue: () => poller.pollDue(),
    cancelBatch: (job) => poller.cancel(job),
    async stop(graceMs) {
      stopping = true;
      runner.halt();
      unsubscribe?.();
      wake?.();
      if (housekeeper) clearInterval(housekeeper);
      // A poll finishing a batch is let end (it is writing the outputs), within the grace period.
      await poller.stop(graceMs);
      if (await runner.stop(graceMs)) await loop;
    },
    async finished(graceMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all([loop, runner.idle()]), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    },
  };
  return processor;
}
