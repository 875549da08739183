import { join } from 'node:path';
import type { Job } from './store.js';

/**
 * Where a job's files live: `<dataDir>/<job_id>/{input.zip|input.pdf, proj/, output.pdf, output.md}`. Job ids are
 * checked (`isJobId`) before they reach these, so a path built here never leaves `dataDir`.
 */
export function jobDir(dataDir: string, jobId: string): string {
  return join(dataDir, jobId);
}

export function inputPath(dataDir: string, job: Pick<Job, 'jobId' | 'inputExt'>): string {
  return join(dataDir, job.jobId, `input.${job.inputExt}`);
}

export function projectDir(dataDir: string, jobId: string): string {
  return join(dataDir, jobId, 'proj');
}

export type ArtifactKind = 'pdf' | 'md';

/** The file stem convert writes a job's outputs under, in its job folder. */
export const OUTPUT_STEM = 'output';

export function outputPath(dataDir: string, jobId: string, kind: ArtifactKind): string {
  return join(dataDir, jobId, `${OUTPUT_STEM}.${kind}`);
}

/** Uploads are streamed here under a temporary name, then moved into their job folder once complete. */
export function uploadsDir(dataDir: string): string {
  return join(dataDir, '.uploads');
}
