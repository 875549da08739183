import { spawnSync } from 'node:child_process';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CreateAppOptions } from '../../src/server/index.js';
import { interruptedMessage, progressTracker } from '../../src/server/job-runner.js';
import { FakeEngine } from './fake-engine.js';
import { listTree, multipart, testServer, waitFor, type TestServer } from './helpers.js';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
let open: TestServer[] = [];

async function setup(options: CreateAppOptions = {}): Promise<{ t: TestServer; engine: FakeEngine; key: string }> {
  const engine = new FakeEngine();
  const t = await testServer({ engine: engine, ...options });
  open.push(t);
  return { t, engine, key: await t.newKey() };
}

afterEach(async () => {
  for (const t of open) await t.close().catch(() => undefined);
  open = [];
});

async function submit(t: TestServer, key: string, fields: Array<[string, string]> = [], name = 'book.pdf'): Promise<string> {
  const res = await t.server.app.inject({ method: 'POST', url: '/run', ...multipart([['api_key', key], ...fields, ['file', { name, data: PDF }]]) });
  expect(res.statusCode).toBe(200);
  return res.json<{ job_id: string }>().job_id;
}

const check = async (t: TestServer, key: string, id: string) => (await t.server.app.inject({ url: `/check/${id}?api_key=${key}` })).json();
const post = (t: TestServer, key: string, url: string) => t.server.app.inject({ method: 'POST', url, ...multipart([['api_key', key]]) });

/** The pid of a process that has ended, for a worker id whose process is gone. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('pages out of focus', () => {
  it('are named on /get of a done job, as the CLI and the web app name them; a job without any says nothing', async () => {
    const { t, engine, key } = await setup({ limits: { minFreeDisk: 0 } });
    engine.auto = true;
    engine.outOfFocus = [2, 5];
    const blurred = await submit(t, key);
    await t.server.processor.runNext();
    engine.outOfFocus = null;
    const sharp = await submit(t, key);
    await t.server.processor.runNext();
    const got = async (id: string) => (await t.server.app.inject({ url: `/get/${id}`, headers: { 'x-api-key': key } })).json<Record<string, unknown>>();
    expect(await got(blurred)).toMatchObject({ status: 'done', out_of_focus_pages: [2, 5] });
    expect(await got(sharp)).not.toHaveProperty('out_of_focus_pages');
  });
});

describe('a job past its time limit', () => {
  it('is stopped at its next frame and failed, saying so; its files go and the next job runs', async () => {
    const { t, engine, key } = await setup({ limits: { jobTimeMs: 2_000, minFreeDisk: 0 } });
    const slow = await submit(t, key, [], 'slow.pdf');
    // The fake waits at every frame boundary until the limit stops it.
    expect(await t.server.processor.runNext()).toEqual({ jobId: slow, status: 'failed' });
    expect(await check(t, key, slow)).toMatchObject({
      status: 'failed',
      error: 'slow.pdf took longer than the 2 seconds a job may take on this server, so Quire stopped converting it.',
    });
    expect(await listTree(join(t.dataDir, slow))).toEqual([]);
    engine.auto = true;
    const next = await submit(t, key);
    expect(await t.server.processor.runNext()).toEqual({ jobId: next, status: 'done' });
  });
});

describe('pending → processing → done', () => {
  it('reports progress in pages as frames complete, with a project folder only while processing', async () => {
    const { t, engine, key } = await setup();
    const id = await submit(t, key, [
      ['dpi', '300'],
      ['ocr', 'auto'],
    ]);
    const running = t.server.processor.tick();
    await engine.atGate();
    // Before the first frame: the frame count stands in for pages_total. (A networked store has it a moment later.)
    await waitFor(async () => (await check(t, key, id)).progress.step === 'pages');
    expect(await check(t, key, id)).toEqual({ job_id: id, status: 'processing', error: null, progress: { pages_done: 0, pages_total: 3, step: 'pages' } });
    expect(await listTree(join(t.dataDir, id))).toEqual(['input.pdf', 'proj/', 'proj/pages/', 'proj/project.json']);
    engine.step();
    await engine.atGate();
    // One frame made two pages: three frames will make about six.
    await waitFor(async () => (await check(t, key, id)).progress.pages_done === 2);
    expect((await check(t, key, id)).progress).toEqual({ pages_done: 2, pages_total: 6, step: 'pages' });
    expect((await t.server.app.inject({ url: `/get/${id}?api_key=${key}` })).json()).toMatchObject({ status: 'processing', pdf_url: null, md_url: null });
    engine.step();
    await engine.atGate();
    engine.step();
    expect(await running).toEqual({ jobId: id, status: 'done' });
    expect(await check(t, key, id)).toEqual({ job_id: id, status: 'done', error: null, progress: { pages_done: 6, pages_total: 6, step: null } });

    // What the engine was asked: the upload, a project inside the job folder, forced DPI, OCR passed through with Markdown.
    const call = engine.calls[0];
    expect(call.input).toBe(join(t.dataDir, id, 'input.pdf'));
    expect(call.options).toMatchObject({ exports: 'pdf+md', keepProject: join(t.dataDir, id, 'proj'), dpi: { value: 300, force: true }, ocr: 'auto' });
    expect(call.options.signal).toBeInstanceOf(AbortSignal);
  });

  it('keeps output.md when OCR made Markdown, and links it', async () => {
    const { t, engine, key } = await setup({ publicUrl: 'http://quire.lan:8080' });
    engine.auto = true;
    const id = await submit(t, key, [['ocr', 'tesseract:lang=fra']], 'Mon livre.pdf');
    expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'done' });
    // The upload went when the job ended (the default retention); the outputs stay.
    expect(await listTree(join(t.dataDir, id))).toEqual(['output.md', 'output.pdf']);
    const get = (await t.server.app.inject({ url: `/get/${id}?api_key=${key}` })).json();
    expect(get).toMatchObject({ pdf_url: `http://quire.lan:8080/download/${id}/pdf`, md_url: `http://quire.lan:8080/download/${id}/md` });
    const md = await t.server.app.inject({ url: `/download/${id}/md` });
    expect(md.statusCode).toBe(200);
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(md.headers['content-disposition']).toContain('filename="Fake book.md"');
    expect(md.body).toBe('# Fake\n\ntext');
  });

  it('asks for the PDF alone without OCR or with ocr=none, and names the file after the upload when the engine has no better name', async () => {
    const { t, engine, key } = await setup();
    engine.auto = true;
    engine.name = null;
    const a = await submit(t, key, [], 'Carnet de voyage.pdf');
    const b = await submit(t, key, [['ocr', 'none']]);
    await t.server.processor.tick();
    await t.server.processor.tick();
    expect(engine.calls.map((c) => c.options.exports)).toEqual(['pdf', 'pdf']);
    expect(engine.calls[0].options.ocr).toBeUndefined();
    expect(engine.calls[1].options.ocr).toBe('none');
    const res = await t.server.app.inject({ url: `/download/${a}/pdf` });
    expect(res.headers['content-disposition']).toContain('filename="Carnet de voyage.pdf"');
    expect((await t.server.app.inject({ url: `/download/${b}/md` })).statusCode).toBe(404);
  });

  it('claims the oldest pending job first', async () => {
    const { t, engine, key } = await setup();
    engine.auto = true;
    const ids = [await submit(t, key), await submit(t, key), await submit(t, key)];
    const order = [];
    for (let i = 0; i < 3; i++) order.push((await t.server.processor.tick())!.jobId);
    expect(order).toEqual(ids);
  });

  it('runs jobs in the background when the worker is started, without waiting for the tick', async () => {
    const { t, engine, key } = await setup({ startWorker: true, tickMs: 60_000 });
    engine.auto = true;
    const id = await submit(t, key);
    // The tick is a minute away: the submission itself wakes the worker.
    await waitFor(async () => (await check(t, key, id)).status === 'done', 5_000);
  });

  it('estimates pages_total from the pages per frame so far, and says which step the pages count in', () => {
    const seen: Array<{ pagesDone: number; pagesTotal: number | null; step: string }> = [];
    const track = progressTracker((p) => seen.push(p));
    track({ type: 'start', name: 'x', frames: 10 });
    track({ type: 'frame', framesDone: 1, framesTotal: 10, pagesDone: 2, input: 'a' });
    track({ type: 'frame', framesDone: 2, framesTotal: 10, pagesDone: 3, input: 'b' });
    track({ type: 'ocr', pagesDone: 1, pagesTotal: 3 });
    track({ type: 'export', format: 'pdf', path: 'x.pdf' });
    expect(seen).toEqual([
      { pagesDone: 0, pagesTotal: 10, step: 'pages' },
      { pagesDone: 2, pagesTotal: 20, step: 'pages' },
      { pagesDone: 3, pagesTotal: 15, step: 'pages' },
      { pagesDone: 1, pagesTotal: 3, step: 'ocr' },
      { pagesDone: 3, pagesTotal: 3, step: 'export' },
    ]);
  });
});

describe('cancelled', () => {
  it('cancels a pending job: files removed, the row stays and /list shows it', async () => {
    const { t, key } = await setup();
    const id = await submit(t, key);
    const res = await post(t, key, `/cancel/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ job_id: id, status: 'cancelled' });
    expect(await listTree(t.dataDir)).toEqual(['.uploads/']);
    expect((await t.server.app.inject({ url: `/list?api_key=${key}` })).json().jobs).toEqual([expect.objectContaining({ job_id: id, status: 'cancelled' })]);
    expect(await t.server.processor.tick()).toBeNull();
    const again = await post(t, key, `/cancel/${id}`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('not_cancellable');
  });

  it('cancels a processing job: it stops at the next frame boundary and leaves nothing on disk', async () => {
    const { t, engine, key } = await setup();
    const id = await submit(t, key);
    const running = t.server.processor.tick();
    await engine.atGate();
    engine.step();
    await engine.atGate();
    expect((await post(t, key, `/cancel/${id}`)).statusCode).toBe(200);
    expect(await running).toEqual({ jobId: id, status: 'cancelled' });
    expect(engine.calls).toHaveLength(1);
    expect(await listTree(t.dataDir)).toEqual(['.uploads/']);
    expect(await check(t, key, id)).toMatchObject({ status: 'cancelled', error: null });
    expect((await t.server.app.inject({ url: `/download/${id}/pdf` })).statusCode).toBe(404);
  });

  it('refuses to cancel a job that ended', async () => {
    const { t, engine, key } = await setup();
    engine.auto = true;
    const id = await submit(t, key);
    await t.server.processor.tick();
    const res = await post(t, key, `/cancel/${id}`);
    expect(res.statusCode).toBe(409);
    expect(await check(t, key, id)).toMatchObject({ status: 'done' });
    expect(await listTree(join(t.dataDir, id))).toEqual(['output.pdf']);
  });

  it('deletes a processing job: row and folder gone, and the worker does not bring them back', async () => {
    const { t, engine, key } = await setup();
    const id = await submit(t, key);
    const running = t.server.processor.tick();
    await engine.atGate();
    expect((await post(t, key, `/delete/${id}`)).json()).toEqual({ deleted: true });
    await running;
    expect(await listTree(t.dataDir)).toEqual(['.uploads/']);
    expect((await t.server.app.inject({ url: `/check/${id}?api_key=${key}` })).statusCode).toBe(404);
    expect(await t.server.store.getJob(id)).toBeNull();
  });
});

describe('a worker that died', () => {
  it('is found: its job is put back, its project cleaned, and run again from the start', async () => {
    const { t, engine, key } = await setup();
    engine.auto = true;
    const id = await submit(t, key);
    // Another server process on this host claimed it and was killed (SIGKILL) mid-job.
    expect(await t.server.store.claimNextJob(`${hostname()}:${deadPid()}:0badf00d`, Date.now())).toMatchObject({ jobId: id, attempts: 1 });
    await mkdir(join(t.dataDir, id, 'proj', 'pages'), { recursive: true });
    await writeFile(join(t.dataDir, id, 'proj', 'leftover.txt'), 'half a job');
    expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'done' });
    expect(engine.calls[0].leftoverSeen).toBe(false);
    expect(await t.server.store.getJob(id)).toMatchObject({ status: 'done', attempts: 2, workerId: null });
    expect(await listTree(join(t.dataDir, id))).toEqual(['output.pdf']);
  });

  it('on another host is found when its lease ran out; a live one is left alone', async () => {
    let now = Date.now();
    const { t, engine, key } = await setup({ clock: () => now });
    engine.auto = true;
    const id = await submit(t, key);
    // A worker elsewhere holds it with a lease of 300 ms, and says nothing more.
    await t.server.store.claimNextJob('elsewhere:4242:cafe', now, 300);
    expect(await t.server.processor.tick()).toBeNull();
    now += 300;
    expect(await t.server.processor.tick()).toBeNull();
    expect(await t.server.store.getJob(id)).toMatchObject({ status: 'processing', workerId: 'elsewhere:4242:cafe' });
    now += 1;
    expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'done' });
  });

  const crashedRuns = async (t: TestServer, id: string, attempts: number): Promise<void> => {
    await t.server.store.claimNextJob(`${hostname()}:${deadPid()}:0badf00d`, Date.now());
    // The runs before this one were interrupted too.
    await t.sql('UPDATE jobs SET attempts = ? WHERE job_id = ?', [attempts, id]);
    await mkdir(join(t.dataDir, id, 'proj', 'pages'), { recursive: true });
  };

  it('runs a job whose two runs were interrupted a third time', async () => {
    const { t, engine, key } = await setup();
    engine.auto = true;
    const id = await submit(t, key);
    await crashedRuns(t, id, 2);
    expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'done' });
    expect(await t.server.store.getJob(id)).toMatchObject({ attempts: 3 });
  });

  it('gives up after 3 interrupted attempts, saying why, and keeps the upload', async () => {
    const { t, engine, key } = await setup();
    engine.auto = true;
    const id = await submit(t, key);
    await crashedRuns(t, id, 3);
    expect(await t.server.processor.tick()).toBeNull();
    expect(engine.calls).toHaveLength(0);
    expect(await check(t, key, id)).toMatchObject({
      status: 'failed',
      error: 'The server stopped while converting this file 3 times, so Quire gave up on it.',
    });
    expect(interruptedMessage(3)).toBe('The server stopped while converting this file 3 times, so Quire gave up on it.');
    expect(await listTree(join(t.dataDir, id))).toEqual(['input.pdf']);
  });
});

describe('shutdown', () => {
  it('puts the running job back to pending at a frame boundary, refunds the attempt, and the next start runs it', async () => {
    const { t, engine, key } = await setup();
    const id = await submit(t, key);
    const running = t.server.processor.tick();
    await engine.atGate();
    engine.step();
    await engine.atGate();
    await t.server.close();
    expect(await running).toEqual({ jobId: id, status: 'pending' });
    expect(await listTree(join(t.dataDir, id))).toEqual(['input.pdf']);

    const engine2 = new FakeEngine();
    engine2.auto = true;
    const t2 = await testServer({ engine: engine2 }, t.dir);
    open.push(t2);
    expect(await t2.server.store.getJob(id)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await t2.server.processor.tick()).toEqual({ jobId: id, status: 'done' });
  });

  it('refuses uploads with 503 while it waits, and gives up waiting after the grace period', async () => {
    const { t, engine, key } = await setup({ shutdownGraceMs: 400 });
    engine.stubborn = true;
    const id = await submit(t, key);
    const running = t.server.processor.tick().catch(() => null);
    await engine.atGate();
    const closing = t.server.close();
    const refused = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', key],
        ['file', { name: 'late.pdf', data: PDF }],
      ]),
    });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error.code).toBe('shutting_down');
    expect((await t.server.app.inject({ url: '/health' })).statusCode).toBe(200);
    await closing;
    engine.step();
    await running;
    expect(await t.sql('SELECT status, attempts, worker_id FROM jobs WHERE job_id = ?', [id])).toEqual([{ status: 'pending', attempts: 0, worker_id: null }]);
    expect(await t.sql('SELECT COUNT(*) AS n FROM jobs')).toEqual([{ n: 1 }]);
  });
});

describe('two workers on one database', () => {
  it('never claim the same job', async () => {
    const { t, engine, key } = await setup();
    engine.auto = true;
    const other = await testServer({ engine: engine }, t.dir);
    open.push(other);
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add(await submit(t, key));
    const claimed: string[] = [];
    const loop = async (s: TestServer): Promise<void> => {
      for (;;) {
        const r = await s.server.processor.tick();
        if (!r) return;
        claimed.push(r.jobId);
      }
    };
    await Promise.all([loop(t), loop(other)]);
    expect(claimed.sort()).toEqual([...ids].sort());
    const byWorker = new Set(engine.calls.map((c) => c.input));
    expect(byWorker.size).toBe(20);
  });
});

describe('leftovers', () => {
  it('are swept at start: partial uploads, folders without a job, folders of cancelled jobs; recent ones stay', async () => {
    const { t, key } = await setup();
    const cancelled = await submit(t, key);
    const kept = await submit(t, key);
    await t.server.store.cancelJob(cancelled, 1, Date.now());
    await t.server.close();
    const old = new Date(Date.now() - 3_600_000);
    const orphan = join(t.dataDir, 'ZZZZZZZZZZZZZZZZZZZZZZ');
    await mkdir(orphan);
    await writeFile(join(orphan, 'input.pdf'), PDF);
    await utimes(orphan, old, old);
    await writeFile(join(t.dataDir, '.uploads', 'old.part'), 'x');
    await utimes(join(t.dataDir, '.uploads', 'old.part'), old, old);
    await writeFile(join(t.dataDir, '.uploads', 'new.part'), 'x');
    await mkdir(join(t.dataDir, 'YYYYYYYYYYYYYYYYYYYYYY'));
    const t2 = await testServer({}, t.dir);
    open.push(t2);
    expect(await listTree(t.dataDir)).toEqual(['.uploads/', '.uploads/new.part', 'YYYYYYYYYYYYYYYYYYYYYY/', `${kept}/`, `${kept}/input.pdf`].sort());
    expect(await readFile(join(t.dataDir, kept, 'input.pdf'))).toHaveLength(PDF.length);
  });
});

describe('ocr_pending (the remote batch of the next issue)', () => {
  it('is polled by /check and /get, and its batch cancelled before /cancel and /delete', async () => {
    const polled: string[] = [];
    const cancelled: string[] = [];
    let tRef: TestServer | null = null;
    const park = (id: string, status = 'ocr_pending') => tRef!.sql('UPDATE jobs SET status = ? WHERE job_id = ?', [status, id]);
    const { t, key } = await setup({
      ocrBatch: {
        async poll(job) {
          polled.push(job.jobId);
          // The batch result arrived: the poller finishes the job.
          await park(job.jobId, 'done');
        },
        async cancel(job) {
          cancelled.push(job.jobId);
        },
      },
    });
    tRef = t;
    // Answered from the database at once; the poll runs behind the answer, and a later look sees its result.
    const a = await submit(t, key);
    await park(a);
    expect(await check(t, key, a)).toMatchObject({ status: 'ocr_pending' });
    await waitFor(async () => (await check(t, key, a)).status === 'done');
    const g = await submit(t, key);
    await park(g);
    const getJob = async () => (await t.server.app.inject({ url: `/get/${g}?api_key=${key}` })).json<{ status: string }>();
    expect(await getJob()).toMatchObject({ status: 'ocr_pending' });
    await waitFor(async () => (await getJob()).status === 'done');
    expect(polled).toEqual([a, g]);

    const b = await submit(t, key);
    await park(b);
    expect((await post(t, key, `/cancel/${b}`)).json()).toEqual({ job_id: b, status: 'cancelled' });
    const c = await submit(t, key);
    await park(c);
    expect((await post(t, key, `/delete/${c}`)).json()).toEqual({ deleted: true });
    expect(cancelled).toEqual([b, c]);
  });
});
