import { JOB_STATUSES, type Job, type JobStore } from './store.js';

/**
 * `/metrics` in Prometheus's text format. Counters and histograms live in the database (`metric_counters`), added to
 * by whichever worker observed them, so any server behind a load balancer shows the whole cluster's; gauges (jobs by
 * status, workers) are read from the database when scraped.
 */

/** Seconds a job waited in the queue before a worker claimed it. */
const QUEUE_WAIT = { name: 'quire_job_queue_wait_seconds', buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600] };
/** Seconds from claim to done or failed (a job's last attempt). */
const PROCESSING = { name: 'quire_job_processing_seconds', buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200] };
const PAGES = 'quire_pages_processed_total';
const ENDED = 'quire_jobs_ended_total';

type Histogram = typeof QUEUE_WAIT;

/** The counter increments of one observation: every bucket it falls in (they are cumulative), +Inf, sum and count. */
export function observe(h: Histogram, value: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const le of h.buckets) if (value <= le) out[`${h.name}_bucket{le="${le}"}`] = 1;
  out[`${h.name}_bucket{le="+Inf"}`] = 1;
  out[`${h.name}_sum`] = value;
  out[`${h.name}_count`] = 1;
  return out;
}

function add(store: JobStore, increments: Record<string, number>): Promise<void> {
  return store.addCounters(increments);
}

/** A worker claimed `job`: its wait in the queue. */
export function recordClaim(store: JobStore, job: Job): Promise<void> {
  return add(store, observe(QUEUE_WAIT, Math.max(0, ((job.startedAt ?? Date.now()) - job.created) / 1000)));
}

/** A worker ended `job` (its last attempt): how long that attempt took, the pages made, and the end. */
export function recordEnd(store: JobStore, job: Job, status: 'done' | 'failed', pages: number, now = Date.now()): Promise<void> {
  const increments: Record<string, number> = { [`${ENDED}{status="${status}"}`]: 1 };
  if (job.startedAt !== null) Object.assign(increments, observe(PROCESSING, Math.max(0, (now - job.startedAt) / 1000)));
  if (pages > 0) increments[PAGES] = pages;
  return add(store, increments);
}

const HELP: Array<[string, string, string]> = [
  ['quire_up', 'gauge', 'Whether the job database answered this scrape (1) or not (0).'],
  ['quire_jobs', 'gauge', 'Jobs in the database by status.'],
  [ENDED, 'counter', 'Jobs a worker ended, by how they ended.'],
  [QUEUE_WAIT.name, 'histogram', 'Seconds a job waited in the queue before a worker claimed it.'],
  [PROCESSING.name, 'histogram', 'Seconds from claim to the end of a job (its last attempt).'],
  [PAGES, 'counter', 'Pages of finished jobs.'],
  ['quire_workers', 'gauge', 'Worker processes whose lease has not run out.'],
  ['quire_worker_slots', 'gauge', 'Jobs the live workers can run at once.'],
  ['quire_worker_last_heartbeat_timestamp_seconds', 'gauge', 'When each worker last said it was alive (Unix time).'],
];

function header(name: string): string {
  const [, type, help] = HELP.find(([n]) => n === name)!;
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;
}

/** A label value as the text format wants it. */
function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function number(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(12)));
}

/** The whole exposition; when the database does not answer, `quire_up 0` and nothing else. */
export async function renderMetrics(store: JobStore, now = Date.now()): Promise<string> {
  let counts: Record<string, number>;
  let counters: Record<string, number>;
  let workers: Awaited<ReturnType<JobStore['listWorkers']>>;
  try {
    [counts, counters, workers] = await Promise.all([store.countJobsByStatus(), store.readCounters(), store.listWorkers(now)]);
  } catch {
    return `${header('quire_up')}quire_up 0\n`;
  }
  let out = `${header('quire_up')}quire_up 1\n`;
  out += header('quire_jobs');
  for (const status of JOB_STATUSES) out += `quire_jobs{status="${status}"} ${counts[status] ?? 0}\n`;
  out += header(ENDED);
  for (const status of ['done', 'failed']) out += `${ENDED}{status="${status}"} ${number(counters[`${ENDED}{status="${status}"}`] ?? 0)}\n`;
  for (const h of [QUEUE_WAIT, PROCESSING]) {
    out += header(h.name);
    for (const le of [...h.buckets.map(String), '+Inf']) out += `${h.name}_bucket{le="${le}"} ${number(counters[`${h.name}_bucket{le="${le}"}`] ?? 0)}\n`;
    out += `${h.name}_sum ${number(counters[`${h.name}_sum`] ?? 0)}\n${h.name}_count ${number(counters[`${h.name}_count`] ?? 0)}\n`;
  }
  out += `${header(PAGES)}${PAGES} ${number(counters[PAGES] ?? 0)}\n`;
  const live = workers.filter((w) => w.leaseUntil >= now);
  out += `${header('quire_workers')}quire_workers ${live.length}\n`;
  out += `${header('quire_worker_slots')}quire_worker_slots ${live.reduce((n, w) => n + w.concurrency, 0)}\n`;
  out += header('quire_worker_last_heartbeat_timestamp_seconds');
  for (const w of workers)
    out += `quire_worker_last_heartbeat_timestamp_seconds{worker="${label(w.workerId)}",host="${label(w.host)}"} ${number(w.heartbeat / 1000)}\n`;
  return out;
}
