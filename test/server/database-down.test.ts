/**
 * The database goes away under a running server: API routes answer 503 `database_unavailable` with Retry-After
 * (never a 500), and answer normally once it is back. On PostgreSQL the server reaches its database through a
 * loopback relay the test cuts; on SQLite another connection holds the write lock past the busy timeout.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { SqliteDatabase as Database } from '../../src/settings/index.js';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { multipart, testServer, type TestServer } from './helpers.js';
import { databaseUrlFor, STORE } from './stores.js';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
let t: TestServer | undefined;
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await t?.close();
  t = undefined;
});

/** A TCP relay to `target` that the test can cut (every connection dropped, new ones refused) and restore. */
async function relay(target: { host: string; port: number }): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const listen = async (): Promise<void> => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    port = (server.address() as { port: number }).port;
  };
  await listen();
  return {
    port,
    async cut() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    restore: listen,
  };
}

it('answers 503 database_unavailable with Retry-After on API routes while the database is down, and normally once it is back', async () => {
  let down: () => Promise<void>;
  let up: () => Promise<void>;
  if (STORE === 'postgres') {
    const dir = (await import('node:fs/promises')).mkdtemp(join((await import('node:os')).tmpdir(), 'quire-server-'));
    const root = await dir;
    const direct = new URL((await databaseUrlFor(root))!);
    const r = await relay({ host: direct.hostname, port: Number(direct.port) });
    const through = new URL(direct);
    through.hostname = '127.0.0.1';
    through.port = String(r.port);
    t = await testServer({ databaseUrl: through.toString() }, root);
    cleanups.push(() => import('node:fs/promises').then((fs) => fs.rm(root, { recursive: true, force: true })));
    down = r.cut;
    up = r.restore;
  } else {
    t = await testServer();
    // Another process's long write: the server's writes wait out their busy timeout, then find the database locked.
    const other = new Database(join(t.dir, 'quire-server.db'));
    cleanups.push(() => void other.close());
    down = async () => void other.exec('BEGIN IMMEDIATE');
    up = async () => void other.exec('COMMIT');
  }
  const server = t;
  const key = await server.newKey();
  const job = (
    await server.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', key],
        ['file', { name: 'a.pdf', data: PDF }],
      ]),
    })
  ).json<{ job_id: string }>().job_id;

  await down();
  const calls = [
    () => server.server.app.inject({ method: 'POST', url: `/cancel/${job}`, headers: { 'x-api-key': key } }),
    () =>
      server.server.app.inject({
        method: 'POST',
        url: '/run',
        ...multipart([
          ['api_key', key],
          ['file', { name: 'b.pdf', data: PDF }],
        ]),
      }),
    ...(STORE === 'postgres'
      ? [() => server.server.app.inject({ url: '/list', headers: { 'x-api-key': key } }), () => server.server.app.inject({ url: '/health' })]
      : []),
  ];
  for (const call of calls) {
    const res = await call();
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().error).toEqual({ code: 'database_unavailable', message: 'The job database does not answer; try again in a moment.' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  }

  await up();
  const cancelled = await server.server.app.inject({ method: 'POST', url: `/cancel/${job}`, headers: { 'x-api-key': key } });
  expect(cancelled.statusCode, cancelled.body).toBe(200);
  expect((await server.server.app.inject({ url: '/health' })).statusCode).toBe(200);
});

it('gives up on a statement another connection holds up, by its timeout, with 503 database_unavailable', async () => {
  t = await testServer({ statementTimeoutMs: 500 });
  const server = t;
  const key = await server.newKey();
  let hold: () => Promise<void>;
  let release: () => Promise<void>;
  if (STORE === 'postgres') {
    const other = new pg.Client(server.databaseUrl);
    await other.connect();
    cleanups.push(() => other.end());
    hold = async () => void (await other.query('BEGIN; LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE'));
    release = async () => void (await other.query('COMMIT'));
  } else {
    // SQLite's busy timeout (5 s) plays the statement timeout's part for a write held up by another's.
    const other = new Database(join(server.dir, 'quire-server.db'));
    cleanups.push(() => void other.close());
    hold = async () => void other.exec('BEGIN IMMEDIATE');
    release = async () => void other.exec('COMMIT');
  }
  const job = (
    await server.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', key],
        ['file', { name: 'a.pdf', data: PDF }],
      ]),
    })
  ).json<{ job_id: string }>().job_id;
  await hold();
  const started = Date.now();
  const res = await server.server.app.inject({ method: 'POST', url: `/cancel/${job}`, headers: { 'x-api-key': key } });
  expect(res.statusCode, res.body).toBe(503);
  expect(res.json().error.code).toBe('database_unavailable');
  expect(Date.now() - started).toBeLessThan(15_000);
  await release();
  expect((await server.server.app.inject({ method: 'POST', url: `/cancel/${job}`, headers: { 'x-api-key': key } })).statusCode).toBe(200);
});
