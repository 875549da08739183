import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../helpers.js';
import { loadMigrations, splitStatements } from '../../src/server/migrations.js';
import { openSqliteStore } from '../../src/server/sqlite-store.js';
import type { JobStore, NewJob } from '../../src/server/store.js';
import { jobSummary } from '../../src/server/views.js';

const job = (jobId: string, keyId: number, extra: Partial<NewJob> = {}): NewJob => ({
  jobId,
  keyId,
  emailNotif: false,
  ocr: null,
  dpi: null,
  uploadName: 'a.pdf',
  inputExt: 'pdf',
  ...extra,
});

async function withStore<T>(fn: (store: JobStore, path: string) => Promise<T>): Promise<T> {
  return withTempDir(async (dir) => {
    const path = join(dir, 'quire-server.db');
    const store = openSqliteStore(path);
    try {
      return await fn(store, path);
    } finally {
      await store.close();
    }
  });
}

describe('the SQLite store', () => {
  it('creates the three tables of the spec (and the admin sessions), once: opening again applies nothing twice', async () => {
    await withStore(async (store, path) => {
      await store.setConfig('base_url', 'https://x');
      const again = openSqliteStore(path);
      expect(await again.getConfig('base_url')).toBe('https://x');
      await again.close();
      const db = new Database(path, { readonly: true });
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
      expect(tables).toEqual(['admin_sessions', 'api_keys', 'config', 'jobs', 'schema_migrations']);
      expect(db.prepare('SELECT version FROM schema_migrations').all()).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      db.close();
    });
  });

  it('keeps the first value of a set-once config entry', async () => {
    await withStore(async (store) => {
      expect(await store.setConfigOnce('admin_secret', 'first')).toBe('first');
      expect(await store.setConfigOnce('admin_secret', 'second')).toBe('first');
      await store.deleteConfig('admin_secret');
      expect(await store.getConfig('admin_secret')).toBeNull();
    });
  });

  it('numbers keys from 1, finds only active ones, and keeps the first revocation time', async () => {
    await withStore(async (store) => {
      const a = await store.createKey('a@x.org', 'ha', 1000);
      const b = await store.createKey('b@x.org', 'hb', 2000);
      expect([a.keyId, b.keyId]).toEqual([1, 2]);
      expect(await store.findActiveKey('ha')).toEqual({ keyId: 1, email: 'a@x.org', created: 1000, revoked: null });
      expect(await store.revokeKey(1, 3000)).toMatchObject({ revoked: 3000 });
      expect(await store.revokeKey(1, 4000)).toMatchObject({ revoked: 3000 });
      expect(await store.findActiveKey('ha')).toBeNull();
      expect(await store.revokeKey(9, 4000)).toBeNull();
      await expect(store.createKey('c@x.org', 'hb', 5000)).rejects.toThrow(/UNIQUE/);
    });
  });

  it('lists a key’s jobs newest first, as JSON identical to the view the API documents', async () => {
    await withStore(async (store) => {
      await store.createKey('a@x.org', 'ha', 1);
      await store.createKey('b@x.org', 'hb', 1);
      await store.insertJob(job('j1', 1, { ocr: 'auto' }), 1_700_000_000_123);
      await store.insertJob(job('j2', 2), 1_700_000_000_200);
      await store.insertJob(job('j3', 1), 1_700_000_000_999);
      await store.claimNextJob('w', 1_700_000_001_000);
      await store.finishJob('j1', 'w', { status: 'failed', error: 'It said "no" — in “quotes”, and a \\ backslash.' }, 1_700_000_002_005);
      const jobs = await store.listJobs(1);
      expect(jobs.map((j) => j.jobId)).toEqual(['j3', 'j1']);
      expect(JSON.parse(await store.listJobsJson(1))).toEqual(jobs.map(jobSummary));
      expect(JSON.parse(await store.listJobsJson(1))[1]).toEqual({
        job_id: 'j1',
        status: 'failed',
        created: '2023-11-14T22:13:20.123Z',
        updated: '2023-11-14T22:13:22.005Z',
        ocr: 'auto',
        error: 'It said "no" — in “quotes”, and a \\ backslash.',
      });
      expect(JSON.parse(await store.listJobsJson(1, 1))).toHaveLength(1);
      expect(await store.listJobsJson(3)).toBe('[]');
    });
  });

  it('claims in submission order, once each, and only for the worker holding the job may it end it', async () => {
    await withStore(async (store) => {
      await store.createKey('a@x.org', 'ha', 1);
      for (const id of ['a', 'b', 'c']) await store.insertJob(job(id, 1), 5);
      const first = await store.claimNextJob('w1', 10);
      const second = await store.claimNextJob('w2', 10);
      expect([first?.jobId, second?.jobId]).toEqual(['a', 'b']);
      expect(first).toMatchObject({ status: 'processing', workerId: 'w1', attempts: 1, heartbeat: 10 });
      expect(await store.finishJob('a', 'w2', { status: 'done', docName: 'x', hasMd: false, pages: 1 }, 11)).toBe(false);
      expect(await store.heartbeat('a', 'w2', 11)).toBe(false);
      expect(await store.heartbeat('a', 'w1', 12, { pagesDone: 2, pagesTotal: 4 })).toBe(true);
      expect(await store.getJob('a')).toMatchObject({ pagesDone: 2, pagesTotal: 4, heartbeat: 12, updated: 12 });
      expect(await store.finishJob('a', 'w1', { status: 'done', docName: 'x', hasMd: true, pages: 3 }, 13)).toBe(true);
      expect(await store.getJob('a')).toMatchObject({ status: 'done', docName: 'x', hasMd: true, pagesDone: 3, pagesTotal: 3, workerId: null });
      expect(await store.requeueJob('b', 'w1', 14, false)).toBe(false);
      expect(await store.requeueJob('b', 'w2', 14, true)).toBe(true);
      expect(await store.getJob('b')).toMatchObject({ status: 'pending', attempts: 0, workerId: null });
      expect((await store.claimNextJob('w3', 15))?.jobId).toBe('b');
      expect((await store.claimNextJob('w3', 15))?.jobId).toBe('c');
      expect(await store.claimNextJob('w3', 15)).toBeNull();
    });
  });

  it('cancels and deletes only the owner’s jobs, and counts jobs by status', async () => {
    await withStore(async (store) => {
      await store.createKey('a@x.org', 'ha', 1);
      await store.createKey('b@x.org', 'hb', 1);
      await store.insertJob(job('a', 1), 1);
      await store.insertJob(job('b', 1), 2);
      expect(await store.cancelJob('a', 2, 3)).toBeNull();
      expect(await store.cancelJob('a', 1, 3)).toMatchObject({ status: 'pending' });
      expect(await store.cancelJob('a', 1, 4)).toMatchObject({ status: 'cancelled' });
      expect(await store.deleteJob('b', 2)).toBeNull();
      expect(await store.countJobsByStatus()).toEqual({ pending: 1, processing: 0, ocr_pending: 0, done: 0, failed: 0, cancelled: 1 });
      expect(await store.deleteJob('b', 1)).toMatchObject({ jobId: 'b' });
      expect(await store.hasJob('b')).toBe(false);
      expect((await store.listKeys()).map((k) => [k.keyId, k.jobCount])).toEqual([
        [1, 1],
        [2, 0],
      ]);
    });
  });

  it('refuses a job for a key that does not exist', async () => {
    await withStore(async (store) => {
      await expect(store.insertJob(job('x', 42), 1)).rejects.toThrow(/FOREIGN KEY/);
    });
  });
});

describe('migrations', () => {
  it('are the numbered files in order, and a gap is refused', async () => {
    expect(loadMigrations().map((m) => m.name)[0]).toBe('000001.sql');
    await withTempDir(async (dir) => {
      await mkdir(join(dir, 'sql'));
      await writeFile(join(dir, 'sql', '000001.sql'), 'CREATE TABLE a (x INTEGER);');
      await writeFile(join(dir, 'sql', '000003.sql'), 'CREATE TABLE c (x INTEGER);');
      await writeFile(join(dir, 'sql', 'notes.txt'), 'not a migration');
      expect(() => loadMigrations(join(dir, 'sql'))).toThrow(/incomplete/);
      expect(() => loadMigrations(join(dir, 'nowhere'))).toThrow(/cannot find its database migrations/);
    });
  });

  it('split into statements without their comments', () => {
    expect(splitStatements('-- a comment; with a semicolon\nCREATE TABLE a (x INTEGER);\n\n-- another\nCREATE INDEX i ON a (x);\n')).toEqual([
      'CREATE TABLE a (x INTEGER)',
      'CREATE INDEX i ON a (x)',
    ]);
  });
});
