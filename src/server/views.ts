import { JOB_STATUSES, PROGRESS_STEPS, type Job } from './store.js';

/** The steps `/check` shows: the worker's own, and a parked job waiting for its remote OCR batch. */
export const VIEW_STEPS = [...PROGRESS_STEPS, 'ocr_batch'] as const;
export type ViewStep = (typeof VIEW_STEPS)[number];

/** What the HTTP API says about a job. Field names are the spec's (snake_case); times are ISO 8601 in UTC. */
export interface JobSummaryView {
  job_id: string;
  status: string;
  created: string;
  updated: string;
  ocr: string | null;
  error: string | null;
}

export interface JobCheckView {
  job_id: string;
  status: string;
  error: string | null;
  /** While a job runs, `step` says what it is doing and the pages count within that step; null otherwise. */
  progress: { pages_done: number; pages_total: number | null; step: ViewStep | null };
  /** Only while a pending job waits for a transient cause to pass (a full disk): why, in one sentence. */
  notice?: string;
}

export interface JobGetView extends JobCheckView {
  pdf_url: string | null;
  md_url: string | null;
  /** Only once retention removed the files of a done job. */
  expired?: true;
  /** Only for a done job with pages that look out of focus or shaken (1-based). */
  out_of_focus_pages?: number[];
  /** Only when the job was submitted with a `webhook_url`: where it goes and every delivery attempt so far. */
  webhook?: WebhookView;
}

export interface WebhookView {
  url: string;
  state: 'waiting' | 'pending' | 'delivered' | 'failed';
  next_attempt: string | null;
  attempts: Array<{ at: string; status: number | null; error: string | null }>;
}

export function jobSummary(job: Job): JobSummaryView {
  return {
    job_id: job.jobId,
    status: job.status,
    created: new Date(job.created).toISOString(),
    updated: new Date(job.updated).toISOString(),
    ocr: job.ocr,
    error: job.error,
  };
}

function stepOf(job: Job): ViewStep | null {
  if (job.status === 'processing') return job.progressStep ?? 'starting';
  return job.status === 'ocr_pending' ? 'ocr_batch' : null;
}

export function jobCheck(job: Job): JobCheckView {
  const progress = { pages_done: job.pagesDone, pages_total: job.pagesTotal, step: stepOf(job) };
  const view: JobCheckView = { job_id: job.jobId, status: job.status, error: job.error, progress };
  if (job.status === 'pending' && job.notice) view.notice = job.notice;
  return view;
}

/** `/get`: links only to files that exist — the PDF once done, the Markdown once done and only when OCR made it. */
export function jobGet(job: Job, base: string): JobGetView {
  const done = job.status === 'done' && !job.expired;
  const link = (kind: string): string => `${base}/download/${job.jobId}/${kind}`;
  const view: JobGetView = {
    ...jobCheck(job),
    pdf_url: done ? link('pdf') : null,
    md_url: done && job.hasMd ? link('md') : null,
    ...(job.expired ? { expired: true as const } : {}),
    ...(job.status === 'done' && job.outOfFocus ? { out_of_focus_pages: job.outOfFocus } : {}),
  };
  if (job.webhook) {
    const w = job.webhook;
    const time = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    view.webhook = {
      url: w.url,
      state: w.state,
      next_attempt: time(w.nextAt),
      attempts: w.attempts.map((a) => ({ at: time(a.at)!, status: a.status, error: a.error })),
    };
  }
  return view;
}

// JSON schemas at the HTTP boundary: they document the answers and let fastify serialise them fast.
const nullableString = { type: ['string', 'null'] } as const;
const status = { type: 'string', enum: [...JOB_STATUSES] } as const;

export const errorSchema = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] } },
  required: ['error'],
} as const;

const checkProperties = {
  job_id: { type: 'string' },
  status,
  error: nullableString,
  progress: {
    type: 'object',
    description: 'While the job runs: what it is doing (step) and the pages done of the pages in that step.',
    properties: {
      pages_done: { type: 'integer' },
      pages_total: { type: ['integer', 'null'] },
      step: { type: ['string', 'null'], enum: [...VIEW_STEPS, null] },
    },
    required: ['pages_done', 'pages_total', 'step'],
  },
  notice: { type: 'string', description: 'Why a pending job waits (a transient cause such as a full disk).' },
} as const;

export const checkSchema = { type: 'object', properties: checkProperties, required: ['job_id', 'status', 'error', 'progress'] } as const;

export const getSchema = {
  type: 'object',
  properties: {
    ...checkProperties,
    pdf_url: nullableString,
    md_url: nullableString,
    expired: { type: 'boolean' },
    out_of_focus_pages: {
      type: 'array',
      items: { type: 'integer' },
      description: 'Pages (1-based) that look out of focus or shaken: take them again for a better text. Only when there are any.',
    },
    webhook: {
      type: 'object',
      description: 'Only for a job submitted with webhook_url.',
      properties: {
        url: { type: 'string' },
        state: { type: 'string', enum: ['waiting', 'pending', 'delivered', 'failed'] },
        next_attempt: nullableString,
        attempts: {
          type: 'array',
          items: {
            type: 'object',
            properties: { at: { type: 'string' }, status: { type: ['integer', 'null'] }, error: nullableString },
            required: ['at', 'status', 'error'],
          },
        },
      },
      required: ['url', 'state', 'next_attempt', 'attempts'],
    },
  },
  required: ['job_id', 'status', 'error', 'progress', 'pdf_url', 'md_url'],
} as const;

export const listSchema = {
  type: 'object',
  properties: {
    jobs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          job_id: { type: 'string' },
          status,
          created: { type: 'string' },
          updated: { type: 'string' },
          ocr: nullableString,
          error: nullableString,
        },
        required: ['job_id', 'status', 'created', 'updated', 'ocr', 'error'],
      },
    },
    /** The cursor of the next page; only when there is one. */
    next: { type: 'string' },
  },
  required: ['jobs'],
} as const;

export const runSchema = {
  type: 'object',
  properties: { job_id: { type: 'string' }, status },
  required: ['job_id', 'status'],
} as const;

export const apiKeyQuery = {
  type: 'object',
  properties: { api_key: { type: 'string' } },
} as const;

export const jobParams = {
  type: 'object',
  properties: { job_id: { type: 'string' } },
  required: ['job_id'],
} as const;
