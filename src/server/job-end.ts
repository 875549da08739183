import { rm } from 'node:fs/promises';
import { describeError } from '../errors.js';
import type { Clock } from './clock.js';
import { jobDir, outputPath, projectDir } from './layout.js';
import { recordEnd } from './metrics.js';
import type { ProcessorLog, TickResult } from './processor-types.js';
import type { RetentionKeeper } from './retention.js';
import { jobTag } from './secrets.js';
import type { Job, JobOutcome, JobStore } from './store.js';

/** What ending a job takes: shared by the job runner and the OCR batch poller, which both end jobs. */
export interface JobEnds {
  store: JobStore;
  dataDir: string;
  log: ProcessorLog;
  workerId: string;
  clock: Clock;
  retention: RetentionKeeper;
  /** Called once a job is done (the completion email); errors are logged, never fatal. */
  onDone?: ((job: Job) => Promise<void>) | undefined;
}

/** How an ending is said in the log. */
export interface Said {
  level: 'info' | 'warn';
  fields?: object;
  msg: string;
}

/**
 * End a job this worker holds, the one way every job ends: its work files go (a done job keeps its outputs, a failed
 * one its upload alone), the outcome is recorded, then {@link afterEnd}. Null when the job was no longer this
 * worker's (cancelled, deleted or taken back meanwhile): the caller lets it go.
 */
export async function endJob(ends: JobEnds, job: Job, outcome: JobOutcome, said: Said): Promise<TickResult | null> {
  if (outcome.status === 'failed') await removeWork(ends.dataDir, job.jobId);
  else await rm(projectDir(ends.dataDir, job.jobId), { recursive: true, force: true });
  if (!(await ends.store.finishJob(job.jobId, ends.workerId, outcome, ends.clock()))) return null;
  ends.log[said.level]({ job: jobTag(job.jobId), ...said.fields }, said.msg);
  await afterEnd(ends, job, outcome);
  return { jobId: job.jobId, status: outcome.status };
}

/** What follows a recorded end: the counters, retention of the upload, and a done job's completion hook. */
export async function afterEnd(ends: JobEnds, job: Job, outcome: JobOutcome): Promise<void> {
  await metric(ends.log, recordEnd(ends.store, job, outcome.status, outcome.status === 'done' ? outcome.pages : 0));
  await ends.retention.ended(job.jobId);
  if (outcome.status !== 'done' || !ends.onDone) return;
  const done = { ...job, status: 'done' as const, docName: outcome.docName, hasMd: outcome.hasMd, pagesDone: outcome.pages, pagesTotal: outcome.pages };
  await ends.onDone(done).catch((e: unknown) => ends.log.warn({ job: jobTag(job.jobId), err: describeError(e) }, 'completion hook failed'));
}

/** The job is no longer this worker's: a cancelled or deleted one leaves nothing on disk; a taken-back one is the other worker's. */
export async function letGo(ends: JobEnds, job: Job): Promise<TickResult> {
  const now = await ends.store.getJob(job.jobId);
  if (now === null || now.status === 'cancelled') {
    await rm(jobDir(ends.dataDir, job.jobId), { recursive: true, force: true });
    ends.log.info({ job: jobTag(job.jobId) }, now ? 'job cancelled' : 'job deleted while running');
    return { jobId: job.jobId, status: 'cancelled' };
  }
  ends.log.warn({ job: jobTag(job.jobId), holder: now.workerId }, 'job taken over by another worker');
  return { jobId: job.jobId, status: now.status };
}

/** A failed job keeps its upload and nothing else: its project, and any output an earlier step wrote, go. */
export async function removeWork(dataDir: string, jobId: string): Promise<void> {
  await rm(projectDir(dataDir, jobId), { recursive: true, force: true });
  await Promise.all((['pdf', 'md'] as const).map((kind) => rm(outputPath(dataDir, jobId, kind), { force: true })));
}

/** Metrics never stop a job: a counter that could not be written is lost, and said so in the log. */
export function metric(log: ProcessorLog, recording: Promise<void>): Promise<void> {
  return recording.catch((e: unknown) => log.warn({ err: describeError(e) }, 'metrics not recorded'));
}
