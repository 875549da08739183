/** HTTP details a client or a reverse proxy relies on: pages of /list, 405, validators on downloads, a path prefix. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngine } from './fake-engine.js';
import { adminSecretOf, multipart, testServer, type TestServer } from './helpers.js';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

describe('/list', () => {
  let t: TestServer;
  let key: string;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await testServer();
    key = await t.newKey();
    const keyId = (await t.server.store.listKeys())[0].keyId;
    for (let i = 0; i < 120; i++) {
      const jobId = `job${String(i).padStart(19, '0')}`;
      await t.server.store.insertJob({ jobId, keyId, emailNotif: false, ocr: null, dpi: null, uploadName: 'a.pdf', inputExt: 'pdf' }, Date.now());
      ids.unshift(jobId);
    }
  });
  afterAll(() => t.close());

  const list = async (query: string) =>
    (await t.server.app.inject({ url: `/list?api_key=${key}${query}` })).json<{ jobs: Array<{ job_id: string }>; next?: string }>();

  it('answers 50 jobs a page, newest first, with a next cursor that walks through them all once', async () => {
    const first = await list('');
    expect(first.jobs.map((j) => j.job_id)).toEqual(ids.slice(0, 50));
    const seen = [...first.jobs];
    let next = first.next;
    while (next) {
      const page = await list(`&limit=40&cursor=${encodeURIComponent(next)}`);
      expect(page.jobs.length).toBeLessThanOrEqual(40);
      seen.push(...page.jobs);
      next = page.next;
    }
    expect(seen.map((j) => j.job_id)).toEqual(ids);
    // The last page has no cursor; a page of exactly what is left has none either.
    expect(await list('&limit=120')).not.toHaveProperty('next');
    expect((await list('&limit=500')).jobs).toHaveLength(120);
  });

  it('refuses a limit over 500 and a cursor it did not make', async () => {
    expect((await t.server.app.inject({ url: `/list?api_key=${key}&limit=501` })).statusCode).toBe(400);
    const bad = await t.server.app.inject({ url: `/list?api_key=${key}&cursor=not-ours` });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/cursor/);
  });

  it('answers one page however many jobs a key has (10,000 jobs are no longer one answer)', async () => {
    const res = await t.server.app.inject({ url: `/list?api_key=${key}` });
    expect(res.rawPayload.length).toBeLessThan(12_000);
  });
});

describe('methods, validators and a proxy prefix', () => {
  let t: TestServer;
  let key: string;
  let jobId: string;

  beforeAll(async () => {
    const engine = new FakeEngine();
    engine.auto = true;
    t = await testServer({ engine, trustProxy: '127.0.0.1', limits: { minFreeDisk: 0 } });
    key = await t.newKey();
    jobId = (
      await t.server.app.inject({
        method: 'POST',
        url: '/run',
        ...multipart([
          ['api_key', key],
          ['file', { name: 'a.pdf', data: PDF }],
        ]),
      })
    ).json<{ job_id: string }>().job_id;
    await t.server.processor.runNext();
  });
  afterAll(() => t.close());

  it('marks answers that carry a key, a webhook secret or download links no-store and nosniff', async () => {
    const made = await t.server.app.inject({
      method: 'POST',
      url: '/admin/keys?email=c%40example.org',
      headers: { authorization: `Bearer ${adminSecretOf(t)}` },
    });
    const got = await t.server.app.inject({ url: `/get/${jobId}`, headers: { 'x-api-key': key } });
    const listed = await t.server.app.inject({ url: '/list', headers: { 'x-api-key': key } });
    const submitted = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', key],
        ['file', { name: 'b.pdf', data: PDF }],
      ]),
    });
    const refused = await t.server.app.inject({ url: `/check/${jobId}?api_key=wrong` });
    expect(made.json()).toHaveProperty('webhook_secret');
    expect(got.json().pdf_url).toContain('/download/');
    for (const [name, res] of Object.entries({ made, got, listed, submitted, refused })) {
      expect(res.headers['cache-control'], name).toBe('no-store');
      expect(res.headers['x-content-type-options'], name).toBe('nosniff');
    }
    // A download keeps its validators (a client may keep the file and ask again with If-None-Match).
    const file = await t.server.app.inject({ url: `/download/${jobId}/pdf` });
    expect(file.headers['cache-control']).toBe('private, no-cache');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 405 with Allow to a method an address does not take, 404 to an address that does not exist', async () => {
    const run = await t.server.app.inject({ method: 'GET', url: '/run' });
    expect(run.statusCode).toBe(405);
    expect(run.headers.allow).toBe('POST');
    expect(run.json().error).toEqual({ code: 'method_not_allowed', message: 'This address does not take this method: it takes POST.' });
    const health = await t.server.app.inject({ method: 'DELETE', url: '/health' });
    expect(health.statusCode).toBe(405);
    expect(health.headers.allow).toBe('GET, HEAD');
    expect((await t.server.app.inject({ method: 'PUT', url: `/download/${jobId}/pdf` })).headers.allow).toBe('GET, HEAD');
    expect((await t.server.app.inject({ method: 'GET', url: '/nothing' })).statusCode).toBe(404);
  });

  it('gives downloads an ETag; If-None-Match gets 304, If-Range resumes only the same file', async () => {
    const url = `/download/${jobId}/pdf`;
    const whole = await t.server.app.inject({ url });
    const etag = whole.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect((await t.server.app.inject({ url, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    const resumed = await t.server.app.inject({ url, headers: { range: 'bytes=5-', 'if-range': etag } });
    expect(resumed.statusCode).toBe(206);
    expect(resumed.rawPayload.equals(whole.rawPayload.subarray(5))).toBe(true);
    const byDate = await t.server.app.inject({ url, headers: { range: 'bytes=5-', 'if-range': whole.headers['last-modified'] as string } });
    expect(byDate.statusCode).toBe(206);
    // Another version: the whole file, not a piece of this one spliced onto the old.
    const changed = await t.server.app.inject({ url, headers: { range: 'bytes=5-', 'if-range': '"1-1"' } });
    expect(changed.statusCode).toBe(200);
    expect(changed.rawPayload.equals(whole.rawPayload)).toBe(true);
  });

  it('puts a trusted proxy’s X-Forwarded-Prefix in links, redirects and the admin cookie; an untrusted one is ignored', async () => {
    const behind = { 'x-forwarded-prefix': '/books/quire/', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'example.org' };
    const get = await t.server.app.inject({ url: `/get/${jobId}?api_key=${key}`, headers: behind, remoteAddress: '127.0.0.1' });
    expect(get.json().pdf_url).toBe(`https://example.org/books/quire/download/${jobId}/pdf`);
    const visit = await t.server.app.inject({ url: `/admin?secret=${t.server.adminSecret}`, headers: behind, remoteAddress: '127.0.0.1' });
    expect(visit.headers.location).toBe('/books/quire/admin');
    expect(String(visit.headers['set-cookie'])).toMatch(/; Path=\/books\/quire\/admin; .*; Secure$/);
    const page = await t.server.app.inject({
      url: '/admin',
      headers: { ...behind, cookie: String(visit.headers['set-cookie']).split(';')[0] },
      remoteAddress: '127.0.0.1',
    });
    expect(page.body).toContain('action="/books/quire/admin/keys"');

    // A prefix that would add cookie attributes, or climb out, is not believed: no prefix at all.
    for (const prefix of ['/x;Domain=evil.example;Path=/', '/x;quire_admin=1', '/x/../y', '/x y', '/x"', '/x%3']) {
      const bad = await t.server.app.inject({
        url: `/admin?secret=${t.server.adminSecret}`,
        headers: { ...behind, 'x-forwarded-prefix': prefix },
        remoteAddress: '127.0.0.1',
      });
      expect(bad.headers.location, prefix).toBe('/admin');
      const cookie = String(bad.headers['set-cookie']);
      expect(cookie, prefix).toMatch(/^quire_admin=[^;]+; Path=\/admin; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/);
      expect(cookie.toLowerCase(), prefix).not.toContain('domain');
    }

    const untrusted = await t.server.app.inject({ url: `/get/${jobId}?api_key=${key}`, headers: behind, remoteAddress: '10.1.2.3' });
    expect(untrusted.json().pdf_url).not.toContain('/books/quire');
    expect(untrusted.json().pdf_url).not.toContain('example.org');
  });
});
