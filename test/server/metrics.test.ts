import { afterEach, describe, expect, it } from 'vitest';
import { FakeEngine } from './fake-engine.js';
import { multipart, testServer, waitFor, type TestServer } from './helpers.js';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
let open: TestServer[] = [];

afterEach(async () => {
  for (const t of open) await t.close().catch(() => undefined);
  open = [];
});

async function setup(): Promise<{ t: TestServer; key: string }> {
  const engine = new FakeEngine();
  engine.auto = true;
  const t = await testServer({ engine });
  open.push(t);
  return { t, key: await t.newKey() };
}

async function submit(t: TestServer, key: string): Promise<string> {
  const res = await t.server.app.inject({
    method: 'POST',
    url: '/run',
    ...multipart([
      ['api_key', key],
      ['file', { name: 'book.pdf', data: PDF }],
    ]),
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ job_id: string }>().job_id;
}

/** The samples of a Prometheus exposition, by series (name with its labels); every line checked for its form. */
async function scrape(t: TestServer): Promise<Map<string, number>> {
  const res = await t.server.app.inject({ url: '/metrics' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  const samples = new Map<string, number>();
  const typed = new Set<string>();
  for (const line of res.body.split('\n').filter(Boolean)) {
    const type = /^# TYPE (\w+) (counter|gauge|histogram)$/.exec(line);
    if (type) typed.add(type[1]);
    if (line.startsWith('#')) {
      expect(line).toMatch(/^# (HELP|TYPE) \w+ .+$/);
      continue;
    }
    const m = /^(\w+)(\{[a-z_]+="(?:[^"\\]|\\.)*"(?:,[a-z_]+="(?:[^"\\]|\\.)*")*\})? (-?[0-9.e+]+)$/.exec(line);
    expect(m, line).not.toBeNull();
    // Every sample belongs to a family declared before it.
    expect(
      [...typed].some((name) => m![1] === name || m![1].startsWith(`${name}_`)),
      line,
    ).toBe(true);
    samples.set(`${m![1]}${m![2] ?? ''}`, Number(m![3]));
  }
  return samples;
}

describe('GET /metrics', () => {
  it('counts jobs by status, ended jobs, pages, queue wait and processing time, in the Prometheus text format', async () => {
    const { t, key } = await setup();
    let m = await scrape(t);
    expect(m.get('quire_up')).toBe(1);
    for (const status of ['pending', 'processing', 'ocr_pending', 'done', 'failed', 'cancelled']) expect(m.get(`quire_jobs{status="${status}"}`)).toBe(0);
    expect(m.get('quire_jobs_ended_total{status="done"}')).toBe(0);
    expect(m.get('quire_job_queue_wait_seconds_count')).toBe(0);

    await submit(t, key);
    await submit(t, key);
    await submit(t, key);
    m = await scrape(t);
    expect(m.get('quire_jobs{status="pending"}')).toBe(3);
    expect(await t.server.processor.tick()).toMatchObject({ status: 'done' });
    expect(await t.server.processor.tick()).toMatchObject({ status: 'done' });
    m = await scrape(t);
    expect(m.get('quire_jobs{status="pending"}')).toBe(1);
    expect(m.get('quire_jobs{status="done"}')).toBe(2);
    expect(m.get('quire_jobs_ended_total{status="done"}')).toBe(2);
    expect(m.get('quire_jobs_ended_total{status="failed"}')).toBe(0);
    // The fake book has six pages.
    expect(m.get('quire_pages_processed_total')).toBe(12);
    expect(m.get('quire_job_queue_wait_seconds_count')).toBe(2);
    expect(m.get('quire_job_queue_wait_seconds_bucket{le="+Inf"}')).toBe(2);
    expect(m.get('quire_job_processing_seconds_count')).toBe(2);
    expect(m.get('quire_job_processing_seconds_bucket{le="3600"}')).toBe(2);
    // Buckets are cumulative.
    const buckets = [...m].filter(([name]) => name.startsWith('quire_job_queue_wait_seconds_bucket')).map(([, v]) => v);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(m.get('quire_job_queue_wait_seconds_sum')).toBeGreaterThanOrEqual(0);
  });

  it('counts the workers that are alive, with when each last said so', async () => {
    const { t } = await setup();
    expect((await scrape(t)).get('quire_workers')).toBe(0);
    const before = Date.now() / 1000;
    t.server.startWorker();
    const m = await waitFor(async () => {
      const s = await scrape(t);
      return s.get('quire_workers') === 1 ? s : null;
    });
    expect(m.get('quire_worker_slots')).toBe(1);
    const beats = [...m].filter(([name]) => name.startsWith('quire_worker_last_heartbeat_timestamp_seconds{'));
    expect(beats).toHaveLength(1);
    expect(beats[0][0]).toContain(`worker="${t.server.processor.workerId}"`);
    expect(beats[0][1]).toBeGreaterThanOrEqual(Math.floor(before));
    expect(beats[0][1]).toBeLessThanOrEqual(Date.now() / 1000 + 1);
  });
});

describe('GET /health', () => {
  it('answers 200 while the database answers, and 503 with quire_up 0 on /metrics once it does not', async () => {
    const { t } = await setup();
    const up = await t.server.app.inject({ url: '/health' });
    expect(up.statusCode).toBe(200);
    expect(up.json()).toEqual({ ok: true });
    // The database goes away under the running server.
    await t.server.store.close();
    const down = await t.server.app.inject({ url: '/health' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ ok: false, error: { code: 'database_unavailable', message: expect.stringMatching(/database/) } });
    const metrics = await t.server.app.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(/^quire_up 0$/m);
  });
});
