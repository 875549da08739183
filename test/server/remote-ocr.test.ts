/**
 * The job server with the remote OCR engine in batch mode, against the fake service on loopback: jobs parked in
 * `ocr_pending`, polled by the ticker on the backoff schedule (an injected clock runs it in milliseconds) and by
 * `/check` and `/get`, finalised like synchronous ones, cancelled and deleted with their batch, and carried over a
 * restart. The real `convert` runs (in this thread under the test runner). Vitest gives this file a process of its
 * own: `QUIRE_HOME` and the key are set in its environment, as on a server.
 */
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setRemoteOcrSetting } from '../../src/ocr/index.js';
import { nextOcrPoll, OCR_BATCH_TIMED_OUT, setServerConfig, type CreateAppOptions } from '../../src/server/index.js';
import { serverOcrSpec } from '../../src/server/job-routes.js';
import { FakeRemoteOcr } from '../ocr/remote/fake-remote-ocr.js';
import { textPdf } from '../ocr/remote/helpers.js';
import { listTree, multipart, testServer, waitFor, type TestServer } from './helpers.js';
import { setEnv } from '../helpers.js';

const MIN = 60_000;
const T0 = Date.parse('2030-01-01T00:00:00Z');
let restoreEnv = (): void => undefined;

let fake: FakeRemoteOcr;
let home: string;
let pdf: Buffer;
let smtp: SMTPServer;
let smtpPort: number;
const mails: string[] = [];
let open: TestServer[] = [];
/** The server's OCR clock, moved by the tests. */
let now = T0;
const clock = (): number => now;

beforeAll(async () => {
  fake = await new FakeRemoteOcr().start();
  home = await mkdtemp(join(tmpdir(), 'quire-remote-server-'));
  restoreEnv = setEnv({ QUIRE_HOME: join(home, 'app'), QUIRE_REMOTEOCR_API_KEY: fake.apiKey });
  setRemoteOcrSetting('base_url', fake.url, { appData: join(home, 'app'), keychain: null });
  pdf = Buffer.from(await textPdf([300, 340]));
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await fake.stop();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await rm(home, { recursive: true, force: true });
  restoreEnv();
});

beforeEach(() => {
  now = T0;
  fake.holdRunning = false;
  fake.batchOutcome = 'SUCCESS';
  fake.failLines.clear();
  mails.length = 0;
});

afterEach(async () => {
  for (const t of open) await t.close().catch(() => undefined);
  open = [];
});

async function setup(options: CreateAppOptions = {}, dir?: string): Promise<{ t: TestServer; key: string }> {
  // Every look of a client polls (the server's default spaces them 10 s apart): the fake moves on one step a poll.
  const t = await testServer({ clock, workers: 1, publicUrl: 'https://quire.example.org', clientPollEveryMs: 0, ...options }, dir);
  open.push(t);
  return { t, key: await t.newKey() };
}

async function submit(t: TestServer, key: string, ocr = 'remoteocr', extra: Array<[string, string]> = []): Promise<string> {
  const res = await t.server.app.inject({
    method: 'POST',
    url: '/run',
    ...multipart([['api_key', key], ['ocr', ocr], ...extra, ['file', { name: 'Harbour.pdf', data: pdf }]]),
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ job_id: string }>().job_id;
}

/** Submit and run the conversion: the job ends parked with its batch submitted. */
async function parked(t: TestServer, key: string, extra: Array<[string, string]> = []): Promise<string> {
  const id = await submit(t, key, 'remoteocr', extra);
  expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'ocr_pending' });
  return id;
}

const get = (t: TestServer, url: string) => t.server.app.inject({ url });
const post = (t: TestServer, key: string, url: string) => t.server.app.inject({ method: 'POST', url, ...multipart([['api_key', key]]) });

async function downloadText(t: TestServer, id: string, kind: 'pdf' | 'md'): Promise<string> {
  const res = await get(t, `/download/${id}/${kind}`);
  expect(res.statusCode).toBe(200);
  if (kind === 'md') return res.body;
  const { execFileSync } = await import('node:child_process');
  return execFileSync('pdftotext', ['-raw', '-', '-'], { input: res.rawPayload, encoding: 'utf8' });
}

describe('remoteocr on the server', () => {
  it('normalises remoteocr to a batch and keeps remoteocr:streaming synchronous', async () => {
    expect(serverOcrSpec('remoteocr')).toBe('remoteocr:batch');
    expect(serverOcrSpec('remoteocr:model=ocr-2')).toBe('remoteocr:batch:model=ocr-2');
    expect(serverOcrSpec('remoteocr:streaming')).toBe('remoteocr:streaming');
    expect(serverOcrSpec('tesseract:lang=fra')).toBe('tesseract:lang=fra');

    const { t, key } = await setup();
    const id = await submit(t, key, 'remoteocr:streaming');
    expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'done' });
    expect(await downloadText(t, id, 'pdf')).toContain('The harbour of page w340\nwakes at dawn with gulls');
    const batch = await submit(t, key, 'remoteocr');
    const list = (await get(t, `/list?api_key=${key}`)).json<{ jobs: Array<{ job_id: string; ocr: string }> }>().jobs;
    expect(list.find((j) => j.job_id === batch)!.ocr).toBe('remoteocr:batch');
  });

  it('parks the job in ocr_pending, and the ticker finishes it on the schedule like a synchronous job', async () => {
    const { t, key } = await setup();
    await setServerConfig(t.server.settings, 'smtp', JSON.stringify({ host: '127.0.0.1', port: smtpPort, from: 'Quire <quire@example.org>', tls: false }));
    const id = await parked(t, key, [['email_notif', 'true']]);
    const job = (await t.server.store.getJob(id))!;
    expect(job).toMatchObject({ status: 'ocr_pending', ocrSubmittedAt: T0, ocrNextPollAt: T0 + MIN, workerId: null });
    expect(job.ocrBatchIds).toEqual([...fake.batches.keys()].slice(-1));
    expect(await listTree(join(t.dataDir, id))).toContain('proj/project.json');
    fake.holdRunning = true;
    expect((await get(t, `/get/${id}?api_key=${key}`)).json()).toMatchObject({ status: 'ocr_pending', pdf_url: null, md_url: null });
    // That look had the batch polled behind its answer.
    await t.server.processor.pollsSettled();

    // Not due yet: no look at the batch.
    const looks = () => fake.seen('GET', /^\/v1\/batch\/jobs\//).length;
    const before = looks();
    now = T0 + MIN - 1;
    await t.server.processor.tick();
    expect(looks()).toBe(before);
    // Due: RUNNING, next poll 2 minutes later.
    now = T0 + MIN;
    await t.server.processor.tick();
    expect(looks()).toBe(before + 1);
    expect(await t.server.store.getJob(id)).toMatchObject({ status: 'ocr_pending', ocrNextPollAt: T0 + 3 * MIN });
    // Done: finalised as a synchronous job would be.
    fake.holdRunning = false;
    now = T0 + 3 * MIN;
    await t.server.processor.tick();
    expect((await get(t, `/get/${id}?api_key=${key}`)).json()).toEqual({
      job_id: id,
      status: 'done',
      error: null,
      progress: { pages_done: 2, pages_total: 2, step: null },
      pdf_url: `https://quire.example.org/download/${id}/pdf`,
      md_url: `https://quire.example.org/download/${id}/md`,
    });
    expect(await listTree(join(t.dataDir, id))).toEqual(['output.md', 'output.pdf']);
    expect(await downloadText(t, id, 'pdf')).toContain('The harbour of page w300\nwakes at dawn with gulls');
    expect(await downloadText(t, id, 'md')).toContain('The harbour of page w340');
    await waitFor(async () => mails.length === 1, 10_000);
    // Quoted-printable: soft line breaks joined.
    expect(mails[0].replace(/=\r?\n/g, '')).toContain(`Markdown: https://quire.example.org/download/${id}/md`);
  });

  it('polls at once on /check, behind an answer from the database, and finishes the job there', async () => {
    const { t, key } = await setup();
    const id = await parked(t, key);
    expect((await get(t, `/check/${id}?api_key=${key}`)).json()).toMatchObject({ status: 'ocr_pending' });
    await t.server.processor.pollsSettled();
    // A client's poll leaves the schedule alone.
    expect((await t.server.store.getJob(id))!.ocrNextPollAt).toBe(T0 + MIN);
    expect((await get(t, `/get/${id}?api_key=${key}`)).json()).toMatchObject({ status: 'ocr_pending' });
    await t.server.processor.pollsSettled();
    expect((await get(t, `/get/${id}?api_key=${key}`)).json()).toMatchObject({ status: 'done', md_url: `https://quire.example.org/download/${id}/md` });
    expect(await downloadText(t, id, 'md')).toContain('The harbour of page w300');
    expect(existsSync(join(t.dataDir, id, 'proj'))).toBe(false);
  });

  it('polls on the whole backoff schedule, then cancels the batch and fails the job as timed out', async () => {
    fake.holdRunning = true;
    const { t, key } = await setup();
    const id = await parked(t, key);
    const batchId = (await t.server.store.getJob(id))!.ocrBatchIds![0];
    const polls: number[] = [];
    const offsets = [1, 3, 7, 15, 31, 63, 127, 255, 511, 1023];
    for (const minutes of offsets) {
      now = T0 + minutes * MIN;
      const looks = fake.seen('GET', new RegExp(`^/v1/batch/jobs/${batchId}$`)).length;
      await t.server.processor.tick();
      expect(fake.seen('GET', new RegExp(`^/v1/batch/jobs/${batchId}$`)).length).toBeGreaterThan(looks);
      const job = (await t.server.store.getJob(id))!;
      if (job.status === 'ocr_pending') polls.push((job.ocrNextPollAt! - T0) / MIN);
    }
    // After each poll, the next is the following point of the schedule; after the last there is none.
    expect(polls).toEqual(offsets.slice(1));
    expect(await t.server.store.getJob(id)).toMatchObject({ status: 'failed', error: OCR_BATCH_TIMED_OUT });
    expect(OCR_BATCH_TIMED_OUT).toBe('OCR batch timed out');
    expect(fake.cancelled).toContain(batchId);
    // A failed job keeps nothing: its upload went when it ended (the default retention).
    expect(await listTree(join(t.dataDir, id))).toEqual([]);
    expect(nextOcrPoll(T0, T0 + 1023 * MIN)).toBeNull();
  });

  it('cancels the batch when an ocr_pending job is deleted or cancelled, then removes its folder', async () => {
    fake.holdRunning = true;
    const { t, key } = await setup();
    const a = await parked(t, key);
    const b = await parked(t, key);
    const idsA = (await t.server.store.getJob(a))!.ocrBatchIds!;
    const idsB = (await t.server.store.getJob(b))!.ocrBatchIds!;
    const earlier = fake.cancelled.length;
    // The answer comes at once; the batch is cancelled and the folder removed right after, in the background.
    expect((await post(t, key, `/delete/${a}`)).json()).toEqual({ deleted: true });
    await waitFor(async () => !existsSync(join(t.dataDir, a)), 10_000, 20);
    expect(fake.cancelled.slice(earlier)).toEqual(idsA);
    expect((await post(t, key, `/cancel/${b}`)).json()).toEqual({ job_id: b, status: 'cancelled' });
    await waitFor(async () => !existsSync(join(t.dataDir, b)), 10_000, 20);
    expect(fake.cancelled.slice(earlier)).toEqual([...idsA, ...idsB]);
    // Neither is polled again.
    now = T0 + 10 * MIN;
    const looks = fake.seen('GET', /^\/v1\/batch\/jobs\//).length;
    await t.server.processor.tick();
    expect(fake.seen('GET', /^\/v1\/batch\/jobs\//).length).toBe(looks);
  });

  it('carries on with the schedule after a restart', async () => {
    const first = await setup();
    const id = await parked(first.t, first.key);
    now = T0 + MIN;
    fake.holdRunning = true;
    await first.t.server.processor.tick();
    expect((await first.t.server.store.getJob(id))!.ocrNextPollAt).toBe(T0 + 3 * MIN);
    // The server stops (its folder stays) and starts again on the same database and data folder.
    open = open.filter((o) => o !== first.t);
    await first.t.server.close();
    const second = await setup({}, first.t.dir);
    open.push({ ...second.t, close: async () => (await second.t.server.close(), await rm(first.t.dir, { recursive: true, force: true })) });
    expect(await second.t.server.store.getJob(id)).toMatchObject({ status: 'ocr_pending', ocrSubmittedAt: T0, ocrNextPollAt: T0 + 3 * MIN });
    fake.holdRunning = false;
    const looks = fake.seen('GET', /^\/v1\/batch\/jobs\//).length;
    now = T0 + 2 * MIN;
    await second.t.server.processor.tick();
    expect(fake.seen('GET', /^\/v1\/batch\/jobs\//).length).toBe(looks);
    now = T0 + 3 * MIN;
    await second.t.server.processor.tick();
    expect(await second.t.server.store.getJob(id)).toMatchObject({ status: 'done', hasMd: true });
    expect(await downloadText(second.t, id, 'pdf')).toContain('The harbour of page w340');
  });

  it('finishes a batch with one failed page line, reading that page again', async () => {
    fake.failLines.add('page-2');
    const { t, key } = await setup();
    const id = await parked(t, key);
    const reads = fake.seen('POST', /^\/v1\/ocr$/).length;
    for (let i = 0; i < 2; i++) {
      await get(t, `/check/${id}?api_key=${key}`);
      await t.server.processor.pollsSettled();
    }
    expect((await get(t, `/check/${id}?api_key=${key}`)).json()).toMatchObject({ status: 'done' });
    expect(fake.seen('POST', /^\/v1\/ocr$/).length).toBe(reads + 1);
    const text = await downloadText(t, id, 'pdf');
    expect(text).toContain('The harbour of page w300');
    expect(text).toContain('The harbour of page w340');
  });

  it('fails the job with the batch’s reason when the service failed it', async () => {
    fake.batchOutcome = 'FAILED';
    const { t, key } = await setup();
    const id = await parked(t, key);
    for (let i = 0; i < 2; i++) {
      await get(t, `/check/${id}?api_key=${key}`);
      await t.server.processor.pollsSettled();
    }
    expect((await get(t, `/check/${id}?api_key=${key}`)).json()).toMatchObject({
      status: 'failed',
      error: 'The remote OCR service reported the batch as failed.',
    });
    expect(await listTree(join(t.dataDir, id))).toEqual([]);
  });
});
