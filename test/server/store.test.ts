import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SqliteDatabase as Database } from '../../src/settings/index.js';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../helpers.js';
import { loadMigrations, splitStatements } from '../../src/server/migrations.js';
import { numbered, openPgStore } from '../../src/server/pg-store.js';
import { openSqliteStore } from '../../src/server/sqlite-store.js';
import type { JobStore, NewJob } from '../../src/server/store.js';
import { jobSummary } from '../../src/server/views.js';
import { databaseUrlFor, sqlIn, STORE } from './stores.js';

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

/** The store of a folder: its SQLite file, or its PostgreSQL schema in the `postgres` project. */
async function openStore(dir: string): Promise<JobStore> {
  const url = await databaseUrlFor(dir);
  return url ? openPgStore(url) : openSqliteStore(join(dir, 'quire-server.db'));
}

async function withStore<T>(fn: (store: JobStore, dir: string) => Promise<T>): Promise<T> {
  return withTempDir(async (dir) => {
    const store = await openStore(dir);
    try {
      return await fn(store, dir);
    } finally {
      await store.close();
    }
  });
}

const TABLES = ['admin_sessions', 'api_keys', 'config', 'jobs', 'metric_counters', 'schema_migrations', 'workers'];

describe(`the ${STORE === 'postgres' ? 'PostgreSQL' : 'SQLite'} store`, () => {
  it('creates the three tables of the spec (and sessions, workers, counters) from the numbered migrations, once: opening again applies nothing twice', async () => {
    await withStore(async (store, dir) => {
      await store.setConfig('base_url', 'https://x');
      const again = await openStore(dir);
      expect(await again.getConfig('base_url')).toBe('https://x');
      await again.close();
      const tables =
        STORE === 'postgres'
          ? await sqlIn(dir, 'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name')
          : await sqlIn(dir, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
      expect(tables.map((r) => r.name)).toEqual(TABLES);
      expect(await sqlIn(dir, 'SELECT version FROM schema_migrations ORDER BY version')).toEqual(loadMigrations().map((m) => ({ version: m.version })));
      expect(loadMigrations().map((m) => m.version)).toEqual([1, 2, 3, 4, 5]);
      if (STORE === 'sqlite') {
        const db = new Database(join(dir, 'quire-server.db'), { readonly: true });
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        db.close();
      }
    });
  });

  it('lets two processes starting together migrate one database once', async () => {
    await withTempDir(async (dir) => {
      const stores = await Promise.all([openStore(dir), openStore(dir), openStore(dir)]);
      await Promise.all(stores.map((s) => s.close()));
      expect(await sqlIn(dir, 'SELECT COUNT(*) AS n FROM schema_migrations')).toEqual([{ n: 5 }]);
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
      await expect(store.createKey('c@x.org', 'hb', 5000)).rejects.toThrow(/unique/i);
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
      expect(first).toMatchObject({
        status: 'processing',
        workerId: 'w1',
        attempts: 1,
        heartbeat: 10,
        leaseUntil: 60_010,
        startedAt: 10,
        progressStep: 'starting',
      });
      expect(await store.finishJob('a', 'w2', { status: 'done', docName: 'x', hasMd: false, pages: 1 }, 11)).toBe(false);
      expect(await store.heartbeat('a', 'w2', 11)).toBe(false);
      expect(await store.heartbeat('a', 'w1', 12, { pagesDone: 2, pagesTotal: 4, step: 'pages' }, 500)).toBe(true);
      expect(await store.getJob('a')).toMatchObject({ pagesDone: 2, pagesTotal: 4, progressStep: 'pages', heartbeat: 12, leaseUntil: 512, updated: 12 });
      expect(await store.finishJob('a', 'w1', { status: 'done', docName: 'x', hasMd: true, pages: 3 }, 13)).toBe(true);
      expect(await store.getJob('a')).toMatchObject({
        status: 'done',
        docName: 'x',
        hasMd: true,
        pagesDone: 3,
        pagesTotal: 3,
        workerId: null,
        leaseUntil: null,
      });
      expect(await store.requeueJob('b', 'w1', 14, false)).toBe(false);
      expect(await store.requeueJob('b', 'w2', 14, true)).toBe(true);
      expect(await store.getJob('b')).toMatchObject({ status: 'pending', attempts: 0, workerId: null });
      expect((await store.claimNextJob('w3', 15))?.jobId).toBe('b');
      expect((await store.claimNextJob('w3', 15))?.jobId).toBe('c');
      expect(await store.claimNextJob('w3', 15)).toBeNull();
    });
  });

  it('hands each job to one of several workers claiming at once on their own connections', async () => {
    await withTempDir(async (dir) => {
      const stores = await Promise.all([openStore(dir), openStore(dir), openStore(dir), openStore(dir)]);
      try {
        await stores[0].createKey('a@x.org', 'ha', 1);
        await stores[0].createKey('b@x.org', 'hb', 1);
        const ids: string[] = [];
        for (let i = 0; i < 120; i++) {
          ids.push(`job${String(i).padStart(3, '0')}`);
          await stores[i % 4].insertJob(job(ids[i], 1 + (i % 2)), 5);
        }
        // Each worker claims as fast as it can until the queue is empty, several claims in flight per worker.
        const drain = async (store: JobStore, w: number): Promise<string[]> => {
          const got: string[] = [];
          const lane = async (l: number): Promise<void> => {
            for (;;) {
              const claimed = await store.claimNextJob(`w${w}/${l}`, 10);
              if (!claimed) return;
              expect(claimed.workerId).toBe(`w${w}/${l}`);
              got.push(claimed.jobId);
            }
          };
          await Promise.all([lane(1), lane(2), lane(3)]);
          return got;
        };
        const got = await Promise.all(stores.map(drain));
        const all = got.flat();
        expect(all).toHaveLength(120);
        expect([...all].sort()).toEqual(ids);
        expect(await sqlIn(dir, "SELECT COUNT(*) AS n FROM jobs WHERE status = 'processing' AND attempts = 1")).toEqual([{ n: 120 }]);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });
  });

  it('takes back a job whose holder’s lease ran out, unless the holder renewed it since; fails it after the last attempt', async () => {
    await withStore(async (store) => {
      await store.createKey('a@x.org', 'ha', 1);
      await store.insertJob(job('a', 1), 1);
      const seen = (await store.claimNextJob('w1', 10, 100))!;
      expect(seen.leaseUntil).toBe(110);
      // The holder renews after another worker read the row: the stale read takes nothing.
      expect(await store.heartbeat('a', 'w1', 50, undefined, 100)).toBe(true);
      expect(await store.reclaimJob(seen, 200, 3, 'gone', 'too often')).toBeNull();
      const now = (await store.getJob('a'))!;
      expect(await store.reclaimJob(now, 200, 3, 'gone', 'too often')).toBe('pending');
      expect(await store.getJob('a')).toMatchObject({ status: 'pending', workerId: null, leaseUntil: null, lastError: 'gone', attempts: 1 });
      // The old holder finds out: it no longer holds the job.
      expect(await store.heartbeat('a', 'w1', 210)).toBe(false);
      expect(await store.finishJob('a', 'w1', { status: 'done', docName: 'x', hasMd: false, pages: 1 }, 210)).toBe(false);
      await store.claimNextJob('w2', 300, 100);
      await store.reclaimJob((await store.getJob('a'))!, 500, 2, 'gone again', 'too often');
      expect(await store.getJob('a')).toMatchObject({ status: 'failed', error: 'too often', lastError: 'gone again', endedAt: 500 });
    });
  });

  it('retries an attempt that failed by no fault of the input, then fails it with the last error', async () => {
    await withStore(async (store) => {
      await store.createKey('a@x.org', 'ha', 1);
      await store.insertJob(job('a', 1), 1);
      await store.claimNextJob('w1', 10);
      expect(await store.retryJob('a', 'w2', 11, 100, 2, 'crash')).toBeNull();
      expect(await store.retryJob('a', 'w1', 11, 100, 2, 'crash 1')).toBe('pending');
      expect(await store.claimNextJob('w1', 50)).toBeNull();
      expect(await store.claimNextJob('w1', 100)).toMatchObject({ jobId: 'a', attempts: 2 });
      expect(await store.retryJob('a', 'w1', 120, 200, 2, 'crash 2')).toBe('failed');
      expect(await store.getJob('a')).toMatchObject({ status: 'failed', error: 'crash 2', runAfter: null, endedAt: 120 });
    });
  });

  it('keeps webhook deliveries in the jobs table: due when the job ends, held by one sender at a time', async () => {
    await withStore(async (store) => {
      await store.createKey('a@x.org', 'ha', 1, 'whsec_1');
      expect(await store.getWebhookSecret(1)).toBe('whsec_1');
      await store.insertJob(job('a', 1, { webhookUrl: 'https://example.org/hook', linkBase: 'https://q' }), 1);
      await store.insertJob(job('b', 1), 2);
      expect((await store.getJob('a'))!.webhook).toEqual({ url: 'https://example.org/hook', state: 'waiting', nextAt: null, attempts: [] });
      expect((await store.getJob('b'))!.webhook).toBeNull();
      expect(await store.claimWebhook('s1', 5, 1000)).toBeNull();
      await store.cancelJob('a', 1, 10);
      await store.cancelJob('b', 1, 10);
      const [one, two] = await Promise.all([store.claimWebhook('s1', 20, 1000), store.claimWebhook('s2', 20, 1000)]);
      expect([one, two].filter(Boolean)).toHaveLength(1);
      const held = (one ?? two)!;
      const holder = one ? 's1' : 's2';
      expect(held.secret).toBe('whsec_1');
      expect(held.job).toMatchObject({ jobId: 'a', status: 'cancelled', linkBase: 'https://q' });
      const attempt = { at: 20, status: 503, error: 'the receiver answered 503' };
      expect(await store.recordWebhookAttempt('a', holder === 's1' ? 's2' : 's1', [attempt], { state: 'pending', nextAt: 40 })).toBe(false);
      expect(await store.recordWebhookAttempt('a', holder, [attempt], { state: 'pending', nextAt: 40 })).toBe(true);
      expect(await store.claimWebhook('s1', 30, 1000)).toBeNull();
      expect((await store.claimWebhook('s1', 40, 1000))!.job.webhook).toMatchObject({ state: 'pending', attempts: [attempt] });
      expect(await store.recordWebhookAttempt('a', 's1', [attempt, { at: 40, status: 200, error: null }], { state: 'delivered' })).toBe(true);
      expect((await store.getJob('a'))!.webhook).toMatchObject({ state: 'delivered', nextAt: null });
      expect(await store.claimWebhook('s1', 10_000, 1000)).toBeNull();
    });
  });

  it('counts workers and adds to counters', async () => {
    await withStore(async (store) => {
      const w = { workerId: 'h:1:aa', host: 'h', pid: 1, concurrency: 2, startedAt: 1, heartbeat: 1000, leaseUntil: 2000 };
      await store.workerAlive(w);
      await store.workerAlive({ ...w, heartbeat: 1500, leaseUntil: 2500 });
      await store.workerAlive({ ...w, workerId: 'h:2:bb', pid: 2 });
      expect(await store.listWorkers(1600)).toEqual([
        { ...w, heartbeat: 1500, leaseUntil: 2500 },
        { ...w, workerId: 'h:2:bb', pid: 2 },
      ]);
      await store.removeWorker('h:2:bb');
      // A day after its lease, a worker is forgotten.
      expect(await store.listWorkers(2500 + 25 * 3600_000)).toEqual([]);
      await store.addCounters({ x_total: 2, y_sum: 0.25 });
      await store.addCounters({ x_total: 3 });
      expect(await store.readCounters()).toEqual({ x_total: 5, y_sum: 0.25 });
    });
  });

  it('has a parked batch polled at the next tick when a client asks, and leases a poll to one worker at a time', async () => {
    await withStore(async (store) => {
      await store.createKey('a@x.org', 'ha', 1);
      await store.insertJob(job('a', 1), 1);
      await store.claimNextJob('w1', 10);
      await store.parkJob('a', 'w1', { batchIds: ['b1'], submittedAt: 10, nextPollAt: 60_010 }, 11);
      expect(await store.listDueOcrJobs(1000)).toEqual([]);
      await store.requestOcrPoll('a', 1000);
      expect((await store.listDueOcrJobs(1000)).map((j) => j.jobId)).toEqual(['a']);
      expect(await store.leaseOcrJob('a', 'w1', 1000, 100)).toMatchObject({ workerId: 'w1', leaseUntil: 1100 });
      expect(await store.leaseOcrJob('a', 'w2', 1050, 100)).toBeNull();
      expect(await store.leaseOcrJob('a', 'w2', 1101, 100)).toMatchObject({ workerId: 'w2' });
      expect(await store.releaseOcrJob('a', 'w2', 5000, 1200)).toBe(true);
      expect(await store.getJob('a')).toMatchObject({ status: 'ocr_pending', workerId: null, ocrNextPollAt: 5000 });
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
      await expect(store.insertJob(job('x', 42), 1)).rejects.toThrow(/foreign key/i);
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

  it('number named parameters for PostgreSQL, one number per name', () => {
    expect(numbered('UPDATE t SET a = @a, b = @b WHERE a < @a')).toEqual({ text: 'UPDATE t SET a = $1, b = $2 WHERE a < $1', names: ['a', 'b'] });
  });

  it('split into statements without their comments', () => {
    expect(splitStatements('-- a comment; with a semicolon\nCREATE TABLE a (x INTEGER);\n\n-- another\nCREATE INDEX i ON a (x);\n')).toEqual([
      'CREATE TABLE a (x INTEGER)',
      'CREATE INDEX i ON a (x)',
    ]);
  });
});
