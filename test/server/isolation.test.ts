/**
 * `quire server` as its own process (the built CLI: `npm run build` first), fed hostile inputs: each job runs in a
 * process of its own with a memory ceiling, so the server's own memory stays flat and it keeps answering. Its
 * peak resident size (VmHWM) is read from /proc.
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleFiles, declaredJpeg, jpeg, writeBundleZip } from '../ingest/fixtures.js';
import { waitFor } from './helpers.js';
import { adminSecretIn, quire, startServer, type ServerProcess } from './server-process.js';
import { sqlIn, STORE } from './stores.js';

/** Every row of every table of a PostgreSQL test database. */
async function everyRow(home: string): Promise<unknown[]> {
  const tables = await sqlIn(home, 'SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()');
  expect(tables.length).toBeGreaterThanOrEqual(6);
  return Promise.all(tables.map((t) => sqlIn(home, `SELECT * FROM ${String(t.table_name)}`)));
}

const MB = 1024 * 1024;
const homes: string[] = [];
const servers: ServerProcess[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
  for (const h of homes.splice(0)) await rm(h, { recursive: true, force: true });
});

async function newHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'quire-isolation-'));
  homes.push(home);
  return home;
}

async function newKey(server: ServerProcess, secret: string): Promise<string> {
  const res = await fetch(`${server.address}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}` },
    body: new URLSearchParams({ email: 'reader@example.org' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { api_key: string }).api_key;
}

async function submit(server: ServerProcess, key: string, name: string, data: Buffer): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(data)]), name);
  const res = await fetch(`${server.address}/run`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { job_id: string }).job_id;
}

async function ended(server: ServerProcess, key: string, id: string): Promise<{ status: string; error: string | null }> {
  return waitFor(
    async () => {
      const job = (await (await fetch(`${server.address}/check/${id}`, { headers: { 'x-api-key': key } })).json()) as { status: string; error: string | null };
      return job.status === 'done' || job.status === 'failed' ? { status: job.status, error: job.error } : null;
    },
    120_000,
    200,
  );
}

async function bundle(dir: string, name: string, image: { file: string; data: Buffer }): Promise<Buffer> {
  const path = join(dir, name);
  await writeBundleZip(path, bundleFiles({ images: [{ index: 1, ...image }] }));
  return readFile(path);
}

describe('a hostile input fails its job, never the server', () => {
  it('pixel bomb: refused from its header with one sentence; a job past the memory ceiling fails alone; the server stays small and answers', async () => {
    const home = await newHome();
    // A ceiling low enough for a test image to pass it; the default is 1.5 GiB.
    expect((await quire(home, ['server', 'config', 'set', 'limits', '{"job_memory":"300M"}'])).code).toBe(0);
    const server = await startServer(home);
    servers.push(server);
    const key = await newKey(server, adminSecretIn(server.stdout())!);
    const before = server.memory();

    // 1. The bomb: a bundle of about a kilobyte whose page declares 16000×9000.
    const bomb = await bundle(home, 'bomb.aglbundle', { file: 'images/0001.jpg', data: await declaredJpeg(16000, 9000) });
    expect(bomb.length).toBeLessThan(1500);
    const bombJob = await submit(server, key, 'bomb.aglbundle', bomb);
    expect(await ended(server, key, bombJob)).toEqual({
      status: 'failed',
      error: 'bomb.aglbundle: page 1 (images/0001.jpg) is 16000×9000 pixels, more than the 60 megapixels Quire accepts.',
    });

    // 2. Under the pixel limit, but more memory than the ceiling: a 7000×7000 page (49 megapixels, 150 KB as PNG).
    const page = await sharp({ create: { width: 7000, height: 7000, channels: 3, background: '#999' } })
      .greyscale()
      .png({ compressionLevel: 9 })
      .toBuffer();
    const heavy = await bundle(home, 'heavy.aglbundle', { file: 'images/0001.png', data: page });
    const heavyJob = await submit(server, key, 'heavy.aglbundle', heavy);
    expect(await ended(server, key, heavyJob)).toEqual({
      status: 'failed',
      error: 'heavy.aglbundle needed more memory than the job limit of 300.0 MiB, so Quire stopped converting it.',
    });

    // 3. The server is as it was: alive, answering, and its own peak memory never went near either.
    expect((await fetch(`${server.address}/health`)).status).toBe(200);
    const after = server.memory();
    expect(after.peak - before.peak, `server peak grew from ${before.peak / MB} to ${after.peak / MB} MB`).toBeLessThan(64 * MB);
    expect(after.peak).toBeLessThan(300 * MB);

    // 4. And the next ordinary job runs.
    const fine = await bundle(home, 'fine.aglbundle', { file: 'images/0001.jpg', data: await jpeg(800, 600) });
    expect((await ended(server, key, await submit(server, key, 'fine.aglbundle', fine))).status).toBe('done');
    expect(server.child.exitCode).toBeNull();
  }, 240_000);
});

describe('the admin secret', () => {
  it('is kept as a hash, printed only when made, rotatable; the SMTP password is not in the database either', async () => {
    const home = await newHome();
    const first = await startServer(home);
    const secret = adminSecretIn(first.stdout());
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await first.stop()).toBe(0);
    expect((await quire(home, ['server', 'config', 'set', 'smtp', '{"host":"mail.example.org","user":"me","password":"hunter2-secret"}'])).code).toBe(0);

    // Not in the database (the SQLite file and its log; every row of every table on PostgreSQL), in any form but its hash.
    const db = STORE === 'sqlite' ? await readFile(join(home, 'quire-server.db')) : Buffer.from(JSON.stringify(await everyRow(home)));
    expect(db.includes(Buffer.from(secret!))).toBe(false);
    expect(db.includes(Buffer.from('hunter2-secret'))).toBe(false);
    const { createHash } = await import('node:crypto');
    expect(db.includes(Buffer.from(createHash('sha256').update(secret!).digest('hex')))).toBe(true);
    // The password sits in the secret store beside it, readable by its owner only.
    const env = join(home, '.env');
    expect(await readFile(env, 'utf8')).toMatch(/^QUIRE_PLUGIN__QUIRE_SERVER__SMTP_PASSWORD="?hunter2-secret"?$/m);
    expect(((await import('node:fs')).statSync(env).mode & 0o777).toString(8)).toBe('600');

    // A second start does not print it, and it still works, as a header too.
    const second = await startServer(home);
    servers.push(second);
    expect(second.stdout()).not.toContain(secret!);
    expect(adminSecretIn(second.stdout())).toBeNull();
    expect(second.stdout()).toMatch(/^Admin panel: http:\/\/127\.0\.0\.1:\d+\/admin$/m);
    expect((await fetch(`${second.address}/admin`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
    expect(await second.stop()).toBe(0);
    servers.splice(0);

    // Rotation: a new secret printed once; the old one stops working.
    const third = await startServer(home, ['--rotate-admin-secret']);
    servers.push(third);
    const rotated = adminSecretIn(third.stdout());
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated).not.toBe(secret);
    expect((await fetch(`${third.address}/admin`, { headers: { 'x-admin-secret': secret! } })).status).toBe(401);
    expect((await fetch(`${third.address}/admin`, { headers: { 'x-admin-secret': rotated! } })).status).toBe(200);
  }, 180_000);
});
