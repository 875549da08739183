import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SqliteDatabase as Database } from '../../src/settings/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { pdfPageCount, QUIRE_BIN, ROOT, SAMPLE } from '../helpers.js';
import { longerBook, waitFor } from './helpers.js';

// These run the built CLI (`npm run build` first), as a user would: `quire server` as its own process.
// QUIRE_SERVER_BIN runs them against another launcher of the same build.
const BIN = process.env.QUIRE_SERVER_BIN ?? QUIRE_BIN;

interface Running {
  child: ChildProcess;
  address: string;
  adminUrl: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const homes: string[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const h of homes.splice(0)) await rm(h, { recursive: true, force: true });
});

async function newHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'quire-home-'));
  homes.push(home);
  return home;
}

/** Start `quire server` on a free port and read the two lines it prints. */
async function startServer(home: string): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'server', '--port', '0', '--workers', '2'], {
    env: { ...process.env, QUIRE_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(async () => /Admin panel: .*\n/.test(out) || child.exitCode !== null, 90_000);
  const address = /^Quire server listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
  const adminUrl = /^Admin panel: (\S+)$/m.exec(out)?.[1];
  if (!address || !adminUrl) throw new Error(`server did not start:\n${out}\n${err}`);
  return { child, address, adminUrl, stderr: () => err, exited };
}

async function createKey(server: Running): Promise<string> {
  const form = new FormData();
  form.set('email', 'reader@example.org');
  const url = new URL(server.adminUrl);
  const res = await fetch(`${server.address}/admin/keys${url.search}`, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { api_key: string }).api_key;
}

async function upload(server: Running, key: string, book?: Buffer): Promise<string> {
  const form = new FormData();
  form.set('api_key', key);
  form.set('file', new Blob([new Uint8Array(book ?? (await readFile(SAMPLE)))]), 'sample.aglbundle');
  const res = await fetch(`${server.address}/run`, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { job_id: string }).job_id;
}

async function status(server: Running, key: string, id: string): Promise<{ status: string; error: string | null; progress: { pages_done: number } }> {
  return (await fetch(`${server.address}/check/${id}?api_key=${key}`)).json() as Promise<{
    status: string;
    error: string | null;
    progress: { pages_done: number };
  }>;
}

function row(home: string, id: string): Record<string, unknown> {
  const db = new Database(join(home, 'quire-server.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT status, attempts, worker_id, error FROM jobs WHERE job_id = ?').get(id) as Record<string, unknown>;
  } finally {
    db.close();
  }
}

describe('quire server', () => {
  it('end to end: starts, takes a key and an upload from a real multipart client, converts it, serves the PDF, stops on SIGTERM', async () => {
    const home = await newHome();
    const server = await startServer(home);
    expect(server.adminUrl).toMatch(new RegExp(`^${server.address}/admin\\?secret=[A-Za-z0-9_-]{43}$`));
    // The link with the secret signs the browser in with a cookie, and takes the secret out of the address.
    const visit = await fetch(server.adminUrl, { redirect: 'manual' });
    expect(visit.status).toBe(303);
    const cookie = visit.headers.get('set-cookie')!.split(';')[0];
    expect((await fetch(`${server.address}/admin`, { headers: { cookie } })).status).toBe(200);
    const key = await createKey(server);
    const id = await upload(server, key);
    await waitFor(async () => (await status(server, key, id)).status === 'done', 60_000, 200);

    const get = (await (await fetch(`${server.address}/get/${id}?api_key=${key}`)).json()) as { pdf_url: string; md_url: string | null };
    expect(get.pdf_url).toBe(`${server.address}/download/${id}/pdf`);
    expect(get.md_url).toBeNull();
    const pdf = await fetch(get.pdf_url);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-disposition')).toContain('Quire%20sample.pdf');
    const path = join(home, 'downloaded.pdf');
    await writeFile(path, Buffer.from(await pdf.arrayBuffer()));
    expect(pdfPageCount(path)).toBe(6);
    const head = await fetch(get.pdf_url, { headers: { range: 'bytes=0-4' } });
    expect(head.status).toBe(206);
    expect(await head.text()).toBe('%PDF-');

    expect(existsSync(join(home, 'quire-server.db'))).toBe(true);
    expect(existsSync(join(home, 'server_data', id, 'output.pdf'))).toBe(true);
    expect(existsSync(join(home, 'server_data', id, 'proj'))).toBe(false);

    // A second server on the same port says so and stops.
    const port = new URL(server.address).port;
    const clash = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, [BIN, 'server', '--port', port], { env: { ...process.env, QUIRE_HOME: home } }, (err, _stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }),
      ),
    );
    expect(clash).toEqual({ code: 2, stderr: `quire: 127.0.0.1:${port} is already in use; stop what listens there or choose another --port.\n` });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // The database was closed cleanly: SQLite folds its write-ahead log back in on the last close.
    expect(existsSync(join(home, 'quire-server.db-wal'))).toBe(false);
  });

  it('killed (SIGKILL) while processing, comes back, cleans the project and runs the job again from the start', async () => {
    const home = await newHome();
    const first = await startServer(home);
    const key = await createKey(first);
    const id = await upload(first, key);
    // Budgets for a loaded machine (CI at a load of 20 took more than 10 s from 'processing' to the project folder).
    await waitFor(async () => (await status(first, key, id)).status === 'processing', 60_000, 20);
    await waitFor(async () => existsSync(join(home, 'server_data', id, 'proj')), 60_000, 20);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(row(home, id)).toMatchObject({ status: 'processing', attempts: 1 });

    const second = await startServer(home);
    await waitFor(async () => (await status(second, key, id)).status === 'done', 120_000, 200);
    expect(row(home, id)).toMatchObject({ status: 'done', attempts: 2, worker_id: null });
    expect(existsSync(join(home, 'server_data', id, 'proj'))).toBe(false);
    const path = join(home, 'server_data', id, 'output.pdf');
    expect(pdfPageCount(path)).toBe(6);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 300_000);

  it('on SIGTERM puts the running job back to pending, removes its project and exits cleanly', async () => {
    const home = await newHome();
    const server = await startServer(home);
    const key = await createKey(server);
    // A longer book than the sample, signalled once its first pages are done: frames are still ahead, so the stop
    // always lands mid-job (with the 3-frame sample, a loaded machine could finish the job before the signal).
    const id = await upload(server, key, await longerBook(4));
    await waitFor(async () => (await status(server, key, id)).progress.pages_done >= 2, 60_000, 20);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toContain('SIGTERM received');
    // The database was closed cleanly (checked before this test opens it again, which makes a new log).
    expect(existsSync(join(home, 'quire-server.db-wal'))).toBe(false);
    expect(row(home, id)).toEqual({ status: 'pending', attempts: 0, worker_id: null, error: null });
    expect(existsSync(join(home, 'server_data', id, 'proj'))).toBe(false);
    expect(existsSync(join(home, 'server_data', id, 'input.zip'))).toBe(true);
  });

  it('two worker processes on one database never claim the same job', async () => {
    const home = await newHome();
    const dbPath = join(home, 'quire-server.db');
    const storeUrl = pathToFileURL(join(ROOT, 'dist', 'server', 'sqlite-store.js')).href;
    const { openSqliteStore } = (await import(storeUrl)) as typeof import('../../src/server/sqlite-store.js');
    const store = openSqliteStore(dbPath);
    const key = await store.createKey('a@example.org', 'h', Date.now());
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      const id = `job${String(i).padStart(19, '0')}`;
      await store.insertJob({ jobId: id, keyId: key.keyId, emailNotif: false, ocr: null, dpi: null, uploadName: 'a.pdf', inputExt: 'pdf' }, Date.now());
      ids.push(id);
    }
    await store.close();
    // Each process claims as fast as it can until the queue is empty, then prints what it got.
    const script = join(home, 'claim.mjs');
    await writeFile(
      script,
      `const { openSqliteStore } = await import(${JSON.stringify(storeUrl)});
const store = openSqliteStore(process.argv[2]);
const got = [];
for (;;) { const job = await store.claimNextJob('w' + process.pid, Date.now()); if (!job) break; got.push(job.jobId); }
await store.close();
process.stdout.write(JSON.stringify(got));`,
    );
    const claimOnce = () =>
      new Promise<string[]>((resolve, reject) =>
        execFile(process.execPath, [script, dbPath], (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout) as string[]))),
      );
    const [a, b] = await Promise.all([claimOnce(), claimOnce()]);
    expect([...a, ...b].sort()).toEqual(ids);
    expect(new Set([...a, ...b]).size).toBe(300);
  });

  it('sets and shows smtp and base_url from the command line', async () => {
    const home = await newHome();
    const quire = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [BIN, ...args], { env: { ...process.env, QUIRE_HOME: home } }, (err, stdout, stderr) =>
          resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    expect(
      await quire(['server', 'config', 'set', 'smtp', '{"host":"mail.example.org","port":587,"user":"me","password":"hunter2","from":"q@example.org"}']),
    ).toMatchObject({ code: 0, stdout: 'smtp set\n' });
    const shown = await quire(['server', 'config', 'get', 'smtp']);
    expect(shown.stdout).toBe('{"host":"mail.example.org","port":587,"user":"me","password":"********","from":"q@example.org"}\n');
    expect(await quire(['server', 'config', 'set', 'base_url', 'https://quire.example.org/'])).toMatchObject({
      code: 0,
      stdout: 'base_url set to https://quire.example.org\n',
    });
    const bad = await quire(['server', 'config', 'set', 'smtp', '{"port":25}']);
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain('needs a "host"');
  });
});
