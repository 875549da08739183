import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfPageCount, SAMPLE } from '../helpers.js';
import { listTree, multipart, testServer, waitFor, type TestServer } from './helpers.js';

// One real conversion of the example bundle (3 frames → 6 pages), then every read endpoint on it.
describe('a job from upload to download', () => {
  let t: TestServer;
  let key: string;
  let jobId: string;
  let sample: Buffer;

  beforeAll(async () => {
    t = await testServer({ publicUrl: 'https://books.example.org/quire/' });
    key = await t.newKey('reader@example.org');
    sample = await readFile(SAMPLE);
  });
  afterAll(() => t.close());

  it('answers /health without a key', async () => {
    const res = await t.server.app.inject({ url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it('takes an upload as a pending job with a 22-character id, its upload alone on disk', async () => {
    const res = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', key],
        ['file', { name: 'My book.aglbundle', data: sample }],
      ]),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ job_id: string; status: string }>();
    expect(body.status).toBe('pending');
    expect(body.job_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    jobId = body.job_id;
    expect(await listTree(t.dataDir)).toEqual(['.uploads/', `${jobId}/`, `${jobId}/input.zip`].sort());
    expect((await readFile(join(t.dataDir, jobId, 'input.zip'))).equals(sample)).toBe(true);

    const check = await t.server.app.inject({ url: `/check/${jobId}?api_key=${key}` });
    expect(check.json()).toEqual({ job_id: jobId, status: 'pending', error: null, progress: { pages_done: 0, pages_total: null, step: null } });
    const get = await t.server.app.inject({ url: `/get/${jobId}?api_key=${key}` });
    expect(get.json()).toMatchObject({ status: 'pending', pdf_url: null, md_url: null });
    const early = await t.server.app.inject({ url: `/download/${jobId}/pdf` });
    expect(early.statusCode).toBe(404);
  });

  it('converts it on the next tick: done, output.pdf in place of the upload (gone with the job’s end), no project left', async () => {
    expect(await t.server.processor.tick()).toEqual({ jobId, status: 'done' });
    expect(await listTree(t.dataDir)).toEqual(['.uploads/', `${jobId}/`, `${jobId}/output.pdf`].sort());
    expect(await t.server.processor.tick()).toBeNull();
  });

  it('reports it done with all its pages on /check, and links on /get prefixed with base_url', async () => {
    const check = await t.server.app.inject({ url: `/check/${jobId}?api_key=${key}` });
    expect(check.json()).toEqual({ job_id: jobId, status: 'done', error: null, progress: { pages_done: 6, pages_total: 6, step: null } });
    const get = await t.server.app.inject({ url: `/get/${jobId}?api_key=${key}` });
    expect(get.json()).toEqual({
      job_id: jobId,
      status: 'done',
      error: null,
      progress: { pages_done: 6, pages_total: 6, step: null },
      pdf_url: `https://books.example.org/quire/download/${jobId}/pdf`,
      md_url: null,
    });
  });

  it('lists the caller’s jobs newest first', async () => {
    const second = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', key],
        ['file', { name: 'scan.pdf', data: Buffer.from('%PDF-1.4 not really') }],
        ['ocr', 'none'],
      ]),
    });
    const secondId = second.json<{ job_id: string }>().job_id;
    const res = await t.server.app.inject({ url: `/list?api_key=${key}` });
    expect(res.statusCode).toBe(200);
    const { jobs } = res.json<{ jobs: Array<Record<string, unknown>> }>();
    expect(jobs.map((j) => j.job_id)).toEqual([secondId, jobId]);
    expect(jobs[0]).toEqual({ job_id: secondId, status: 'pending', created: expect.any(String), updated: expect.any(String), ocr: 'none', error: null });
    expect(jobs[1]).toMatchObject({ job_id: jobId, status: 'done', ocr: null, error: null });
    expect(Date.parse(jobs[1].created as string)).toBeLessThanOrEqual(Date.parse(jobs[1].updated as string));
    const limited = await t.server.app.inject({ url: `/list?api_key=${key}&limit=1` });
    expect(limited.json<{ jobs: unknown[] }>().jobs).toHaveLength(1);
    await t.server.app.inject({ method: 'POST', url: `/delete/${secondId}`, ...multipart([['api_key', key]]) });
  });

  it('serves the PDF by its capability URL, named after the bundle’s project', async () => {
    const res = await t.server.app.inject({ url: `/download/${jobId}/pdf` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="Pride and Prejudice _ Candide _ Quire sample.pdf"; filename*=UTF-8''Pride%20and%20Prejudice%20%C2%B7%20Candide%20%E2%80%94%20Quire%20sample.pdf`,
    );
    expect(res.rawPayload.equals(await readFile(join(t.dataDir, jobId, 'output.pdf')))).toBe(true);
    const head = await t.server.app.inject({ method: 'HEAD', url: `/download/${jobId}/pdf` });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(res.rawPayload.length));
    const copy = join(t.dir, 'downloaded.pdf');
    await writeFile(copy, res.rawPayload);
    expect(pdfPageCount(copy)).toBe(6);
  });

  it('answers byte ranges: a slice, a suffix, an open end, and 416 past the end', async () => {
    const whole = await readFile(join(t.dataDir, jobId, 'output.pdf'));
    const slice = await t.server.app.inject({ url: `/download/${jobId}/pdf`, headers: { range: 'bytes=0-7' } });
    expect(slice.statusCode).toBe(206);
    expect(slice.headers['content-range']).toBe(`bytes 0-7/${whole.length}`);
    expect(slice.body).toBe('%PDF-1.7');
    const suffix = await t.server.app.inject({ url: `/download/${jobId}/pdf`, headers: { range: 'bytes=-6' } });
    expect(suffix.statusCode).toBe(206);
    expect(suffix.rawPayload.equals(whole.subarray(whole.length - 6))).toBe(true);
    const open = await t.server.app.inject({ url: `/download/${jobId}/pdf`, headers: { range: `bytes=${whole.length - 10}-` } });
    expect(open.rawPayload.equals(whole.subarray(whole.length - 10))).toBe(true);
    const past = await t.server.app.inject({ url: `/download/${jobId}/pdf`, headers: { range: `bytes=${whole.length}-` } });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${whole.length}`);
    // Several ranges are answered with the whole file, which HTTP allows.
    const multi = await t.server.app.inject({ url: `/download/${jobId}/pdf`, headers: { range: 'bytes=0-1,5-6' } });
    expect(multi.statusCode).toBe(200);
    expect(multi.rawPayload.length).toBe(whole.length);
  });

  it('answers 404 for the Markdown of a job without OCR, 400 for another kind, 404 for an unknown job', async () => {
    const md = await t.server.app.inject({ url: `/download/${jobId}/md` });
    expect(md.statusCode).toBe(404);
    expect(md.json()).toEqual({ error: { code: 'no_artifact', message: expect.any(String) } });
    const kind = await t.server.app.inject({ url: `/download/${jobId}/docx` });
    expect(kind.statusCode).toBe(400);
    expect(kind.json().error.code).toBe('bad_kind');
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', '..', 'not-an-id']) {
      const res = await t.server.app.inject({ url: `/download/${id}/pdf` });
      expect(res.statusCode).toBe(404);
    }
  });

  it('answers unknown addresses with a JSON 404', async () => {
    const res = await t.server.app.inject({ url: '/nothing/here?api_key=x' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('no_route');
  });

  it('deletes the job: folder gone, row gone, links dead', async () => {
    const res = await t.server.app.inject({ method: 'POST', url: `/delete/${jobId}`, ...multipart([['api_key', key]]) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: true });
    expect(await listTree(t.dataDir)).toEqual(['.uploads/']);
    expect((await t.server.app.inject({ url: `/check/${jobId}?api_key=${key}` })).statusCode).toBe(404);
    expect((await t.server.app.inject({ url: `/download/${jobId}/pdf` })).statusCode).toBe(404);
    expect((await t.server.app.inject({ url: `/list?api_key=${key}` })).json()).toEqual({ jobs: [] });
    const again = await t.server.app.inject({ method: 'POST', url: `/delete/${jobId}`, ...multipart([['api_key', key]]) });
    expect(again.statusCode).toBe(404);
  });
});

describe('a real conversion cancelled while it runs', () => {
  it('stops at a frame boundary, leaves nothing on disk, and keeps the row as cancelled', async () => {
    const t = await testServer();
    try {
      const key = await t.newKey();
      const res = await t.server.app.inject({
        method: 'POST',
        url: '/run',
        ...multipart([
          ['api_key', key],
          ['file', { name: 'sample.aglbundle', data: await readFile(SAMPLE) }],
        ]),
      });
      const id = res.json<{ job_id: string }>().job_id;
      const running = t.server.processor.tick();
      await waitFor(async () => (await t.server.app.inject({ url: `/check/${id}?api_key=${key}` })).json().status === 'processing', 10_000, 5);
      const cancel = await t.server.app.inject({ method: 'POST', url: `/cancel/${id}`, ...multipart([['api_key', key]]) });
      expect(cancel.json()).toEqual({ job_id: id, status: 'cancelled' });
      expect(await running).toEqual({ jobId: id, status: 'cancelled' });
      expect(await listTree(t.dataDir)).toEqual(['.uploads/']);
      expect((await t.server.app.inject({ url: `/list?api_key=${key}` })).json().jobs).toEqual([expect.objectContaining({ job_id: id, status: 'cancelled' })]);
      expect((await t.server.app.inject({ url: `/download/${id}/pdf` })).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });
});
