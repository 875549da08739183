import { rm, rmdir } from 'node:fs/promises';
import type { Clock } from './clock.js';
import { DEFAULT_RETENTION, type Retention } from './config.js';
import { inputPath, jobDir, outputPath } from './layout.js';
import type { ProcessorLog } from './processor-types.js';
import type { JobStore } from './store.js';

/** The ticker applies retention this often. */
export const SWEEP_EVERY_MS = 10 * 60_000;

export interface RetentionKeeper {
  /** A job just ended (done or failed): its upload goes now unless retention keeps it. */
  ended(jobId: string): Promise<void>;
  /** Remove uploads and outputs of jobs that ended long enough before `now` (default the clock's); how many went. */
  sweep(now?: number): Promise<number>;
  /** Whether the last sweep was long enough ago for the ticker to run another. */
  due(): boolean;
}

/** The retention setting applied to the job folders: what a job keeps once it ended, and for how long. */
export function createRetention(options: { store: JobStore; dataDir: string; retention?: Retention; log: ProcessorLog; clock: Clock }): RetentionKeeper {
  const { store, dataDir, log, clock } = options;
  const retention = options.retention ?? DEFAULT_RETENTION;
  let lastSweep = 0;
  return {
    async ended(jobId) {
      if (retention.inputsMs !== 0) return;
      const job = await store.getJob(jobId);
      if (!job) return;
      await rm(inputPath(dataDir, job), { force: true });
      await store.markFilesRemoved(jobId, 'input');
      // A failed job keeps nothing then: its folder goes too (a done one holds its outputs).
      await rmdir(jobDir(dataDir, jobId)).catch(() => undefined);
    },
    async sweep(now = clock()) {
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
    },
    due: () => clock() - lastSweep >= SWEEP_EVERY_MS,
  };
}
