import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pdfPageCount, QUIRE_BIN, SAMPLE } from '../helpers.js';
import { bookOfFrames, waitFor } from './helpers.js';
import { adminSecretIn, startServer, type ServerProcess } from './server-process.js';
import { sqlIn, STORE, storeEnv } from './stores.js';

// A server that serves HTTP only and `quire worker` processes beside it, all built CLIs (`npm run build` first) on one
// database: the folder's PostgreSQL schema in the `postgres` test project, its SQLite file (workers on one machine)
// in the other.
// What is converted does not matter to the lease and the exactly-once logic: small books, no OCR. A job is kept
// mid-job, as long as a test needs, by stopping its job process (SIGSTOP): the worker holding it goes on renewing its
// lease, as it would through a slow frame, until the test kills it.

interface WorkerProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

const homes: string[] = [];
const children: ChildProcess[] = [];
const stopped: number[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const pid of stopped.splice(0)) signal(pid, 'SIGKILL');
  for (const h of homes.splice(0)) await rm(h, { recursive: true, force: true });
});

/** `quire worker`; `machine` runs it under another host name (bubblewrap's own UTS namespace), as on another machine. */
async function startWorker(home: string, args: string[], machine?: string): Promise<WorkerProcess> {
  const command = [process.execPath, QUIRE_BIN, 'worker', '--workers', '1', ...args];
  const wrapped = machine ? ['bwrap', '--dev-bind', '/', '/', '--unshare-uts', '--hostname', machine, '--die-with-parent', ...command] : command;
  const child = spawn(wrapped[0], wrapped.slice(1), {
    env: { ...process.env, QUIRE_HOME: home, ...(await storeEnv(home)) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(async () => /^Quire worker \S+ converting jobs of .*\n/m.test(out) || child.exitCode !== null, 120_000);
  if (child.exitCode !== null) throw new Error(`worker did not start:\n${out}\n${err}`);
  return { child, stdout: () => out, stderr: () => err, exited };
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** The processes started by `pid`, and theirs, from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Ended while listed.
    }
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0;) {
    const parent = queue.shift()!;
    for (const [child, ppid] of parents) {
      if (ppid !== parent) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Hold a worker's jobs mid-job: its job processes stop (SIGSTOP) until `resume`; the worker itself keeps running. */
function pauseJobsOf(workerPid: number): { resume(): void } {
  const paused = descendants(workerPid);
  expect(paused.length).toBeGreaterThan(0);
  for (const pid of paused) signal(pid, 'SIGSTOP');
  stopped.push(...paused);
  return { resume: () => paused.forEach((pid) => signal(pid, 'SIGCONT')) };
}

async function newKey(server: ServerProcess): Promise<string> {
  const secret = adminSecretIn(server.stdout());
  const res = await fetch(`${server.address}/admin/keys?email=team%40example.org`, { method: 'POST', headers: { authorization: `Bearer ${secret}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { api_key: string }).api_key;
}

async function submit(server: ServerProcess, key: string, book: Buffer): Promise<string> {
  const form = new FormData();
  form.set('api_key', key);
  form.set('file', new Blob([new Uint8Array(book)]), 'sample.aglbundle');
  const res = await fetch(`${server.address}/run`, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { job_id: string }).job_id;
}

interface Check {
  status: string;
  error: string | null;
  progress: { pages_done: number; pages_total: number | null; step: string | null };
}

async function check(server: ServerProcess, key: string, id: string): Promise<Check> {
  return (await fetch(`${server.address}/check/${id}?api_key=${key}`)).json() as Promise<Check>;
}

/** Until the job runs and its progress has come through the database from the worker holding it. */
async function untilProcessing(server: ServerProcess, key: string, id: string): Promise<void> {
  await waitFor(
    async () => {
      const c = await check(server, key, id);
      return c.status === 'processing' && c.progress.step !== null;
    },
    120_000,
    20,
  );
}

/** The jobs each worker's log says it finished, by job tag (logs name jobs by tag, never by id). */
function jobsDone(log: string): string[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; job?: string })
    .filter((entry) => entry.msg === 'job done')
    .map((entry) => entry.job!);
}

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} in\n${text}`);
  return Number(line.slice(name.length + 1));
}

describe(`a server without a worker and two quire worker processes (${STORE === 'postgres' ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('finish six jobs exactly once after one worker is killed with -9 mid-job; its job is taken back by the other', async () => {
    const home = await mkdtemp(join(tmpdir(), 'quire-cluster-'));
    homes.push(home);
    // The job folders in a folder of their own, as a network mount shared by the machines would be.
    const shared = join(home, 'mnt', 'quire-data');
    const server = await startServer(home, ['--no-worker', '--data-dir', shared]);
    children.push(server.child);
    expect(server.stdout()).toContain('No worker in this process');
    const key = await newKey(server);
    // The first job, the example bundle (six pages), is the one a worker dies holding; five one-frame books beside it.
    const sample = await readFile(SAMPLE);
    const small = await bookOfFrames(1);

    // A server with no worker queues jobs and converts none.
    const first = await submit(server, key, sample);
    const pages = (id: string): number => (id === first ? 6 : 2);
    // No worker signed in anywhere, so nothing can take the job.
    expect(await sqlIn(home, 'SELECT worker_id FROM workers')).toEqual([]);
    expect(await check(server, key, first)).toMatchObject({ status: 'pending', progress: { pages_done: 0, pages_total: null, step: null } });

    // The dead worker's job is seen at once by the other on this machine (its process is gone); a worker on another
    // machine would wait for its lease, which is kept well above a loaded machine's pauses. Idle, they look for work
    // every 0.2 s.
    const a = await startWorker(home, ['--lease', '15', '--poll', '0.2', '--data-dir', shared]);
    const b = await startWorker(home, ['--lease', '15', '--poll', '0.2', '--data-dir', shared]);
    const ids = [first];
    for (let i = 1; i < 6; i++) ids.push(await submit(server, key, small));

    // Mid-job: the first job is running and its progress came through the database from the worker holding it.
    await untilProcessing(server, key, first);
    const victimJob = first;
    const [held] = await sqlIn(home, 'SELECT worker_id, attempts FROM jobs WHERE job_id = ?', [victimJob]);
    expect(held.attempts).toBe(1);
    const holderPid = Number(/^[^:]+:(\d+):/.exec(String(held.worker_id))?.[1]);
    const victim = holderPid === a.child.pid ? a : b;
    const survivor = victim === a ? b : a;
    expect(survivor.child.pid).not.toBe(holderPid);
    const job = pauseJobsOf(holderPid);
    expect((await check(server, key, victimJob)).status).toBe('processing');
    victim.child.kill('SIGKILL');
    await victim.exited;
    // Its job process, let go on, finds its worker gone and ends.
    job.resume();

    // The other worker takes the job back and finishes everything, alone and one job after another. A budget for a
    // hang: a whole-suite run on two cores at a load of 20 went past 300 s here, where the file alone takes a minute.
    await waitFor(
      async () => {
        const statuses = await Promise.all(ids.map(async (id) => (await check(server, key, id)).status));
        expect(statuses.filter((s) => s === 'failed')).toEqual([]);
        return statuses.every((s) => s === 'done');
      },
      720_000,
      250,
    );

    const rows = await sqlIn(home, `SELECT job_id, status, attempts, worker_id, error, pages_done FROM jobs ORDER BY seq`);
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'done', worker_id: null, error: null, pages_done: pages(String(row.job_id)) });
      expect(row.attempts).toBe(row.job_id === victimJob ? 2 : 1);
      expect(pdfPageCount(join(shared, String(row.job_id), 'output.pdf'))).toBe(pages(String(row.job_id)));
      expect(existsSync(join(shared, String(row.job_id), 'proj'))).toBe(false);
    }
    expect(existsSync(join(home, 'server_data'))).toBe(false);
    // Any server serves what any worker wrote.
    const pdf = await fetch(`${server.address}/download/${victimJob}/pdf`);
    expect(pdf.status).toBe(200);
    expect((await pdf.arrayBuffer()).byteLength).toBe(statSync(join(shared, victimJob, 'output.pdf')).size);
    const finished = await check(server, key, victimJob);
    expect(finished).toEqual({ job_id: victimJob, status: 'done', error: null, progress: { pages_done: 6, pages_total: 6, step: null } });

    // Finished once each: six "job done" between the two logs, none twice, and six in the cluster's counters.
    const done = [...jobsDone(a.stderr()), ...jobsDone(b.stderr())];
    expect(done).toHaveLength(6);
    expect(new Set(done).size).toBe(6);
    expect(jobsDone(survivor.stderr()).length).toBeGreaterThanOrEqual(1);
    // The killed worker's lease runs out: one worker is alive.
    const metrics = await waitFor(
      async () => {
        const text = await (await fetch(`${server.address}/metrics`)).text();
        return metric(text, 'quire_workers') === 1 ? text : null;
      },
      30_000,
      500,
    );
    expect(metric(metrics, 'quire_jobs_ended_total{status="done"}')).toBe(6);
    expect(metric(metrics, 'quire_jobs{status="done"}')).toBe(6);
    expect(metric(metrics, 'quire_pages_processed_total')).toBe(6 + 5 * 2);

    // The survivor stops cleanly and signs off.
    survivor.child.kill('SIGTERM');
    expect(await survivor.exited).toBe(0);
    expect(await sqlIn(home, 'SELECT worker_id FROM workers WHERE pid = ?', [survivor.child.pid])).toEqual([]);
    expect(await server.stop()).toBe(0);
  }, 900_000);

  it('take back the job of a worker on another machine that died once its lease has run out, and not before', async () => {
    const home = await mkdtemp(join(tmpdir(), 'quire-cluster-'));
    homes.push(home);
    const server = await startServer(home, ['--no-worker']);
    children.push(server.child);
    const key = await newKey(server);
    // The other machine's worker: its process cannot be seen from here, only its lease. Ten seconds: on a loaded
    // two-core machine its renewal (every third of a lease) was once held up past a five-second lease by the local
    // worker's start, which then took the job of a holder still alive.
    const remote = await startWorker(home, ['--lease', '10'], 'scanner-2');
    const id = await submit(server, key, await readFile(SAMPLE));
    await untilProcessing(server, key, id);
    const [held] = await sqlIn(home, 'SELECT worker_id FROM jobs WHERE job_id = ?', [id]);
    expect(String(held.worker_id)).toMatch(/^scanner-2:\d+:[0-9a-f]+$/);
    // Still running when the worker dies, however long the wait for the worker here takes.
    const job = pauseJobsOf(Number(String(held.worker_id).split(':')[1]));
    expect((await check(server, key, id)).status).toBe('processing');

    // A worker here looks every 0.2 s for jobs whose holder is gone: a live holder renews its lease and keeps the job.
    const local = await startWorker(home, ['--lease', '5', '--poll', '0.2']);
    await waitFor(async () => (await sqlIn(home, 'SELECT pid FROM workers WHERE pid = ?', [local.child.pid])).length === 1, 30_000, 100);
    // Until the holder has renewed its lease past the end of the one it had when this worker started, this worker
    // (looking every 0.2 s) had the chance to take the job back, and must not have.
    const [{ lease_until: leaseAtStart }] = await sqlIn(home, 'SELECT lease_until FROM jobs WHERE job_id = ?', [id]);
    await waitFor(
      async () => Number((await sqlIn(home, 'SELECT heartbeat_at FROM jobs WHERE job_id = ?', [id]))[0].heartbeat_at) > Number(leaseAtStart),
      60_000,
      100,
    );
    expect(await sqlIn(home, 'SELECT status, worker_id, attempts FROM jobs WHERE job_id = ?', [id])).toEqual([
      { status: 'processing', worker_id: held.worker_id, attempts: 1 },
    ]);

    remote.child.kill('SIGKILL');
    await remote.exited;
    job.resume();
    await waitFor(async () => (await check(server, key, id)).status === 'done', 300_000, 250);
    expect(await sqlIn(home, 'SELECT status, attempts, worker_id, error FROM jobs WHERE job_id = ?', [id])).toEqual([
      { status: 'done', attempts: 2, worker_id: null, error: null },
    ]);
    expect(jobsDone(remote.stderr())).toEqual([]);
    expect(jobsDone(local.stderr())).toHaveLength(1);
    const log = local
      .stderr()
      .split('\n')
      .filter((line) => line.includes('job of a stopped worker put back to pending'));
    expect(log).toHaveLength(1);
    expect(JSON.parse(log[0])).toMatchObject({ worker: held.worker_id, attempts: 1 });
    expect(pdfPageCount(join(home, 'server_data', id, 'output.pdf'))).toBe(6);
  }, 420_000);
});
