/**
 * The data folder on a small tmpfs that the test fills up: an upload is refused with 507 before its body (or when
 * the disk fills under it), and a job that meets a full disk waits and runs again — never a permanent failure for a
 * transient cause. Mounting needs root; under CI=true a failed mount fails the test, it is never skipped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, open, rm, statfs } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISK_FULL_NOTICE } from '../../src/server/job-runner.js';
import { FakeEngine } from './fake-engine.js';
import { listTree, multipart, testServer, type TestServer } from './helpers.js';

const MB = 1024 * 1024;
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
let root: string;
let disk: string;
let mounted = false;
let mountError = '';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'quire-disk-full-'));
  disk = join(root, 'disk');
  execFileSync('mkdir', ['-p', disk]);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', disk], { stdio: 'pipe' });
    mounted = true;
  } catch (e) {
    mountError = String((e as { stderr?: Buffer }).stderr ?? e);
  }
});

afterAll(async () => {
  if (mounted) execFileSync('umount', ['-l', disk]);
  await rm(root, { recursive: true, force: true });
});

/** Fill the disk until `leave` bytes are free (0: until a write fails). */
async function fill(name: string, leave: number): Promise<void> {
  const file = await open(join(disk, name), 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) {
      const s = await statfs(disk);
      const free = s.bavail * s.bsize;
      if (free <= leave) return;
      await file.write(chunk.subarray(0, Math.min(chunk.length, Math.max(4096, free - leave))));
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    await file.close();
  }
}

const ready = (): void => {
  if (!mounted && process.env.CI === 'true') throw new Error(`a tmpfs could not be mounted (run as root): ${mountError}`);
};

describe.skipIf(process.env.CI !== 'true' && process.getuid?.() !== 0)('a full disk', () => {
  let t: TestServer;
  let engine: FakeEngine;
  let key: string;
  /** The server's clock, moved by the test. */
  let now = Date.now();

  beforeAll(async () => {
    ready();
    engine = new FakeEngine();
    t = await testServer({ engine, dataDir: join(disk, 'server_data'), limits: { minFreeDisk: 1 * MB }, retryMs: 60_000, clock: () => now });
    key = await t.newKey();
  });
  afterAll(() => t?.close());

  it('refuses an upload that would not fit with 507 and Retry-After, before its body; one that fills the disk as it comes too', async () => {
    await fill('filler-1', 2 * MB);
    // Declared 1.5 MB, and the disk must keep 1 MB free: refused on its headers.
    const big = multipart([
      ['api_key', key],
      ['file', { name: 'big.pdf', data: Buffer.alloc(1.5 * MB, 0x41) }],
    ]);
    const res = await t.server.app.inject({ method: 'POST', url: '/run', ...big });
    expect(res.statusCode).toBe(507);
    expect(res.json().error).toEqual({ code: 'disk_full', message: 'The server is short of disk space and cannot take this upload now; try again later.' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);

    // Sent without a length (chunked), it is taken in until the disk is full: a 507 all the same, nothing kept.
    await fill('filler-2', 0);
    await rm(join(disk, 'filler-2'));
    await fill('filler-2', 1.2 * MB);
    const address = await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const form = multipart([
        ['api_key', key],
        ['file', { name: 'stream.pdf', data: Buffer.alloc(3 * MB, 0x42) }],
      ]);
      const req = request(`${address}/run`, { method: 'POST', headers: { ...form.headers, 'transfer-encoding': 'chunked' } }, (r) => {
        let body = '';
        r.on('data', (d: Buffer) => (body += d.toString()));
        r.on('end', () => resolve({ status: r.statusCode!, body }));
      });
      req.on('error', reject);
      for (let i = 0; i < form.payload.length; i += 256 * 1024) req.write(form.payload.subarray(i, i + 256 * 1024));
      req.end();
    });
    expect(answer.status).toBe(507);
    expect(JSON.parse(answer.body).error.code).toBe('disk_full');
    expect(await listTree(join(t.dataDir, '.uploads'))).toEqual([]);
    expect(await t.server.store.listJobs((await t.server.store.listKeys())[0].keyId)).toEqual([]);
    await rm(join(disk, 'filler-1'));
    await rm(join(disk, 'filler-2'));
  });

  it('keeps a job pending while the disk is full, and puts one that meets a full disk back with a notice; it runs once there is room', async () => {
    const res = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', key],
        ['file', { name: 'book.pdf', data: PDF }],
      ]),
    });
    const id = res.json<{ job_id: string }>().job_id;

    // Less free than the server keeps: no job starts.
    await fill('filler', 512 * 1024);
    expect(await t.server.processor.runNext()).toBeNull();
    expect((await t.server.store.getJob(id))!.status).toBe('pending');
    await rm(join(disk, 'filler'));

    // Room at the start, none a frame later: the job goes back to pending, its attempt given back, saying why.
    const running = t.server.processor.runNext();
    await engine.atGate();
    await fill('filler', 0);
    engine.auto = true;
    engine.step();
    expect(await running).toEqual({ jobId: id, status: 'pending' });
    const check = (await t.server.app.inject({ url: `/check/${id}?api_key=${key}` })).json();
    expect(check).toEqual({ job_id: id, status: 'pending', error: null, progress: { pages_done: 0, pages_total: null, step: null }, notice: DISK_FULL_NOTICE });
    expect(await t.server.store.getJob(id)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(existsSync(join(t.dataDir, id, 'proj'))).toBe(false);

    await rm(join(disk, 'filler'));
    // Put back for a minute: not taken before then.
    expect(await t.server.processor.runNext()).toBeNull();
    now += 60_000;
    expect(await t.server.processor.runNext()).toEqual({ jobId: id, status: 'done' });
    expect((await t.server.app.inject({ url: `/check/${id}?api_key=${key}` })).json()).toMatchObject({ status: 'done', error: null });
    expect((await t.server.app.inject({ url: `/check/${id}?api_key=${key}` })).json().notice).toBeUndefined();
  });
});
