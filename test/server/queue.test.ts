/**
 * One queue shared by many keys: keys take turns, each key is held to its allowance (waiting jobs, stored bytes),
 * files are kept as long as the retention setting says, and revoking a key stops its jobs.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setServerConfig, type CreateAppOptions } from '../../src/server/index.js';
import { scrubJobIds } from '../../src/server/logging.js';
import { jobTag } from '../../src/server/secrets.js';
import { FakeEngine } from './fake-engine.js';
import { listTree, multipart, testServer, type TestServer } from './helpers.js';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
const DAY = 86_400_000;
let open: TestServer[] = [];

afterEach(async () => {
  for (const t of open) await t.close().catch(() => undefined);
  open = [];
});

async function setup(options: CreateAppOptions = {}): Promise<{ t: TestServer; engine: FakeEngine }> {
  const engine = new FakeEngine();
  engine.auto = true;
  const t = await testServer({ engine, runRateLimit: { max: 1000, timeWindowMs: 60_000 }, ...options, limits: { minFreeDisk: 0, ...options.limits } });
  open.push(t);
  return { t, engine };
}

const submit = (t: TestServer, key: string, data: Buffer = PDF) =>
  t.server.app.inject({
    method: 'POST',
    url: '/run',
    ...multipart([
      ['api_key', key],
      ['file', { name: 'book.pdf', data }],
    ]),
  });

async function submitted(t: TestServer, key: string): Promise<string> {
  const res = await submit(t, key);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ job_id: string }>().job_id;
}

describe('the queue', () => {
  it('takes jobs round-robin across keys: a key that queued many first does not go ahead of everyone', async () => {
    const { t } = await setup();
    const [a, b, c] = [await t.newKey('a@x.org'), await t.newKey('b@x.org'), await t.newKey('c@x.org')];
    const aJobs: string[] = [];
    for (let i = 0; i < 5; i++) aJobs.push(await submitted(t, a));
    const bJob = await submitted(t, b);
    const cJob = await submitted(t, c);
    const order: string[] = [];
    for (let r = await t.server.processor.runNext(); r; r = await t.server.processor.runNext()) order.push(r.jobId);
    expect(order).toEqual([aJobs[0], bJob, cJob, ...aJobs.slice(1)]);
  });

  it('holds a key to its waiting jobs and its stored bytes, with 429 and Retry-After', async () => {
    // A form around a small PDF declares about 250 bytes: the allowance is judged on that before the body is read.
    const { t } = await setup({ limits: { queuedJobsPerKey: 2, storedBytesPerKey: 1000 } });
    const [a, b] = [await t.newKey('a@x.org'), await t.newKey('b@x.org')];
    await submitted(t, a);
    await submitted(t, a);
    const third = await submit(t, a);
    expect(third.statusCode).toBe(429);
    expect(third.json().error).toEqual({
      code: 'queue_full',
      message: 'This API key already has 2 jobs waiting, as many as this server takes; submit more once some are done.',
    });
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    // Another key is not held to a's allowance; a gets room again as its jobs run.
    await submitted(t, b);
    await t.server.processor.runNext();
    await submitted(t, a);

    // Stored bytes: the outputs of done jobs count, until they are deleted.
    const big = Buffer.concat([PDF, Buffer.alloc(1000)]);
    const over = await submit(t, b, big);
    expect(over.statusCode).toBe(429);
    expect(over.json().error.code).toBe('storage_full');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(await listTree(join(t.dataDir, '.uploads'))).toEqual([]);
  });

  it('counts jobs parked on an OCR batch against the key’s waiting jobs', async () => {
    const { t } = await setup({ limits: { queuedJobsPerKey: 2 } });
    const a = await t.newKey();
    for (let i = 0; i < 2; i++) await t.sql("UPDATE jobs SET status = 'ocr_pending' WHERE job_id = ?", [await submitted(t, a)]);
    const third = await submit(t, a);
    expect(third.statusCode).toBe(429);
    expect(third.json().error.code).toBe('queue_full');
  });

  it('says when to come back after too many submissions a minute', async () => {
    const { t } = await setup({ runRateLimit: { max: 1, timeWindowMs: 60_000 } });
    const a = await t.newKey();
    await submitted(t, a);
    const res = await submit(t, a);
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
  });
});

describe('retention', () => {
  it('by default removes the upload when the job ends and the outputs after 30 days, then answers 410', async () => {
    const { t } = await setup();
    const key = await t.newKey();
    const id = await submitted(t, key);
    expect(await listTree(join(t.dataDir, id))).toEqual(['input.pdf']);
    await t.server.processor.runNext();
    expect(await listTree(join(t.dataDir, id))).toEqual(['output.pdf']);
    expect((await t.server.store.getJob(id))!.inputBytes).toBe(0);

    expect(await t.server.processor.sweep(Date.now() + 29 * DAY)).toBe(0);
    expect((await t.server.app.inject({ url: `/download/${id}/pdf` })).statusCode).toBe(200);
    expect(await t.server.processor.sweep(Date.now() + 31 * DAY)).toBe(1);
    expect(existsSync(join(t.dataDir, id, 'output.pdf'))).toBe(false);
    const gone = await t.server.app.inject({ url: `/download/${id}/pdf` });
    expect(gone.statusCode).toBe(410);
    expect(gone.json().error.code).toBe('expired');
    expect((await t.server.app.inject({ url: `/get/${id}?api_key=${key}` })).json()).toMatchObject({
      status: 'done',
      pdf_url: null,
      md_url: null,
      expired: true,
    });
    // What it kept no longer counts against the key.
    expect(await t.server.store.keyUsage((await t.server.store.listKeys())[0].keyId)).toEqual({ queued: 0, storedBytes: 0 });
  });

  it('follows the retention setting: uploads kept some days, outputs for ever', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'quire-retention-'));
    const first = await testServer({}, dir);
    await setServerConfig(first.server.settings, 'retention', '{"inputs_days":2,"outputs_days":null}');
    await first.close();
    const engine = new FakeEngine();
    engine.auto = true;
    const again = await testServer({ engine, limits: { minFreeDisk: 0 } }, dir);
    open.push({ ...again, close: async () => (await again.close(), await rm(dir, { recursive: true, force: true })) });
    expect(again.server.retention).toEqual({ inputsMs: 2 * DAY, outputsMs: null });
    const key = await again.newKey();
    const id = await submitted(again, key);
    await again.server.processor.runNext();
    expect(await listTree(join(again.dataDir, id))).toEqual(['input.pdf', 'output.pdf']);
    await again.server.processor.sweep(Date.now() + DAY);
    expect(await listTree(join(again.dataDir, id))).toEqual(['input.pdf', 'output.pdf']);
    await again.server.processor.sweep(Date.now() + 3 * DAY);
    expect(await listTree(join(again.dataDir, id))).toEqual(['output.pdf']);
    await again.server.processor.sweep(Date.now() + 3650 * DAY);
    expect(await listTree(join(again.dataDir, id))).toEqual(['output.pdf']);
  });
});

describe('revoking a key', () => {
  it('cancels its jobs that have not ended, the running one too, and none of them runs after', async () => {
    const lines: string[] = [];
    const { t, engine } = await setup({ logger: { level: 'info', stream: { write: (l) => void lines.push(l) } } });
    engine.auto = false;
    const [a, b] = [await t.newKey('a@x.org'), await t.newKey('b@x.org')];
    const running = await submitted(t, a);
    const waiting = [await submitted(t, a), await submitted(t, a)];
    const others = await submitted(t, b);
    const run = t.server.processor.runNext();
    await engine.atGate();

    const keyId = (await t.server.store.listKeys()).find((k) => k.email === 'a@x.org')!.keyId;
    const res = await t.server.app.inject({ method: 'POST', url: `/admin/keys/${keyId}/revoke`, headers: { authorization: `Bearer ${t.server.adminSecret}` } });
    expect(res.json()).toEqual({ key_id: keyId, revoked: true, cancelled_jobs: 3 });
    expect(await run).toEqual({ jobId: running, status: 'cancelled' });
    for (const id of [running, ...waiting]) {
      expect((await t.server.store.getJob(id))!.status).toBe('cancelled');
      expect(existsSync(join(t.dataDir, id))).toBe(false);
    }
    // Only the other key's job is left to run.
    engine.auto = true;
    expect(await t.server.processor.runNext()).toEqual({ jobId: others, status: 'done' });
    expect(await t.server.processor.runNext()).toBeNull();

    // The log follows each job by a short hash; the id, the download credential, is never in it (URLs included).
    await t.server.app.inject({ url: `/check/${others}?api_key=${b}` });
    await t.server.app.inject({ url: `/download/${others}/pdf` });
    const log = lines.join('');
    expect(log).toContain(`/check/job:${jobTag(others)}?api_key=[redacted]`);
    expect(log).toContain(`/download/job:${jobTag(others)}/pdf`);
    // Errors that name a job's files by path get the tag too.
    const id = 'AbCdEfGhIjKlMnOpQrStUv';
    expect(scrubJobIds(`ENOENT: open '/srv/quire/server_data/${id}/input.zip'`)).toBe(`ENOENT: open '/srv/quire/server_data/job:${jobTag(id)}/input.zip'`);
    for (const id of [running, ...waiting, others]) {
      expect(log).not.toContain(id);
      expect(log).toContain(jobTag(id));
    }
  });
});
