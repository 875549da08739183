import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { ConvertEngine, ConvertResult, ProgressEvent } from '../convert/index.js';
import { describeError, ERROR_CODES, isQuireError } from '../errors.js';
import { freeBytes, isDiskFull } from './disk.js';
import { afterEnd, endJob, letGo, metric, removeWork, type JobEnds } from './job-end.js';
import { inputPath, jobDir, OUTPUT_STEM, projectDir } from './layout.js';
import { holdLease } from './lease.js';
import { recordClaim, recordEnd } from './metrics.js';
import { doneOutcome, nextOcrPoll } from './ocr-poller.js';
import type { OcrBatch, TickResult } from './processor-types.js';
import { jobTag } from './secrets.js';
import type { Job, Progress, ProgressStep } from './store.js';

/** What a job waiting for disk space says on `/check`. */
export const DISK_FULL_NOTICE = 'The server is short of disk space; Quire will start this job again once there is room.';

/** What an attempt that a worker's end interrupted leaves as the job's last error. */
export const WORKER_STOPPED = 'The worker converting this file stopped before it finished.';

export interface RunnerOptions {
  ends: JobEnds;
  engine: ConvertEngine;
  /** The parked jobs' batches: one submitted by a job cancelled meanwhile is cancelled. */
  batch: OcrBatch;
  leaseMs: number;
  heartbeatMs: number;
  maxAttempts: number;
  retryMs: number;
  minFreeDisk: number;
  workers?: number | undefined;
  jobTimeMs?: number | undefined;
}

type StopReason = 'cancel' | 'shutdown' | 'lost' | 'timeout';

/** What the steps of a run share: the runner's options and its view of the disk. */
interface RunnerContext extends RunnerOptions {
  /** True when the data folder has room for `needed` more bytes beside the minimum kept free. */
  room(needed: number): Promise<boolean>;
}

interface Running {
  job: Job;
  controller: AbortController;
  reason?: StopReason;
}

export interface JobRunner {
  /** Take back orphaned jobs, then claim the next ready job and run it to its end; one at a time. */
  runNext(): Promise<TickResult | null>;
  /** Stop the running job for `reason`, if it is `jobId` (any job when null): it ends at the next frame boundary. */
  abort(jobId: string | null, reason: 'cancel' | 'shutdown'): void;
  /** Take no new job from now on. */
  halt(): void;
  /** Resolves once no run is in flight. */
  idle(): Promise<void>;
  /**
   * Take no new job; stop the running one and wait at most `graceMs` for it; past that, put it back to `pending`
   * anyway (its next run starts afresh). True when the run in flight, if any, ended in time.
   */
  stop(graceMs: number): Promise<boolean>;
}

export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** The job queue's worker: one job at a time, claimed atomically, so several workers can share one store. */
export function createJobRunner(options: RunnerOptions): JobRunner {
  const { ends, leaseMs, maxAttempts, retryMs } = options;
  const { store, dataDir, log, workerId, clock } = ends;
  const ctx: RunnerContext = { ...options, room: diskWatch(dataDir, options.minFreeDisk, log) };
  const roomOnDisk = ctx.room;
  let running: Running | null = null;
  let ticking: Promise<TickResult | null> | null = null;
  let stopping = false;

  async function recoverOrphans(): Promise<void> {
    const now = clock();
    for (const job of await store.listProcessing()) {
      if (job.workerId === workerId || !isOrphan(job, now, leaseMs)) continue;
      const taken = await store.reclaimJob(job, now, maxAttempts, WORKER_STOPPED, interruptedMessage(job.attempts));
      if (!taken) continue;
      await rm(projectDir(dataDir, job.jobId), { recursive: true, force: true });
      if (taken === 'failed') await metric(log, recordEnd(store, job, 'failed', 0, now));
      log.warn(
        { job: jobTag(job.jobId), worker: job.workerId, attempts: job.attempts },
        taken === 'failed' ? 'job interrupted too often, failed' : 'job of a stopped worker put back to pending',
      );
    }
  }

  async function claimAndRun(): Promise<TickResult | null> {
    await recoverOrphans();
    if (stopping) return null;
    // Not even the smallest job fits: take none, rather than claim one only to put it back.
    if (!(await roomOnDisk(0))) return null;
    const job = await store.claimNextJob(workerId, clock(), leaseMs);
    if (!job) return null;
    await metric(log, recordClaim(store, job));
    if (stopping) {
      await store.requeueJob(job.jobId, workerId, clock(), true);
      return null;
    }
    if (!(await roomOnDisk(job.inputBytes))) {
      await store.deferJob(job.jobId, workerId, clock() + retryMs, DISK_FULL_NOTICE, clock());
      return { jobId: job.jobId, status: 'pending' };
    }
    const run: Running = { job, controller: new AbortController() };
    running = run;
    try {
      return await runJob(run);
    } finally {
      running = null;
    }
  }

  async function runJob(run: Running): Promise<TickResult> {
    const { job, controller } = run;
    const stop = (reason: StopReason): void => {
      run.reason ??= reason;
      controller.abort(reason);
    };
    // A crashed run may have left its project behind; every run starts from the upload alone.
    await rm(projectDir(dataDir, job.jobId), { recursive: true, force: true });
    const lease = holdLease({
      store,
      jobId: job.jobId,
      workerId,
      leaseMs,
      heartbeatMs: options.heartbeatMs,
      clock,
      log,
      leaseUntil: job.leaseUntil ?? clock() + leaseMs,
      onLost: () => stop('lost'),
    });
    // No job holds a worker for ever: past its time it stops at the next frame and fails, saying so.
    const overtime = options.jobTimeMs === undefined ? undefined : setTimeout(() => stop('timeout'), options.jobTimeMs);
    overtime?.unref();
    log.info({ job: jobTag(job.jobId), attempt: job.attempts }, 'job started');
    try {
      const result = await convertJob(
        ctx,
        run,
        progressTracker((p) => lease.renew(p)),
      );
      // A shutdown that came after the last frame does not waste the finished work; a cancel or a lost job does.
      if (controller.signal.aborted && run.reason !== 'shutdown') return await settleStopped(ctx, run);
      if (result.ocrPending) return await park(ctx, run, result.ocrPending.batchIds);
      const outcome = doneOutcome(result);
      return (await endJob(ends, job, outcome, { level: 'info', fields: { pages: result.pages }, msg: 'job done' })) ?? (await settleStopped(ctx, run));
    } catch (e) {
      if (controller.signal.aborted) return await settleStopped(ctx, run);
      return await failed(ctx, run, e);
    } finally {
      lease.release();
      clearTimeout(overtime);
    }
  }

  const runNext = (): Promise<TickResult | null> => {
    // One job at a time per worker: a run asked for while one runs waits for it and claims nothing more.
    if (ticking) return ticking.then(() => null);
    ticking = claimAndRun().finally(() => {
      ticking = null;
    });
    return ticking;
  };

  const abort = (jobId: string | null, reason: 'cancel' | 'shutdown'): void => {
    if (!running || (jobId !== null && running.job.jobId !== jobId)) return;
    running.reason ??= reason;
    running.controller.abort(reason);
  };

  return {
    runNext,
    abort,
    halt() {
      stopping = true;
    },
    async idle() {
      await ticking?.catch(() => undefined);
    },
    async stop(graceMs) {
      stopping = true;
      abort(null, 'shutdown');
      const inFlight = ticking;
      if (!inFlight) return true;
      let timer: NodeJS.Timeout | undefined;
      const settled = await Promise.race([
        inFlight.then(
          () => true,
          () => true,
        ),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
      ]);
      clearTimeout(timer);
      const run = running as Running | null;
      if (settled || !run) return settled;
      // The frame in flight did not end in time: put the job back anyway; its next run starts afresh.
      await store.requeueJob(run.job.jobId, workerId, clock(), true);
      log.warn({ job: jobTag(run.job.jobId), graceMs }, 'job did not reach a frame boundary in time; put back to pending');
      return false;
    },
  };
}

/** Convert the job's upload; out of memory, once more with one page at a time, which needs a fraction of it. */
async function convertJob(ctx: RunnerContext, run: Running, onProgress: (e: ProgressEvent) => void): Promise<ConvertResult> {
  const { dataDir, log } = ctx.ends;
  const { job, controller } = run;
  const proj = projectDir(dataDir, job.jobId);
  // Messages and the document name come from the name the file was uploaded under, never the server's path.
  const convertOnce = (workers: number | undefined): Promise<ConvertResult> =>
    ctx.engine.convert(inputPath(dataDir, job), {
      label: job.uploadName,
      exports: wantsMarkdown(job.ocr) ? 'pdf+md' : 'pdf',
      outDir: jobDir(dataDir, job.jobId),
      fileStem: OUTPUT_STEM,
      keepProject: proj,
      ...(job.dpi ? { dpi: { value: job.dpi, force: true } } : {}),
      ...(job.ocr ? { ocr: job.ocr } : {}),
      ...(workers ? { workers } : {}),
      signal: controller.signal,
      onProgress,
    });
  try {
    return await convertOnce(ctx.workers);
  } catch (e) {
    if (controller.signal.aborted || !isQuireError(e) || e.code !== ERROR_CODES.RESOURCE_LIMIT) throw e;
    log.warn({ job: jobTag(job.jobId), err: e.detail ?? e.message }, 'job needed more memory than its limit; converting it again one page at a time');
    await rm(proj, { recursive: true, force: true });
    return convertOnce(1);
  }
}

/** The conversion failed: a full disk waits for room, a fault of ours is tried again, the input's fault fails the job. */
async function failed(ctx: RunnerContext, run: Running, e: unknown): Promise<TickResult> {
  const { ends, maxAttempts, retryMs } = ctx;
  const { store, dataDir, log, workerId, clock } = ctx.ends;
  const { job } = run;
  await removeWork(dataDir, job.jobId);
  const err = isQuireError(e) ? (e.detail ?? e.message) : describeError(e);
  // A full disk is no fault of the job's: it waits and runs again, its attempt given back.
  if (isDiskFull(e) || !(await ctx.room(0))) {
    log.warn({ job: jobTag(job.jobId), err }, 'disk full while converting: job put back to pending');
    if (!(await store.deferJob(job.jobId, workerId, clock() + retryMs, DISK_FULL_NOTICE, clock()))) return settleStopped(ctx, run);
    return { jobId: job.jobId, status: 'pending' };
  }
  const error = failureMessage(e);
  const code = isQuireError(e) ? e.code : 'unexpected';
  if (!mayMend(e))
    return (await endJob(ends, job, { status: 'failed', error }, { level: 'warn', fields: { code, err }, msg: 'job failed' })) ?? settleStopped(ctx, run);
  // Not the input's fault (a job process that crashed, a fault of the machine's): another attempt may mend it.
  const now = clock();
  const next = await store.retryJob(job.jobId, workerId, now, now + retryMs, maxAttempts, error);
  if (next === null) return settleStopped(ctx, run);
  log.warn(
    { job: jobTag(job.jobId), code, err, attempt: job.attempts },
    next === 'failed' ? 'job failed on its last attempt' : 'job attempt failed; tried again later',
  );
  if (next === 'failed') await afterEnd(ends, job, { status: 'failed', error });
  return { jobId: job.jobId, status: next };
}

/** The OCR went to a batch: the job waits in `ocr_pending` with its project, polled on the schedule from now. */
async function park(ctx: RunnerContext, run: Running, batchIds: string[]): Promise<TickResult> {
  const { store, log, workerId, clock } = ctx.ends;
  const { job } = run;
  const submittedAt = clock();
  const nextPollAt = nextOcrPoll(submittedAt, submittedAt)!;
  if (!(await store.parkJob(job.jobId, workerId, { batchIds, submittedAt, nextPollAt }, clock()))) {
    // Cancelled or deleted while submitting: the batch is of no use to anyone.
    await ctx.batch.cancel(job);
    return settleStopped(ctx, run);
  }
  log.info({ job: jobTag(job.jobId), batchIds }, 'OCR batch submitted; job waits in ocr_pending');
  return { jobId: job.jobId, status: 'ocr_pending' };
}

/** The run stopped, or found the job no longer its own: leave the job in the state the stop calls for. */
async function settleStopped(ctx: RunnerContext, run: Running): Promise<TickResult> {
  const { ends } = ctx;
  const { store, dataDir, log, workerId, clock } = ctx.ends;
  const { job } = run;
  if (run.reason === 'shutdown') {
    await rm(projectDir(dataDir, job.jobId), { recursive: true, force: true });
    // Not the job's fault: the attempt is given back. A false here means the grace period ran out and `stop`
    // already put it back.
    await store.requeueJob(job.jobId, workerId, clock(), true);
    log.info({ job: jobTag(job.jobId) }, 'job put back to pending for the next start');
    return { jobId: job.jobId, status: 'pending' };
  }
  if (run.reason === 'timeout') {
    const ms = ctx.jobTimeMs!;
    const [n, unit] = ms >= 60_000 ? [Math.round(ms / 60_000), 'minute'] : [Math.round(ms / 1000), 'second'];
    const error = `${job.uploadName} took longer than the ${n} ${unit}${n === 1 ? '' : 's'} a job may take on this server, so Quire stopped converting it.`;
    const ended = await endJob(ends, job, { status: 'failed', error }, { level: 'warn', fields: { limitMs: ms }, msg: 'job stopped: past its time limit' });
    if (ended) return ended;
  }
  return letGo(ends, job);
}

/** True when the data folder has room for a job to start; said once in the log each time that changes. */
function diskWatch(dataDir: string, minFreeDisk: number, log: JobEnds['log']): (needed: number) => Promise<boolean> {
  let diskShort = false;
  return async (needed) => {
    const free = await freeBytes(dataDir);
    const room = free === null || free >= minFreeDisk + needed;
    if (room !== !diskShort) {
      diskShort = !room;
      if (diskShort) log.warn({ free, needed: minFreeDisk + needed }, 'disk nearly full: jobs wait until there is room');
      else log.info({ free }, 'disk has room again: jobs start');
    }
    return room;
  };
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

/** One sentence for `error`: the engine's own message (it names the upload as the user named it), or, for a fault of ours, a plain one. */
export function failureMessage(e: unknown): string {
  if (isQuireError(e) && e.code !== ERROR_CODES.INTERNAL) return e.message;
  return 'Quire could not convert this file because of an unexpected error on the server.';
}
