import type { ConvertEngine, ConvertResult, OcrCheck } from '../convert/index.js';
import { describeError, isQuireError } from '../errors.js';
import { endJob, letGo, type JobEnds } from './job-end.js';
import { projectDir } from './layout.js';
import { holdLease } from './lease.js';
import type { OcrBatch, TickResult } from './processor-types.js';
import { jobTag } from './secrets.js';
import type { Job, JobOutcome } from './store.js';

/** The error of a job whose batch was still not done after the last interval of the schedule. */
export const OCR_BATCH_TIMED_OUT = 'OCR batch timed out';

/** The ticker polls a parked job this many minutes apart, measured from submission; then it gives up. */
export const OCR_BACKOFF_MINUTES: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/**
 * The next scheduled poll of a batch submitted at `submittedAt`, after `now`: submission + 1, + 3, + 7 … + 1023
 * minutes (each interval twice the one before). Null once the last interval has run out. Computed from submission
 * alone, so a poll asked for by a client, or a restart, never shifts the schedule.
 */
export function nextOcrPoll(submittedAt: number, now: number): number | null {
  let at = submittedAt;
  for (const minutes of OCR_BACKOFF_MINUTES) {
    at += minutes * 60_000;
    if (at > now) return at;
  }
  return null;
}

/** The outcome of a conversion that finished: what `finishJob` records. */
export function doneOutcome(result: ConvertResult): Extract<JobOutcome, { status: 'done' }> {
  const outputBytes = result.outputs.reduce((sum, o) => sum + (o.bytes ?? 0), 0);
  const hasMd = result.outputs.some((o) => o.format === 'md');
  return { status: 'done', docName: result.name, hasMd, pages: result.pages, outputBytes, ...(result.outOfFocus ? { outOfFocus: result.outOfFocus } : {}) };
}

/**
 * The parked jobs' batches, asked through the engine (each call a process of its own). One poll of a parked job runs
 * under a lease, so that no other worker polls it at the same time. Done: finalised exactly as a job converted in
 * one go. Failed for good: `failed` with the batch's sentence. Still running: a scheduled poll sets the next one, or
 * past the last interval cancels the batch and fails the job with {@link OCR_BATCH_TIMED_OUT}. A poll that could not
 * reach the service changes nothing but the schedule: the batch may well be fine.
 */
export function engineBatch(ends: JobEnds, engine: ConvertEngine, lease: { leaseMs: number; heartbeatMs: number }): OcrBatch {
  const { store, dataDir, log, workerId, clock } = ends;

  async function cancel(job: Job): Promise<void> {
    try {
      await engine.cancelOcr(projectDir(dataDir, job.jobId));
      log.info({ job: jobTag(job.jobId), batchIds: job.ocrBatchIds }, 'OCR batch cancelled');
    } catch (e) {
      log.warn(
        { job: jobTag(job.jobId), batchIds: job.ocrBatchIds, err: isQuireError(e) ? `${e.message} ${e.detail ?? ''}` : describeError(e) },
        'OCR batch could not be cancelled',
      );
    }
  }

  const end = async (job: Job, outcome: JobOutcome, msg: string): Promise<TickResult> =>
    (await endJob(ends, job, outcome, {
      level: outcome.status === 'done' ? 'info' : 'warn',
      fields: outcome.status === 'done' ? { pages: outcome.pages } : {},
      msg,
    })) ?? letGo(ends, job);

  async function stillPending(job: Job, scheduled: boolean): Promise<TickResult> {
    const next = scheduled ? nextOcrPoll(job.ocrSubmittedAt ?? clock(), clock()) : undefined;
    if (next === null) {
      log.warn({ job: jobTag(job.jobId), batchIds: job.ocrBatchIds }, 'OCR batch still not done after the last poll; given up');
      await cancel(job);
      return end(job, { status: 'failed', error: OCR_BATCH_TIMED_OUT }, 'job failed (OCR batch timed out)');
    }
    await store.releaseOcrJob(job.jobId, workerId, next ?? null, clock());
    return { jobId: job.jobId, status: 'ocr_pending' };
  }

  async function poll(parked: Job, scheduled: boolean): Promise<TickResult> {
    const { jobId } = parked;
    const job = await store.leaseOcrJob(jobId, workerId, clock(), lease.leaseMs);
    if (!job) return { jobId, status: (await store.getJob(jobId))?.status ?? 'cancelled' };
    const held = holdLease({ store, jobId, workerId, ...lease, clock, log, leaseUntil: job.leaseUntil ?? clock() + lease.leaseMs, onLost: () => undefined });
    try {
      let check: OcrCheck;
      try {
        check = await engine.checkOcr(projectDir(dataDir, jobId));
      } catch (e) {
        log.warn({ job: jobTag(jobId), err: isQuireError(e) ? `${e.message} ${e.detail ?? ''}` : describeError(e) }, 'OCR batch could not be polled');
        return await stillPending(job, scheduled);
      }
      if (check.state === 'pending') return await stillPending(job, scheduled);
      if (check.state === 'failed') {
        log.warn({ job: jobTag(jobId), err: check.detail ?? check.message }, 'OCR batch failed');
        return await end(job, { status: 'failed', error: check.message }, 'job failed (OCR batch failed)');
      }
      return await end(job, doneOutcome(check.result), 'job done (OCR batch finished)');
    } catch (e) {
      // The job went from under the poll (deleted), or its store failed: nothing is left half-done.
      log.warn({ job: jobTag(jobId), err: describeError(e) }, 'OCR batch could not be finished');
      return { jobId, status: (await store.getJob(jobId))?.status ?? 'cancelled' };
    } finally {
      held.release();
    }
  }

  return { poll, cancel };
}

export interface OcrPoller {
  /** Poll the due parked jobs, `concurrency` at a time: a service that hangs holds up only its own polls. */
  pollDue(): Promise<TickResult[]>;
  /** Poll one job now and wait for the answer (a client's poll: the schedule is left as it is). */
  poll(job: Job): Promise<void>;
  /** A client looked at a parked job: poll it in the background, unless one runs or ran within `clientPollEveryMs`. */
  requestPoll(job: Job): void;
  cancel(job: Job): Promise<void>;
  /** Resolves once no poll is running. */
  settled(): Promise<void>;
  /** Let the polls in flight end (they may be writing outputs), within `graceMs`; start no more. */
  stop(graceMs: number): Promise<void>;
}

/** Which parked jobs are polled when: on their schedule, and when a client asks; one poll of a job at a time. */
export function createOcrPoller(options: { batch: OcrBatch; ends: JobEnds; concurrency: number; clientPollEveryMs: number }): OcrPoller {
  const { batch, ends, concurrency, clientPollEveryMs } = options;
  const { store, clock, log } = ends;
  /** Polls in flight, by job: a second poll of the same job waits for the first instead of racing it. */
  const polls = new Map<string, Promise<TickResult | void>>();
  /** Which of the polls in flight are scheduled ones. */
  const scheduledPolls = new Set<string>();
  /** When a client last had a job polled, so that a client polling `/check` in a loop does not hammer the service. */
  const clientPolls = new Map<string, number>();
  let stopping = false;

  function pollJob(job: Job, scheduled: boolean): Promise<TickResult | void> {
    const inFlight = polls.get(job.jobId);
    // A scheduled poll that finds a client's in flight waits for it, then makes its own (which moves the schedule on).
    if (inFlight && scheduled && !scheduledPolls.has(job.jobId)) return inFlight.then(() => pollJob(job, scheduled));
    if (inFlight) return inFlight;
    if (scheduled) scheduledPolls.add(job.jobId);
    const poll = batch.poll(job, scheduled).finally(() => {
      polls.delete(job.jobId);
      scheduledPolls.delete(job.jobId);
    });
    polls.set(job.jobId, poll);
    return poll;
  }

  return {
    async pollDue() {
      const due = await store.listDueOcrJobs(clock());
      const results: TickResult[] = [];
      const next = async (): Promise<void> => {
        for (let job = due.shift(); job && !stopping; job = due.shift()) {
          const result = await pollJob(job, true);
          if (result) results.push(result);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, next));
      return results;
    },
    async poll(job) {
      await pollJob(job, false);
    },
    requestPoll(job) {
      if (stopping || polls.has(job.jobId)) return;
      const now = clock();
      // Forget polls long past, so the map stays the size of the jobs polled lately.
      for (const [id, at] of clientPolls) if (now - at >= clientPollEveryMs) clientPolls.delete(id);
      if (clientPolls.has(job.jobId)) return;
      clientPolls.set(job.jobId, now);
      pollJob(job, false).catch((e: unknown) => log.warn({ job: jobTag(job.jobId), err: describeError(e) }, 'OCR batch poll failed'));
    },
    cancel: (job) => batch.cancel(job),
    async settled() {
      while (polls.size > 0) await Promise.allSettled([...polls.values()]);
    },
    async stop(graceMs) {
      stopping = true;
      if (polls.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...polls.values()]), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    },
  };
}
