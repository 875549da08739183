import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES, isQuireError, QuireError } from '../../../src/errors.js';
import { parseOcrSpec } from '../../../src/ocr/index.js';
import { type OcrBatchTicket } from '../../../src/project/index.js';
import { makeChunks, planChunks } from '../../../src/ocr/remote/chunks.js';
import { FakeRemoteOcr } from './fake-remote-ocr.js';
import { engineFor, syntheticDocument, textOf, wordsIn } from './helpers.js';

let fake: FakeRemoteOcr;

beforeEach(async () => {
  fake = await new FakeRemoteOcr().start();
});
afterEach(async () => {
  await fake.stop();
});

async function failure(p: Promise<unknown>): Promise<QuireError> {
  try {
    await p;
  } catch (e) {
    if (isQuireError(e)) return e;
    throw e;
  }
  throw new Error('expected a QuireError');
}

describe('the remoteocr spec', () => {
  it('parses streaming (the default) and batch modes with options, and refuses unknown ones', () => {
    expect(parseOcrSpec('remoteocr')).toMatchObject({ engine: 'remoteocr', mode: 'streaming', options: {} });
    expect(parseOcrSpec('remoteocr:streaming')).toMatchObject({ mode: 'streaming' });
    expect(parseOcrSpec('remoteocr:batch:model=ocr-2')).toMatchObject({ engine: 'remoteocr', mode: 'batch', options: { model: 'ocr-2' } });
    expect(parseOcrSpec('remoteocr:model=ocr-2')).toMatchObject({ mode: 'streaming', options: { model: 'ocr-2' } });
    expect(() => parseOcrSpec('remoteocr:later')).toThrow(/has no mode "later".*streaming, batch/);
    expect(() => parseOcrSpec('remoteocr:base_url=http://x')).toThrow(/has no option "base_url"/);
    // Engines without modes still refuse a bare word.
    expect(() => parseOcrSpec('tesseract:batch')).toThrow(/malformed option "batch"/);
  });
});

describe('streaming', () => {
  it('reads a document in one request and places each block in its region of the page', async () => {
    const { engine } = engineFor(fake);
    const doc = syntheticDocument([300, 320, 340]);
    const done: number[] = [];
    const pages = await engine.recognizeDocument!(doc, [], { onPage: (n) => done.push(n) });
    expect(fake.seen('POST', /^\/v1\/ocr$/)).toHaveLength(1);
    const body = fake.seen('POST', /^\/v1\/ocr$/)[0].body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'test-ocr', include_blocks: true, document: { type: 'document_url' } });
    expect(String((body.document as { document_url: string }).document_url)).toMatch(/^data:application\/pdf;base64,/);
    expect(fake.requests[0].auth).toBe(`Bearer ${fake.apiKey}`);
    expect(done).toEqual([1, 2, 3]);
    expect(pages.map(textOf)).toEqual([300, 320, 340].map((w) => `Chapter w${w} The harbour of page w${w} wakes at dawn with gulls`));
    for (const page of pages) {
      expect(page.engine).toBe('remoteocr');
      const words = wordsIn(page);
      // The title inside the title block (top 8–16 %), the body's two lines inside theirs (60–70 %), one under the other.
      const title = words.find((w) => w.text === 'Chapter')!;
      expect(title.y0).toBeGreaterThanOrEqual(0.079);
      expect(title.y1).toBeLessThanOrEqual(0.161);
      const harbour = words.find((w) => w.text === 'harbour')!;
      const gulls = words.find((w) => w.text === 'gulls')!;
      for (const w of [harbour, gulls]) {
        expect(w.y0).toBeGreaterThanOrEqual(0.599);
        expect(w.y1).toBeLessThanOrEqual(0.701);
        expect(w.x0).toBeGreaterThanOrEqual(0.099);
        expect(w.x1).toBeLessThanOrEqual(0.901);
      }
      expect(gulls.y0).toBeGreaterThanOrEqual(harbour.y1 - 0.001);
      // No text where the picture is.
      expect(words.some((w) => w.y0 > 0.29 && w.y1 < 0.51)).toBe(false);
    }
  });

  it('cuts a long document into chunks within the page and size limits, in order', async () => {
    const { engine } = engineFor(fake, { limits: { maxPages: 2, maxBytes: 60_000 } });
    // 5 pages of 10 KB at most 2 a chunk: [0,2) [2,4) [4,5).
    const pages = await engine.recognizeDocument!(syntheticDocument([300, 310, 320, 330, 340]), []);
    expect(fake.seen('POST', /^\/v1\/ocr$/)).toHaveLength(3);
    expect(pages.map((p) => textOf(p).split(' ')[1])).toEqual(['w300', 'w310', 'w320', 'w330', 'w340']);

    // By size: 25 KB pages (plus the PDF's own bytes), 80 KB a chunk → two pages a chunk.
    expect(planChunks([25_000, 25_000, 25_000], { maxPages: 1000, maxBytes: 80_000 })).toEqual([
      { from: 0, to: 2 },
      { from: 2, to: 3 },
    ]);
    expect(planChunks(new Array(2500).fill(1000)).map((r) => r.to - r.from)).toEqual([1000, 1000, 500]);
    expect(() => planChunks([10, 70_000], { maxPages: 10, maxBytes: 60_000 })).toThrow(/Page 2 is too large/);
  });

  it('halves a chunk whose PDF comes out larger than the estimate', async () => {
    // 1000 bytes a page once made, 2500 allowed: four pages (4000) are halved into two of two.
    const made: Array<[number, number]> = [];
    const doc = { ...syntheticDocument([1, 2, 3, 4]), pdf: async (from: number, to: number) => (made.push([from, to]), new Uint8Array((to - from) * 1000)) };
    const chunks = await makeChunks(doc, { from: 0, to: 4 }, { maxPages: 1000, maxBytes: 2500 });
    expect(chunks.map((c) => [c.from, c.to])).toEqual([
      [0, 2],
      [2, 4],
    ]);
    expect(made).toEqual([
      [0, 4],
      [0, 2],
      [2, 4],
    ]);
    await expect(makeChunks(doc, { from: 3, to: 4 }, { maxPages: 1000, maxBytes: 500 })).rejects.toThrow(/Page 4 is too large/);
  });

  it('stacks the Markdown from the top when the service gives no blocks', async () => {
    fake.noBlocks = true;
    const { engine } = engineFor(fake);
    const [page] = await engine.recognizeDocument!(syntheticDocument([300]), []);
    expect(textOf(page)).toBe('Chapter w300 The harbour of page w300 wakes at dawn with gulls');
    expect(wordsIn(page).every((w) => w.y0 >= 0.079 && w.x0 >= 0.079)).toBe(true);
  });

  it('refuses before any request when no API key is set', async () => {
    const { engine } = engineFor(fake, { apiKey: null });
    expect(await engine.available()).toEqual({
      ok: false,
      reason: expect.stringMatching(/no API key; set one with quire config set-secret remoteocr.api_key, or the QUIRE_REMOTEOCR_API_KEY/),
    });
    const e = await failure(engine.recognizeDocument!(syntheticDocument([300]), []));
    expect(e.code).toBe(ERROR_CODES.USAGE);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('network failures', () => {
  it('says a refused key in one sentence and does not retry it', async () => {
    const { engine, waits } = engineFor(fake, { apiKey: 'sk-wrong' });
    const e = await failure(engine.recognizeDocument!(syntheticDocument([300]), []));
    expect(e.message).toMatch(
      /^The remote OCR service at 127\.0\.0\.1:\d+ refused the API key \(HTTP 401\); set the right one with quire config set-secret remoteocr\.api_key\.$/,
    );
    expect(e.code).toBe(ERROR_CODES.USAGE);
    expect(fake.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('honours Retry-After on 429, backs off on 500, and retries a dropped connection', async () => {
    fake.fail('POST', /^\/v1\/ocr$/, { status: 429, retryAfter: '7' });
    fake.fail('POST', /^\/v1\/ocr$/, { status: 500 });
    fake.fail('POST', /^\/v1\/ocr$/, { drop: true });
    const { engine, waits } = engineFor(fake, { client: { retry: { attempts: 5, baseDelayMs: 1000 } } });
    const [page] = await engine.recognizeDocument!(syntheticDocument([300]), []);
    expect(textOf(page)).toMatch(/^Chapter w300/);
    expect(fake.seen('POST', /^\/v1\/ocr$/)).toHaveLength(4);
    expect(waits[0]).toBe(7000);
    // Backoff doubles from the base, ±20 %.
    expect(waits[1]).toBeGreaterThanOrEqual(1600);
    expect(waits[1]).toBeLessThanOrEqual(2400);
    expect(waits[2]).toBeGreaterThanOrEqual(3200);
    expect(waits[2]).toBeLessThanOrEqual(4800);
  });

  it('gives up after the last try with one sentence, and at once on a Retry-After too long to wait', async () => {
    fake.fail('POST', /^\/v1\/ocr$/, { status: 503 }, 10);
    const { engine, waits } = engineFor(fake, { client: { retry: { attempts: 3 } } });
    const e = await failure(engine.recognizeDocument!(syntheticDocument([300]), []));
    expect(e.message).toMatch(/^The remote OCR service at 127\.0\.0\.1:\d+ failed \(HTTP 503\) \(tried 3 times\); try again later\.$/);
    expect(e.detail).toMatch(/POST \/v1\/ocr: HTTP 503: Internal error/);
    expect(waits).toHaveLength(2);

    const busy = new FakeRemoteOcr();
    await busy.start();
    try {
      busy.fail('POST', /^\/v1\/ocr$/, { status: 429, retryAfter: '3600' });
      const slow = engineFor(busy);
      const limited = await failure(slow.engine.recognizeDocument!(syntheticDocument([300]), []));
      expect(limited.message).toMatch(/is limiting requests \(HTTP 429\); try again in 60 minutes\.$/);
      expect(slow.waits).toEqual([]);
    } finally {
      await busy.stop();
    }
  });

  it('says an unreachable service in one sentence', async () => {
    const url = fake.url;
    await fake.stop();
    const { engine } = engineFor(Object.assign(new FakeRemoteOcr(), { url }), { client: { retry: { attempts: 2 } } });
    const e = await failure(engine.recognizeDocument!(syntheticDocument([300]), []));
    expect(e.message).toMatch(
      /^Could not reach the remote OCR service at 127\.0\.0\.1:\d+ \(tried 2 times\); check the network and the remoteocr\.base_url setting\.$/,
    );
    fake = await new FakeRemoteOcr().start();
  });
});

describe('batch', () => {
  async function submit(widths = [300, 320, 340]) {
    const { engine, waits } = engineFor(fake, { limits: { maxPages: 2, maxBytes: 50 * 1024 * 1024 } });
    const doc = syntheticDocument(widths);
    const ticket = await engine.submitBatch!(doc, [], { label: 'The Harbour' });
    return { engine, doc, ticket, waits };
  }

  it('uploads the chunks and a JSONL of one line per page, creates the job, and returns at once', async () => {
    const { ticket } = await submit();
    const uploads = fake.seen('POST', /^\/v1\/files$/).map((r) => r.body as { purpose: string; filename: string });
    expect(uploads.map((u) => u.purpose)).toEqual(['ocr', 'ocr', 'batch']);
    expect(uploads[2].filename).toBe('The_Harbour.jsonl');
    const created = fake.seen('POST', /^\/v1\/batch\/jobs$/)[0].body as Record<string, unknown>;
    expect(created).toMatchObject({ endpoint: '/v1/ocr', model: 'test-ocr', metadata: { project: 'The Harbour' }, timeout_hours: 24 });
    const job = fake.batches.get(ticket.batchIds[0])!;
    expect(job.status).toBe('QUEUED');
    expect(job.total_requests).toBe(3);
    const lines = fake.files
      .get(job.input_files[0])!
      .bytes.toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const chunkIds = [...fake.files.values()].filter((f) => f.purpose === 'ocr').map((f) => f.id);
    expect(lines).toEqual([
      { custom_id: 'page-1', body: { document: { type: 'file', file_id: chunkIds[0] }, pages: [0], include_blocks: true } },
      { custom_id: 'page-2', body: { document: { type: 'file', file_id: chunkIds[0] }, pages: [1], include_blocks: true } },
      { custom_id: 'page-3', body: { document: { type: 'file', file_id: chunkIds[1] }, pages: [0], include_blocks: true } },
    ]);
    expect(ticket.submittedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Nothing was read yet.
    expect(fake.seen('POST', /^\/v1\/ocr$/)).toHaveLength(0);
  });

  it('is pending while QUEUED and RUNNING, then maps each output line back to its page', async () => {
    const { engine, doc, ticket } = await submit();
    expect(await engine.poll!(ticket, doc)).toEqual({ state: 'pending', status: 'RUNNING' });
    fake.holdRunning = true;
    expect(await engine.poll!(ticket, doc)).toEqual({ state: 'pending', status: 'RUNNING' });
    fake.holdRunning = false;
    const done = await engine.poll!(ticket, doc);
    if (done.state !== 'done') throw new Error(JSON.stringify(done));
    expect(done.pages.map((p) => textOf(p).split(' ')[1])).toEqual(['w300', 'w320', 'w340']);
    expect(wordsIn(done.pages[2]).find((w) => w.text === 'gulls')!.y0).toBeGreaterThan(0.59);
  });

  it('reads a page whose batch line failed again, and fails naming it when that fails too', async () => {
    fake.failLines.add('page-2');
    const { engine, doc, ticket } = await submit();
    await engine.poll!(ticket, doc);
    const done = await engine.poll!(ticket, doc);
    if (done.state !== 'done') throw new Error(JSON.stringify(done));
    expect(done.pages.map((p) => textOf(p).split(' ')[1])).toEqual(['w300', 'w320', 'w340']);
    expect(fake.seen('POST', /^\/v1\/ocr$/)).toHaveLength(1);

    const again = await submit();
    fake.failOcrWidths.add(320);
    await again.engine.poll!(again.ticket, again.doc);
    const failed = await again.engine.poll!(again.ticket, again.doc);
    expect(failed).toMatchObject({ state: 'failed', message: 'The remote OCR service could not read page 2 of the batch.' });
    expect(failed.state === 'failed' && failed.detail).toMatch(/page-2: HTTP 500: Page could not be processed; read again: .*HTTP 422/);
  });

  it.each([
    ['FAILED', /reported the batch as failed/, /The model could not process/],
    ['TIMEOUT_EXCEEDED', /took longer than the service allows/, /Batch exceeded its timeout/],
  ] as const)('fails a %s batch with its errors in detail', async (outcome, message, detail) => {
    fake.batchOutcome = outcome;
    const { engine, doc, ticket } = await submit();
    await engine.poll!(ticket, doc);
    const polled = await engine.poll!(ticket, doc);
    expect(polled).toMatchObject({ state: 'failed', message: expect.stringMatching(message) });
    expect(polled.state === 'failed' && polled.detail).toMatch(detail);
  });

  it('cancels a running batch; a poll then sees it CANCELLED', async () => {
    const { engine, doc, ticket } = await submit();
    fake.holdRunning = true;
    await engine.poll!(ticket, doc);
    await engine.cancel!(ticket);
    expect(fake.cancelled).toEqual(ticket.batchIds);
    expect(await engine.poll!(ticket, doc)).toMatchObject({ state: 'failed', message: 'The remote OCR batch was cancelled.' });
    // Cancelling a finished batch asks nothing more of the service.
    await engine.cancel!(ticket);
    expect(fake.cancelled).toEqual(ticket.batchIds);
  });

  it('does not repeat the request that creates a batch after a dropped connection', async () => {
    fake.fail('POST', /^\/v1\/batch\/jobs$/, { drop: true });
    const { engine } = engineFor(fake);
    const e = await failure(engine.submitBatch!(syntheticDocument([300]), []));
    expect(e.message).toMatch(/^Could not reach the remote OCR service/);
    expect(fake.seen('POST', /^\/v1\/batch\/jobs$/)).toHaveLength(1);
    // A 429 proves it was not taken: that one is retried.
    fake.fail('POST', /^\/v1\/batch\/jobs$/, { status: 429, retryAfter: '1' });
    const ticket: OcrBatchTicket = await engine.submitBatch!(syntheticDocument([300]), []);
    expect(fake.batches.has(ticket.batchIds[0])).toBe(true);
  });
});
