import { randomBytes } from 'node:crypto';
import { rm, rmdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { ConvertEngine, ConvertResult, OcrCheck, ProgressEvent } from '../convert/index.js';
import { describeError, ERROR_CODES, isQuireError } from '../errors.js';
import { DEFAULT_RETENTION, type Retention } from './config.js';
import { freeBytes, isDiskFull } from './disk.js';
import { inputPath, jobDir, OUTPUT_STEM, outputPath, projectDir } from './layout.js';
import { scrubbingLog } from './logging.js';
import { jobTag } from './secrets.js';
import { recordClaim, recordEnd } from './metrics.js';
import { DEFAULT_LEASE_MS, type Job, type JobOutcome, type JobStatus, type JobStore, type Progress, type ProgressStep, type StoreEvent } from './store.js';

/**
 * A job parked in `ocr_pending` (its OCR went to a remote batch): `/check` and `/get` poll it at once, and its batch
 * is cancelled before the job is cancelled or deleted. The processor has its own (see `createProcessor`); a test may
 * stand in for it.
 */
export interface OcrBatch {
  poll(job: Job): Promise<void>;
  cancel(job: Job): Promise<void>;
}

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

export interface ProcessorLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface ProcessorOptions {
  store: JobStore;
  dataDir: string;
  /** Converts a job, and polls or cancels the OCR batch of a parked one. */
  engine: ConvertEngine;
  log: ProcessorLog;
  /** Identifies this worker in the jobs table: `host:pid:nonce`. */
  workerId?: string;
  /**
   * How long this worker holds a job without renewing its lease (default a minute); another worker takes the job
   * back once it has run out. Renewed every `heartbeatMs` (default a third of it, at most 5 s).
   */
  leaseMs?: number;
  heartbeatMs?: number;
  /** Attempts of one job (a crash, a lost lease or an unexpected fault ends one) before it fails; default 3. */
  maxAttempts?: number;
  /**
   * Poll parked OCR batches and apply retention on the background ticker (default true); of several processors in
   * one process, one does it.
   */
  housekeeping?: boolean;
  /** Pipeline threads per job; default the number of cores. */
  workers?: number;
  /** A job still converting after this long is stopped at its next frame and failed; default none. */
  jobTimeMs?: number;
  /** Stands in for the processor's own batch poller (tests). */
  ocrBatch?: OcrBatch;
  /** The clock of the OCR batch schedule (default `Date.now`): tests run the whole schedule in milliseconds. */
  clock?: () => number;
  /** Called once a job is done (the completion email); errors are logged, never fatal. */
  onDone?: (job: Job) => Promise<void>;
  /** No job starts while the data folder's disk has less than this free (bytes); default 0. */
  minFreeDisk?: number;
  /** How long a job put back for a full disk waits before it runs again; default a minute. */
  retryMs?: number;
  /** How long a job's files are kept once it ended (see `sweep`). */
  retention?: Retention;
  /** Polls of parked OCR batches running at once, beside the queue; default 2. */
  pollConcurrency?: number;
  /** A poll a client asks for (`/check`) is not repeated for the same job within this; default 10 s. */
  clientPollEveryMs?: number;
}

export interface TickResult {
  jobId: string;
  status: JobStatus;
}

export interface Processor {
  readonly workerId: string;
  /**
   * One step of everything, for a test driving the worker by hand: poll the parked jobs that are due, beside taking
   * back orphaned jobs and running the next ready job to its end; the job's result, or null when none was ready.
   */
  tick(): Promise<TickResult | null>;
  /** Take back orphaned jobs, then claim the next ready job and run it to its end (what the background loop does). */
  runNext(): Promise<TickResult | null>;
  /**
   * Run ticks in the background: right after a job ends, else every `intervalMs`, or at once when the store tells of a
   * job queued by another process (PostgreSQL).
   */
  start(intervalMs: number): void;
  /** Tick soon (a job was just submitted). */
  kick(): void;
  /** Stop the job this worker runs, if it is `jobId` (cancelled or deleted): it ends at the next frame boundary. */
  abort(jobId: string): void;
  /** Ask the parked OCR batch of a job for its result now, and wait for the answer; the schedule is left as it is. */
  poll(job: Job): Promise<void>;
  /**
   * A client asked about a parked job (`/check`, `/get`): poll its batch in the background, unless a poll of it is
   * running or one ran within the last few seconds. Returns at once; the answer is read from the database.
   */
  requestPoll(job: Job): void;
  /** Apply the retention setting: remove uploads and outputs of jobs that ended long enough ago. */
  sweep(now?: number): Promise<number>;
  /** Resolves once no poll of a parked job is running (those `requestPoll` started included). */
  pollsSettled(): Promise<void>;
  /** Poll the parked jobs whose scheduled poll is due (part of every tick). */
  pollDue(): Promise<TickResult[]>;
  /** Cancel a parked job's batch on the service's side; a failure is logged, never thrown (the job goes anyway). */
  cancelBatch(job: Job): Promise<void>;
  /**
   * Shut down: take no new job, stop the running one at its next frame boundary and put it back to `pending`,
   * waiting at most `graceMs` for it.
   */
  stop(graceMs: number): Promise<void>;
}

type StopReason = 'cancel' | 'shutdown' | 'lost' | 'timeout';

interface Running {
  job: Job;
  controller: AbortController;
  reason?: StopReason;
  done: Promise<TickResult>;
}

const DEFAULTS = { leaseMs: DEFAULT_LEASE_MS, heartbeatMs: 5_000, maxAttempts: 3, retryMs: 60_000, pollConcurrency: 2, clientPollEveryMs: 10_000 };
/** The ticker applies retention this often. */
const SWEEP_EVERY_MS = 10 * 60_000;

/** What a job waiting for disk space says on `/check`. */
export const DISK_FULL_NOTICE = 'The server is short of disk space; Quire will start this job again once there is room.';

export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** The job queue's worker: one job at a time, claimed atomically, so several workers can share one store. */
export function createProcessor(options: ProcessorOptions): Processor {
  const { store, dataDir } = options;
  // A job's errors name its files by path, and the path holds the job id: the log gets the job's tag instead.
  const log = scrubbingLog(options.log);
  const workerId = options.workerId ?? newWorkerId();
  const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
  const heartbeatMs = options.heartbeatMs ?? Math.min(DEFAULTS.heartbeatMs, Math.floor(leaseMs / 3));
  const housekeeping = options.housekeeping ?? true;
  let unsubscribe: (() => void) | null = null;
  const maxAttempts = options.maxAttempts ?? DEFAULTS.maxAttempts;
  let running: Running | null = null;
  let ticking: Promise<TickResult | null> | null = null;
  let stopping = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let pollTimer: NodeJS.Timeout | null = null;
  const clock = options.clock ?? Date.now;
  const minFreeDisk = options.minFreeDisk ?? 0;
  const retryMs = options.retryMs ?? DEFAULTS.retryMs;
  const retention = options.retention ?? DEFAULT_RETENTION;
  const pollConcurrency = options.pollConcurrency ?? DEFAULTS.pollConcurrency;
  const clientPollEveryMs = options.clientPollEveryMs ?? DEFAULTS.clientPollEveryMs;
  /** Polls in flight, by job: a second poll of the same job waits for the first instead of racing it. */
  const polls = new Map<string, Promise<TickResult>>();
  /** Which of the polls in flight are scheduled ones. */
  const scheduledPolls = new Set<string>();
  /** When a client last had a job polled, so that a client polling `/check` in a loop does not hammer the service. */
  const clientPolls = new Map<string, number>();
  let diskShort = false;
  let lastSweep = 0;
  /** Metrics never stop a job: a counter that could not be written is lost, and said so in the log. */
  const metric = (recording: Promise<void>): Promise<void> => recording.catch((e: unknown) => log.warn({ err: describeError(e) }, 'metrics not recorded'));

  async function recoverOrphans(): Promise<void> {
    const now = Date.now();
    for (const job of await store.listProcessing()) {
      if (job.workerId === workerId || !isOrphan(job, now, leaseMs)) continue;
      const taken = await store.reclaimJob(job, now, maxAttempts, WORKER_STOPPED, interruptedMessage(job.attempts));
      if (!taken) continue;
      await rm(projectDir(dataDir, job.jobId), { recursive: true, force: true });
      if (taken === 'failed') await metric(recordEnd(store, job, 'failed', 0, now));
      log.warn(
        { job: jobTag(job.jobId), worker: job.workerId, attempts: job.attempts },
        taken === 'failed' ? 'job interrupted too often, failed' : 'job of a stopped worker put back to pending',
      );
    }
  }

  /** True when the data folder has room for a job to start; said once in the log each time that changes. */
  async function roomOnDisk(needed: number): Promise<boolean> {
    const free = await freeBytes(dataDir);
    const room = free === null || free >= minFreeDisk + needed;
    if (room !== !diskShort) {
      diskShort = !room;
      if (diskShort) log.warn({ free, needed: minFreeDisk + needed }, 'disk nearly full: jobs wait until there is room');
      else log.info({ free }, 'disk has room again: jobs start');
    }
    return room;
  }

  async function tickOnce(): Promise<TickResult | null> {
    await recoverOrphans();
    if (stopping) return null;
    // Not even the smallest job fits: take none, rather than claim one only to put it back.
    if (!(await roomOnDisk(0))) return null;
    const job = await store.claimNextJob(workerId, Date.now(), leaseMs);
    if (!job) return null;
    await metric(recordClaim(store, job));
    if (stopping) {
      await store.requeueJob(job.jobId, workerId, Date.now(), true);
      return null;
    }
    if (!(await roomOnDisk(job.inputBytes))) {
      await store.deferJob(job.jobId, workerId, Date.now() + retryMs, DISK_FULL_NOTICE, Date.now());
      return { jobId: job.jobId, status: 'pending' };
    }
    const run: Running = { job, controller: new AbortController(), done: Promise.resolve({ jobId: job.jobId, status: 'processing' }) };
    running = run;
    run.done = runJob(run);
    try {
      return await run.done;
    } finally {
      running = null;
    }
  }

  async function runJob(run: Running): Promise<TickResult> {
    const { job, controller } = run;
    const dir = jobDir(dataDir, job.jobId);
    const proj = projectDir(dataDir, job.jobId);
    const input = inputPath(dataDir, job);
    const stop = (reason: StopReason): void => {
      run.reason ??= reason;
      controller.abort(reason);
    };
    // The lease as this worker last renewed it: past it without a renewal, another worker may have the job.
    let leaseUntil = job.leaseUntil ?? Date.now() + leaseMs;
    // One write at a time, the latest progress only: on a networked store, writes in flight must not land out of order.
    let writing: Promise<void> | null = null;
    let next: { progress?: Progress } | null = null;
    const write = async (progress?: Progress): Promise<void> => {
      const at = Date.now();
      try {
        if (!(await store.heartbeat(job.jobId, workerId, at, progress, leaseMs))) return stop('lost');
        leaseUntil = Math.max(leaseUntil, at + leaseMs);
      } catch (e) {
        log.warn({ job: jobTag(job.jobId), err: describeError(e) }, progress ? 'progress update failed' : 'lease renewal failed');
        // The database did not answer for a whole lease: the job may be running elsewhere by now.
        if (Date.now() > leaseUntil) stop('lost');
      }
    };
    const renew = (progress?: Progress): void => {
      // A plain renewal queued behind a progress write adds nothing; progress replaces whatever is queued.
      if (!next || progress) next = { ...(progress ? { progress } : next) };
      if (writing) return;
      writing = (async () => {
        while (next) {
          const { progress: p } = next;
          next = null;
          await write(p);
        }
        writing = null;
      })();
    };
    // A crashed run may have left its project behind; every run starts from the upload alone.
    await rm(proj, { recursive: true, force: true });
    const timer = setInterval(() => renew(), heartbeatMs);
    timer.unref();
    // No job holds a worker for ever: past its time it stops at the next frame and fails, saying so.
    const overtime = options.jobTimeMs === undefined ? undefined : setTimeout(() => stop('timeout'), options.jobTimeMs);
    overtime?.unref();
    const progress = progressTracker((p) => renew(p));
    log.info({ job: jobTag(job.jobId), attempt: job.attempts }, 'job started');
    // Messages and the document name come from the name the file was uploaded under, never the server's path.
    const convertOnce = (workers: number | undefined) =>
      options.engine.convert(input, {
        label: job.uploadName,
        exports: wantsMarkdown(job.ocr) ? 'pdf+md' : 'pdf',
        outDir: dir,
        fileStem: OUTPUT_STEM,
        keepProject: proj,
        ...(job.dpi ? { dpi: { value: job.dpi, force: true } } : {}),
        ...(job.ocr ? { ocr: job.ocr } : {}),
        ...(workers ? { workers } : {}),
        signal: controller.signal,
        onProgress: progress,
      });
    try {
      let result: ConvertResult;
      try {
        result = await convertOnce(options.workers);
      } catch (e) {
        if (controller.signal.aborted || !isQuireError(e) || e.code !== ERROR_CODES.RESOURCE_LIMIT) throw e;
        // Out of memory: once more with one page at a time, which needs a fraction of it, before failing for good.
        log.warn({ job: jobTag(job.jobId), err: e.detail ?? e.message }, 'job needed more memory than its limit; converting it again one page at a time');
        await rm(proj, { recursive: true, force: true });
        result = await convertOnce(1);
      }
      // A shutdown that came after the last frame does not waste the finished work; a cancel or a lost job does.
      if (controller.signal.aborted && run.reason !== 'shutdown') return await settleStopped(run);
      if (result.ocrPending) return await park(run, result.ocrPending.batchIds);
      const hasMd = hasMarkdown(result);
      await rm(proj, { recursive: true, force: true });
      const docName = result.name;
      const outcome = { status: 'done' as const, docName, hasMd, pages: result.pages, outputBytes: outputBytes(result), ...(result.outOfFocus ? { outOfFocus: result.outOfFocus } : {}) };
      if (!(await store.finishJob(job.jobId, workerId, outcome, Date.now()))) return await settleStopped(run);
      await metric(recordEnd(store, job, 'done', result.pages));
      log.info({ job: jobTag(job.jobId), pages: result.pages }, 'job done');
      await ended(job.jobId);
      const done = { ...job, status: 'done' as const, docName, hasMd, pagesDone: result.pages, pagesTotal: result.pages };
      if (options.onDone) await options.onDone(done).catch((e: unknown) => log.warn({ job: jobTag(job.jobId), err: describeError(e) }, 'completion hook failed'));
      return { jobId: job.jobId, status: 'done' };
    } catch (e) {
      if (controller.signal.aborted) return await settleStopped(run);
      await removeWork(job.jobId);
      // A full disk is no fault of the job's: it waits and runs again, its attempt given back.
      if (isDiskFull(e) || !(await roomOnDisk(0))) {
        log.warn({ job: jobTag(job.jobId), err: isQuireError(e) ? e.detail ?? e.message : describeError(e) }, 'disk full while converting: job put back to pending');
        if (!(await store.deferJob(job.jobId, workerId, Date.now() + retryMs, DISK_FULL_NOTICE, Date.now()))) return await settleStopped(run);
        return { jobId: job.jobId, status: 'pending' };
      }
      const error = failureMessage(e);
      const err = isQuireError(e) ? e.detail ?? e.message : describeError(e);
      if (mayMend(e)) {
        // Not the input's fault (a job process that crashed, a fault of the machine's): another attempt may mend it.
        const now = Date.now();
        const next = await store.retryJob(job.jobId, workerId, now, now + retryMs, maxAttempts, error);
        if (next === null) return await settleStopped(run);
        log.warn({ job: jobTag(job.jobId), code: isQuireError(e) ? e.code : 'unexpected', err, attempt: job.attempts }, next === 'failed' ? 'job failed on its last attempt' : 'job attempt failed; tried again later');
        if (next === 'pending') return { jobId: job.jobId, status: 'pending' };
        await metric(recordEnd(store, job, 'failed', 0));
        await ended(job.jobId);
        return { jobId: job.jobId, status: 'failed' };
      }
      log.warn({ job: jobTag(job.jobId), code: isQuireError(e) ? e.code : 'unexpected', err }, 'job failed');
      if (!(await store.finishJob(job.jobId, workerId, { status: 'failed', error }, Date.now()))) return await settleStopped(run);
      await metric(recordEnd(store, job, 'failed', 0));
      await ended(job.jobId);
      return { jobId: job.jobId, status: 'failed' };
    } finally {
      clearInterval(timer);
      clearTimeout(overtime);
    }
  }

  /** The OCR went to a batch: the job waits in `ocr_pending` with its project, polled on the schedule from now. */
  async function park(run: Running, batchIds: string[]): Promise<TickResult> {
    const { job } = run;
    const submittedAt = clock();
    const nextPollAt = nextOcrPoll(submittedAt, submittedAt)!;
    if (!(await store.parkJob(job.jobId, workerId, { batchIds, submittedAt, nextPollAt }, Date.now()))) {
      // Cancelled or deleted while submitting: the batch is of no use to anyone.
      await cancelBatch(job);
      return settleStopped(run);
    }
    log.info({ job: jobTag(job.jobId), batchIds }, 'OCR batch submitted; job waits in ocr_pending');
    return { jobId: job.jobId, status: 'ocr_pending' };
  }

  async function cancelBatch(job: Job): Promise<void> {
    if (options.ocrBatch) return options.ocrBatch.cancel(job);
    try {
      await options.engine.cancelOcr(projectDir(dataDir, job.jobId));
      log.info({ job: jobTag(job.jobId), batchIds: job.ocrBatchIds }, 'OCR batch cancelled');
    } catch (e) {
      log.warn({ job: jobTag(job.jobId), batchIds: job.ocrBatchIds, err: isQuireError(e) ? `${e.message} ${e.detail ?? ''}` : describeError(e) }, 'OCR batch could not be cancelled');
    }
  }

  function pollJob(jobId: string, scheduled: boolean): Promise<TickResult> {
    const inFlight = polls.get(jobId);
    // A scheduled poll that finds a client's in flight waits for it, then makes its own (which moves the schedule on).
    if (inFlight && scheduled && !scheduledPolls.has(jobId)) return inFlight.then(() => pollJob(jobId, scheduled));
    if (inFlight) return inFlight;
    if (scheduled) scheduledPolls.add(jobId);
    const poll = pollOnce(jobId, scheduled).finally(() => {
      polls.delete(jobId);
      scheduledPolls.delete(jobId);
    });
    polls.set(jobId, poll);
    return poll;
  }

  /**
   * One poll of a parked job, under a lease so that no other worker polls it at the same time. Done: finalised
   * exactly as a job converted in one go (outputs moved, `proj/` removed, `done`, completion email). Failed for
   * good: `failed` with the batch's sentence. Still running: a scheduled poll sets the next one, or past the last
   * interval cancels the batch and fails the job with {@link OCR_BATCH_TIMED_OUT}. A poll that could not reach the
   * service changes nothing but the schedule: the batch may well be fine.
   */
  async function pollOnce(jobId: string, scheduled: boolean): Promise<TickResult> {
    const now = Date.now();
    const job = await store.leaseOcrJob(jobId, workerId, now, leaseMs);
    if (!job) return { jobId, status: (await store.getJob(jobId))?.status ?? 'cancelled' };
    const timer = setInterval(() => {
      store.heartbeat(jobId, workerId, Date.now(), undefined, leaseMs).catch((e: unknown) => log.warn({ job: jobTag(jobId), err: describeError(e) }, 'lease renewal failed'));
    }, heartbeatMs);
    timer.unref();
    try {
      let check: OcrCheck;
      try {
        check = await options.engine.checkOcr(projectDir(dataDir, jobId));
      } catch (e) {
        log.warn({ job: jobTag(jobId), err: isQuireError(e) ? `${e.message} ${e.detail ?? ''}` : describeError(e) }, 'OCR batch could not be polled');
        return await stillPending(job, scheduled);
      }
      if (check.state === 'pending') return await stillPending(job, scheduled);
      if (check.state === 'failed') {
        log.warn({ job: jobTag(jobId), err: check.detail ?? check.message }, 'OCR batch failed');
        return await endParked(job, { status: 'failed', error: check.message });
      }
      const r = check.result;
      return await endParked(job, { status: 'done', docName: r.name, hasMd: hasMarkdown(r), pages: r.pages, outputBytes: outputBytes(r), ...(r.outOfFocus ? { outOfFocus: r.outOfFocus } : {}) });
    } catch (e) {
      // The job went from under the poll (deleted), or its store failed: nothing is left half-done.
      log.warn({ job: jobTag(jobId), err: describeError(e) }, 'OCR batch could not be finished');
      return { jobId, status: (await store.getJob(jobId))?.status ?? 'cancelled' };
    } finally {
      clearInterval(timer);
    }
  }

  async function stillPending(job: Job, scheduled: boolean): Promise<TickResult> {
    const next = scheduled ? nextOcrPoll(job.ocrSubmittedAt ?? clock(), clock()) : undefined;
    if (next === null) {
      log.warn({ job: jobTag(job.jobId), batchIds: job.ocrBatchIds }, 'OCR batch still not done after the last poll; given up');
      await cancelBatch(job);
      return endParked(job, { status: 'failed', error: OCR_BATCH_TIMED_OUT });
    }
    await store.releaseOcrJob(job.jobId, workerId, next ?? null, Date.now());
    return { jobId: job.jobId, status: 'ocr_pending' };
  }

  /** End a parked job the poll holds: its project goes, the outcome is recorded, and a finished job's email sent. */
  async function endParked(job: Job, outcome: JobOutcome): Promise<TickResult> {
    if (outcome.status === 'failed') await removeWork(job.jobId);
    else await rm(projectDir(dataDir, job.jobId), { recursive: true, force: true });
    if (!(await store.finishJob(job.jobId, workerId, outcome, Date.now()))) {
      // Cancelled or deleted during the poll: nothing of it stays on disk.
      const now = await store.getJob(job.jobId);
      if (now === null || now.status === 'cancelled') await rm(jobDir(dataDir, job.jobId), { recursive: true, force: true });
      return { jobId: job.jobId, status: now?.status ?? 'cancelled' };
    }
    await ended(job.jobId);
    await metric(recordEnd(store, job, outcome.status, outcome.status === 'done' ? outcome.pages : 0));
    if (outcome.status === 'failed') return { jobId: job.jobId, status: 'failed' };
    log.info({ job: jobTag(job.jobId), pages: outcome.pages }, 'job done (OCR batch finished)');
    const done = { ...job, status: 'done' as const, docName: outcome.docName, hasMd: outcome.hasMd, pagesDone: outcome.pages, pagesTotal: outcome.pages };
    if (options.onDone) await options.onDone(done).catch((e: unknown) => log.warn({ job: jobTag(job.jobId), err: describeError(e) }, 'completion hook failed'));
    return { jobId: job.jobId, status: 'done' };
  }

  /** Polls the due parked jobs, `pollConcurrency` at a time: a service that hangs holds up only its own polls. */
  async function pollDue(): Promise<TickResult[]> {
    const due = await store.listDueOcrJobs(clock());
    const results: TickResult[] = [];
    const next = async (): Promise<void> => {
      for (let job = due.shift(); job && !stopping; job = due.shift()) {
        if (options.ocrBatch) await options.ocrBatch.poll(job);
        else results.push(await pollJob(job.jobId, true));
      }
    };
    await Promise.all(Array.from({ length: Math.min(pollConcurrency, due.length) }, next));
    return results;
  }

  /** A job just ended (done or failed): its upload goes now unless retention keeps it. */
  async function ended(jobId: string): Promise<void> {
    if (retention.inputsMs !== 0) return;
    const job = await store.getJob(jobId);
    if (!job) return;
    await rm(inputPath(dataDir, job), { force: true });
    await store.markFilesRemoved(jobId, 'input');
    // A failed job keeps nothing then: its folder goes too (a done one holds its outputs).
    await rmdir(jobDir(dataDir, jobId)).catch(() => undefined);
  }

  async function sweep(now = Date.now()): Promise<number> {
    let removed = 0;
    await store.stampEnded(now);
    for (const what of ['input', 'output'] as const) {
      const keep = what === 'input' ? retention.inputsMs : retention.outputsMs;
      if (keep === null) continue;
      for (;;) {
        const jobs = await store.listRetained(what, now - keep, 100);
        for (const job of jobs) {
          if (what === 'input') await rm(inputPath(dataDir, job), { force: true });
          else await Promise.all((['pdf', 'md'] as const).map((kind) => rm(outputPath(dataDir, job.jobId, kind), { force: true })));
          await store.markFilesRemoved(job.jobId, what);
          removed++;
        }
        if (jobs.length < 100) break;
      }
    }
    lastSweep = now;
    if (removed > 0) log.info({ removed }, 'retention: files of ended jobs removed');
    return removed;
  }

  /** The run stopped, or found the job no longer its own: leave the job in the state the stop calls for. */
  async function settleStopped(run: Running): Promise<TickResult> {
    const { job } = run;
    const proj = projectDir(dataDir, job.jobId);
    if (run.reason === 'shutdown') {
      await rm(proj, { recursive: true, force: true });
      // Not the job's fault: the attempt is given back. A false here means the grace period ran out and `stop`
      // already put it back.
      await store.requeueJob(job.jobId, workerId, Date.now(), true);
      log.info({ job: jobTag(job.jobId) }, 'job put back to pending for the next start');
      return { jobId: job.jobId, status: 'pending' };
    }
    if (run.reason === 'timeout') {
      await removeWork(job.jobId);
      const ms = options.jobTimeMs!;
      const [n, unit] = ms >= 60_000 ? [Math.round(ms / 60_000), 'minute'] : [Math.round(ms / 1000), 'second'];
      const error = `${job.uploadName} took longer than the ${n} ${unit}${n === 1 ? '' : 's'} a job may take on this server, so Quire stopped converting it.`;
      if (await store.finishJob(job.jobId, workerId, { status: 'failed', error }, Date.now())) {
        log.warn({ job: jobTag(job.jobId), limitMs: ms }, 'job stopped: past its time limit');
        await metric(recordEnd(store, job, 'failed', 0));
        await ended(job.jobId);
        return { jobId: job.jobId, status: 'failed' };
      }
    }
    const now = await store.getJob(job.jobId);
    if (now === null || now.status === 'cancelled') {
      // Cancelled or deleted: nothing of it stays on disk.
      await rm(jobDir(dataDir, job.jobId), { recursive: true, force: true });
      log.info({ job: jobTag(job.jobId) }, now ? 'job cancelled' : 'job deleted while running');
      return { jobId: job.jobId, status: 'cancelled' };
    }
    // Taken back by another worker (this one missed its lease): its files are that worker's now.
    log.warn({ job: jobTag(job.jobId), holder: now.workerId }, 'job taken over by another worker');
    return { jobId: job.jobId, status: now.status };
  }

  /** A failed job keeps its upload and nothing else: its project, and any output an earlier step wrote, go. */
  async function removeWork(jobId: string): Promise<void> {
    await rm(projectDir(dataDir, jobId), { recursive: true, force: true });
    await Promise.all((['pdf', 'md'] as const).map((kind) => rm(outputPath(dataDir, jobId, kind), { force: true })));
  }

  const runNext = (): Promise<TickResult | null> => {
    // One job at a time per worker: a run asked for while one runs waits for it and claims nothing more.
    if (ticking) return ticking.then(() => null);
    ticking = tickOnce().finally(() => {
      ticking = null;
    });
    return ticking;
  };

  const processor: Processor = {
    workerId,
    async tick() {
      const [, result] = await Promise.all([pollDue(), runNext()]);
      return result;
    },
    runNext,
    start(intervalMs) {
      if (loop) return;
      // A job queued elsewhere wakes this worker at once; one cancelled or deleted elsewhere stops at its next frame.
      unsubscribe = store.subscribe((event: StoreEvent) => {
        if (event.type === 'queued') processor.kick();
        else if (event.jobId) processor.abort(event.jobId);
      });
      // Parked jobs are polled beside the queue, never on its path: a service that does not answer holds up only
      // its own polls. Retention runs on the same ticker.
      let polling = false;
      if (housekeeping) pollTimer = setInterval(() => {
        if (polling || stopping) return;
        polling = true;
        const sweeping = Date.now() - lastSweep >= SWEEP_EVERY_MS ? sweep().catch((e: unknown) => log.error({ err: describeError(e) }, 'retention sweep failed')) : null;
        Promise.all([pollDue(), sweeping])
          .catch((e: unknown) => log.error({ err: describeError(e) }, 'OCR batch polling failed'))
          .finally(() => (polling = false));
      }, intervalMs);
      pollTimer?.unref();
      loop = (async () => {
        while (!stopping) {
          const result = await runNext().catch((e: unknown) => {
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
      })();
    },
    kick() {
      wake?.();
    },
    abort(jobId) {
      if (running?.job.jobId === jobId) {
        running.reason ??= 'cancel';
        running.controller.abort('cancel');
      }
    },
    async poll(job) {
      if (options.ocrBatch) return options.ocrBatch.poll(job);
      await pollJob(job.jobId, false);
    },
    requestPoll(job) {
      if (stopping || polls.has(job.jobId)) return;
      const now = Date.now();
      // Forget polls long past, so the map stays the size of the jobs polled lately.
      for (const [id, at] of clientPolls) if (now - at >= clientPollEveryMs) clientPolls.delete(id);
      if (clientPolls.has(job.jobId)) return;
      clientPolls.set(job.jobId, now);
      processor.poll(job).catch((e: unknown) => log.warn({ job: jobTag(job.jobId), err: describeError(e) }, 'OCR batch poll failed'));
    },
    sweep,
    async pollsSettled() {
      while (polls.size > 0) await Promise.allSettled([...polls.values()]);
    },
    pollDue,
    cancelBatch,
    async stop(graceMs) {
      stopping = true;
      unsubscribe?.();
      wake?.();
      if (pollTimer) clearInterval(pollTimer);
      // A poll finishing a batch is let end (it is writing the outputs), within the grace period.
      if (polls.size > 0) await Promise.race([Promise.allSettled([...polls.values()]), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      if (running) {
        running.reason ??= 'shutdown';
        running.controller.abort('shutdown');
      }
      const inFlight = ticking;
      if (!inFlight) return void (await loop);
      let timer: NodeJS.Timeout | undefined;
      const settled = await Promise.race([
        inFlight.then(() => true, () => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
      ]);
      clearTimeout(timer);
      if (settled) return void (await loop);
      const run = running as Running | null;
      if (run) {
        // The frame in flight did not end in time: put the job back anyway; its next run starts afresh.
        await store.requeueJob(run.job.jobId, workerId, Date.now(), true);
        log.warn({ job: jobTag(run.job.jobId), graceMs }, 'job did not reach a frame boundary in time; put back to pending');
      }
    },
  };
  return processor;
}

/**
 * A held job is an orphan when its holder's lease ran out (rows from before leases: its heartbeat is older than
 * `leaseMs`), or its holder is a process on this host that no longer exists.
 */
export function isOrphan(job: Pick<Job, 'workerId' | 'heartbeat' | 'leaseUntil'>, now: number, leaseMs: number): boolean {
  if (job.leaseUntil !== null ? now > job.leaseUntil : job.heartbeat === null || now - job.heartbeat > leaseMs) return true;
  const worker = parseWorkerId(job.workerId);
  return worker !== null && worker.host === hostname() && worker.pid !== process.pid && !processExists(worker.pid);
}

function parseWorkerId(id: string | null): { host: string; pid: number } | null {
  const m = id === null ? null : /^(.*):(\d+):[0-9a-f]+(?:\/\d+)?$/.exec(id);
  return m ? { host: m[1], pid: Number(m[2]) } : null;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, it is someone else's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What an attempt that a worker's end interrupted leaves as the job's last error. */
export const WORKER_STOPPED = 'The worker converting this file stopped before it finished.';

/**
 * Whether another attempt may mend a failure: a fault of ours or of the machine's (unexpected errors, a job process
 * that crashed), not one the input causes (it would fail again) nor a limit it met.
 */
export function mayMend(e: unknown): boolean {
  return !isQuireError(e) || e.code === ERROR_CODES.INTERNAL;
}

export function interruptedMessage(attempts: number): string {
  return `The server stopped while converting this file ${attempts} times, so Quire gave up on it.`;
}

/** OCR given (and not `none`) asks for Markdown beside the PDF; convert writes it when OCR ran. */
export function wantsMarkdown(ocr: string | null): boolean {
  return ocr !== null && ocr !== '' && ocr !== 'none';
}

/**
 * `/check` progress from convert's events. Frames are known in advance, pages are not (a book spread gives two),
 * so `pages_total` is an estimate — frames × the pages per frame seen so far — that becomes exact when the job
 * is done; before the first frame ends it is the frame count.
 */
export function progressTracker(report: (p: Progress & { step: ProgressStep }) => void): (e: ProgressEvent) => void {
  let pages: number | null = null;
  return (e) => {
    if (e.type === 'start') report({ pagesDone: 0, pagesTotal: e.frames, step: 'pages' });
    else if (e.type === 'frame') {
      const estimate = Math.round((e.pagesDone / Math.max(1, e.framesDone)) * e.framesTotal);
      pages = e.pagesDone;
      report({ pagesDone: e.pagesDone, pagesTotal: Math.max(e.pagesDone, estimate), step: 'pages' });
    } else if (e.type === 'ocr') report({ pagesDone: e.pagesDone, pagesTotal: e.pagesTotal, step: 'ocr' });
    // Exports write the whole book: its pages are all done.
    else if (e.type === 'export') report({ pagesDone: pages ?? 0, pagesTotal: pages, step: 'export' });
  };
}

/** What the job's outputs take on disk. */
function outputBytes(result: ConvertResult): number {
  return result.outputs.reduce((sum, o) => sum + (o.bytes ?? 0), 0);
}

/** Convert wrote the Markdown beside the PDF (OCR ran and was asked for). */
function hasMarkdown(result: ConvertResult): boolean {
  return result.outputs.some((o) => o.format === 'md');
}

/** One sentence for `error`: the engine's own message (it names the upload as the user named it), or, for a fault of ours, a plain one. */
export function failureMessage(e: unknown): string {
  if (isQuireError(e) && e.code !== ERROR_CODES.INTERNAL) return e.message;
  return 'Quire could not convert this file because of an unexpected error on the server.';
}
