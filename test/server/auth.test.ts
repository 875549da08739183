import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey, secretMatches } from '../../src/server/secrets.js';
import { redactUrl } from '../../src/server/logging.js';
import { adminSecretOf, listTree, multipart, testServer, type TestServer } from './helpers.js';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

describe('API keys', () => {
  let t: TestServer;
  let alice: string;
  let bob: string;
  let aliceJob: string;

  beforeAll(async () => {
    t = await testServer();
    alice = await t.newKey('alice@example.org');
    bob = await t.newKey('bob@example.org');
    const res = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', alice],
        ['file', { name: 'a.pdf', data: PDF }],
      ]),
    });
    aliceJob = res.json<{ job_id: string }>().job_id;
  });
  afterAll(() => t.close());

  const calls = (key: string | null, jobId: string) => {
    const q = key === null ? '' : `?api_key=${encodeURIComponent(key)}`;
    const form = key === null ? multipart([]) : multipart([['api_key', key]]);
    return [
      { method: 'GET' as const, url: `/list${q}` },
      { method: 'GET' as const, url: `/check/${jobId}${q}` },
      { method: 'GET' as const, url: `/get/${jobId}${q}` },
      { method: 'POST' as const, url: `/delete/${jobId}`, ...form },
      { method: 'POST' as const, url: `/cancel/${jobId}`, ...form },
      {
        method: 'POST' as const,
        url: '/run',
        ...(key === null
          ? multipart([['file', { name: 'x.pdf', data: PDF }]])
          : multipart([
              ['api_key', key],
              ['file', { name: 'x.pdf', data: PDF }],
            ])),
      },
    ];
  };

  it('answers 401 with a JSON error to a missing, empty or wrong key on every caller endpoint', async () => {
    for (const key of [null, '', 'not-a-key', alice.slice(0, -1) + (alice.endsWith('A') ? 'B' : 'A')]) {
      for (const call of calls(key, aliceJob)) {
        const res = await t.server.app.inject(call);
        expect(res.statusCode, `${call.method} ${call.url} with ${JSON.stringify(key)}`).toBe(401);
        expect(res.json().error.code).toBe('unauthorized');
        expect(res.json().error.message).toMatch(/\.$/);
      }
    }
    // Nothing of the refused uploads stayed.
    expect(await listTree(t.dataDir)).toEqual(['.uploads/', `${aliceJob}/`, `${aliceJob}/input.pdf`].sort());
  });

  it('answers 404 for another key’s job, exactly as for a job that does not exist', async () => {
    for (const jobId of [aliceJob, 'AAAAAAAAAAAAAAAAAAAAAA']) {
      for (const call of calls(bob, jobId).slice(1, 5)) {
        const res = await t.server.app.inject(call);
        expect(res.statusCode, `${call.method} ${call.url}`).toBe(404);
        expect(res.json()).toEqual({ error: { code: 'not_found', message: 'There is no such job.' } });
      }
    }
    expect((await t.server.app.inject({ url: `/list?api_key=${bob}` })).json()).toEqual({ jobs: [] });
    expect((await t.server.app.inject({ url: `/check/${aliceJob}?api_key=${alice}` })).statusCode).toBe(200);
  });

  it('stores only the sha256 of a key', async () => {
    const rows = await t.sql('SELECT * FROM api_keys');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(alice);
    expect(rows.map((r) => r.key_hash)).toContain(hashKey(alice));
    expect(alice).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a revoked key with 401; its jobs stay', async () => {
    const carol = await t.newKey('carol@example.org');
    const keys = await t.server.store.listKeys();
    const carolId = keys.find((k) => k.email === 'carol@example.org')!.keyId;
    expect((await t.server.app.inject({ url: `/list?api_key=${carol}` })).statusCode).toBe(200);
    const res = await t.server.app.inject({ method: 'POST', url: `/admin/keys/${carolId}/revoke?secret=${t.server.adminSecret}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ key_id: carolId, revoked: true, cancelled_jobs: 0 });
    for (const call of calls(carol, aliceJob)) expect((await t.server.app.inject(call)).statusCode).toBe(401);
    // Revoking again is harmless; an unknown key is 404.
    expect((await t.server.app.inject({ method: 'POST', url: `/admin/keys/${carolId}/revoke?secret=${t.server.adminSecret}` })).statusCode).toBe(200);
    expect((await t.server.app.inject({ method: 'POST', url: `/admin/keys/999/revoke?secret=${t.server.adminSecret}` })).statusCode).toBe(404);
    expect((await t.server.app.inject({ method: 'POST', url: `/admin/keys/abc/revoke?secret=${t.server.adminSecret}` })).statusCode).toBe(404);
  });
});

describe('the admin secret', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await testServer();
  });
  afterAll(() => t.close());

  it('is a 43-character random token made by the first start; later starts keep it and cannot show it', async () => {
    expect(t.server.adminSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await testServer({}, t.dir);
    expect(again.server.adminSecret).toBeNull();
    expect((await again.server.app.inject({ url: '/admin', headers: { authorization: `Bearer ${t.server.adminSecret}` } })).statusCode).toBe(200);
    await again.server.close();
  });

  it('guards every admin endpoint: missing or wrong gives 401 and does nothing', async () => {
    const secret = t.server.adminSecret!;
    const wrong = secret.slice(0, -1) + (secret.endsWith('x') ? 'y' : 'x');
    for (const q of ['', '?secret=', `?secret=${wrong}`, `?secret=${secret}x`]) {
      for (const call of [
        { method: 'GET' as const, url: `/admin${q}` },
        { method: 'POST' as const, url: `/admin/keys${q}${q ? '&' : '?'}email=a@example.org` },
        { method: 'POST' as const, url: `/admin/keys/1/revoke${q}` },
      ]) {
        const res = await t.server.app.inject(call);
        expect(res.statusCode, `${call.method} ${call.url}`).toBe(401);
        expect(res.json().error.code).toBe('admin_unauthorized');
      }
    }
    expect(await t.server.store.listKeys()).toEqual([]);
  });

  it('compares in constant time over hashes, whatever the length given', () => {
    expect(secretMatches('abc', 'abc')).toBe(true);
    expect(secretMatches('abd', 'abc')).toBe(false);
    expect(secretMatches('a much longer value', 'abc')).toBe(false);
    expect(secretMatches(undefined, 'abc')).toBe(false);
    expect(secretMatches('', '')).toBe(false);
  });
});

describe('the admin page', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await testServer();
  });
  afterAll(() => t.close());

  it('creates a key from a form field or a query parameter, shown once', async () => {
    const form = await t.server.app.inject({
      method: 'POST',
      url: `/admin/keys?secret=${t.server.adminSecret}`,
      ...multipart([['email', 'form@example.org']]),
    });
    expect(form.statusCode).toBe(200);
    expect(form.json()).toEqual({
      key_id: 1,
      email: 'form@example.org',
      api_key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const query = await t.server.app.inject({ method: 'POST', url: `/admin/keys?secret=${t.server.adminSecret}&email=query%40example.org` });
    expect(query.json()).toMatchObject({ key_id: 2, email: 'query@example.org' });
    for (const bad of ['', 'not-an-address', 'a@b', '<x>@example.org']) {
      const res = await t.server.app.inject({ method: 'POST', url: `/admin/keys?secret=${t.server.adminSecret}`, ...multipart([['email', bad]]) });
      expect(res.statusCode, bad).toBe(400);
    }
  });

  it('works as a plain HTML page after a first visit with the secret: a session cookie, forms with a CSRF token, no script', async () => {
    const secret = t.server.adminSecret!;
    // The visit with the secret trades it for a session cookie and takes the secret out of the address bar.
    const visit = await t.server.app.inject({ url: `/admin?secret=${secret}`, headers: { accept: 'text/html' } });
    expect(visit.statusCode).toBe(303);
    expect(visit.headers.location).toBe('/admin');
    const setCookie = String(visit.headers['set-cookie']);
    expect(setCookie).toMatch(/^quire_admin=[A-Za-z0-9_-]{43}; Path=\/admin; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    const cookie = setCookie.split(';')[0];
    const first = await t.server.app.inject({ url: '/admin', headers: { cookie } });
    expect(first.statusCode).toBe(200);
    expect(first.body).not.toContain(secret);
    const csrf = /name="csrf" value="([A-Za-z0-9_-]{43})"/.exec(first.body)?.[1];
    expect(csrf).toBeDefined();

    // A browser posts the page's form URL-encoded and asks for HTML; the cookie alone is not enough.
    const html = { accept: 'text/html,application/xhtml+xml', 'content-type': 'application/x-www-form-urlencoded', cookie };
    for (const payload of ['email=page%40example.org', `email=page%40example.org&csrf=${csrf!.slice(0, -1)}x`]) {
      const forged = await t.server.app.inject({ method: 'POST', url: '/admin/keys', headers: html, payload });
      expect(forged.statusCode).toBe(403);
      expect(forged.json().error.code).toBe('bad_csrf');
    }
    const created = await t.server.app.inject({ method: 'POST', url: '/admin/keys', headers: html, payload: `email=%3Cb%3Eevil%40example.org&csrf=${csrf}` });
    expect(created.statusCode).toBe(400);
    const ok = await t.server.app.inject({ method: 'POST', url: '/admin/keys', headers: html, payload: `email=page%40example.org&csrf=${csrf}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('text/html; charset=utf-8');
    const raw = /<code>([A-Za-z0-9_-]{43})<\/code>/.exec(ok.body)?.[1];
    expect(raw).toBeDefined();
    expect((await t.server.app.inject({ url: `/list?api_key=${raw}` })).statusCode).toBe(200);

    await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', raw!],
        ['file', { name: 'a.pdf', data: PDF }],
      ]),
    });
    const revoked = await t.server.app.inject({ method: 'POST', url: '/admin/keys/1/revoke', headers: html, payload: `csrf=${csrf}` });
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe('/admin');

    const page = await t.server.app.inject({ url: '/admin', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).not.toContain('<script');
    expect(page.body).toMatch(/<td>pending<\/td><td class="n">1<\/td>/);
    expect(page.body).toMatch(/<td>done<\/td><td class="n">0<\/td>/);
    // id, email, state, created, job count; revoked keys have no revoke button.
    expect(page.body).toMatch(
      /<tr class="revoked"><td class="n">1<\/td><td>form@example.org<\/td><td>revoked<\/td><td>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/td><td class="n">0<\/td><td><\/td><\/tr>/,
    );
    expect(page.body).toMatch(
      /<td class="n">3<\/td><td>page@example.org<\/td><td>active<\/td><td>[^<]+<\/td><td class="n">1<\/td><td><form class="inline" method="post" action="\/admin\/keys\/3\/revoke"><input type="hidden" name="csrf" value="[A-Za-z0-9_-]{43}">/,
    );
    expect(page.body).toContain(`<form method="post" action="/admin/keys"><input type="hidden" name="csrf" value="${csrf}">`);

    // Signing out ends the session; a browser without one is told how to sign in.
    expect((await t.server.app.inject({ method: 'POST', url: '/admin/logout', headers: html, payload: `csrf=${csrf}` })).statusCode).toBe(303);
    const after = await t.server.app.inject({ url: '/admin', headers: { cookie, accept: 'text/html' } });
    expect(after.statusCode).toBe(401);
    expect(after.body).toContain('/admin?secret=');
  });

  it('lists the workers with their last heartbeat', async () => {
    const page = async () => (await t.server.app.inject({ url: '/admin', headers: { authorization: `Bearer ${t.server.adminSecret}` } })).body;
    expect(await page()).toContain('No worker is running');
    const beat = Date.UTC(2030, 0, 2, 3, 4, 5);
    await t.server.store.workerAlive({
      workerId: 'scanner-b:4242:ab',
      host: 'scanner-b',
      pid: 4242,
      concurrency: 2,
      startedAt: beat - 60_000,
      heartbeat: beat,
      leaseUntil: Date.now() + 60_000,
    });
    const html = await page();
    expect(html).toMatch(
      /<tr><td>scanner-b<\/td><td class="n">4242<\/td><td class="n">2<\/td><td>2030-01-02 03:03:05 UTC<\/td><td>2030-01-02 03:04:05 UTC<\/td><\/tr>/,
    );
  });

  it('takes the secret in a header, for programs, and never in a form post without it', async () => {
    const secret = t.server.adminSecret!;
    const form = (email: string) => multipart([['email', email]]);
    for (const given of [{ authorization: `Bearer ${secret}` }, { 'x-admin-secret': secret }]) {
      const { payload, headers } = form('header@example.org');
      const res = await t.server.app.inject({ method: 'POST', url: '/admin/keys', payload, headers: { ...headers, ...given } });
      expect(res.statusCode).toBe(200);
    }
    const { payload, headers } = form('x@example.org');
    const refused = await t.server.app.inject({ method: 'POST', url: '/admin/keys', payload, headers: { ...headers, authorization: `Bearer ${secret}x` } });
    expect(refused.statusCode).toBe(401);
  });

  it('escapes what people typed', async () => {
    await t.server.app.inject({ method: 'POST', url: `/admin/keys?secret=${t.server.adminSecret}`, ...multipart([['email', "o'brien&co@example.org"]]) });
    const page = await t.server.app.inject({ url: '/admin', headers: { authorization: `Bearer ${t.server.adminSecret}` } });
    expect(page.body).toContain('o&#39;brien&amp;co@example.org');
  });
});

describe('logs', () => {
  it('never carry an API key or the admin secret, in URLs or bodies', async () => {
    const lines: string[] = [];
    const t = await testServer({ logger: { level: 'trace', stream: { write: (l) => void lines.push(l) } } });
    try {
      const key = await t.newKey();
      const secret = t.server.adminSecret;
      await t.server.app.inject({ url: `/list?api_key=${key}` });
      await t.server.app.inject({ url: `/list?api%5Fkey=${key}&x=1` });
      await t.server.app.inject({ url: `/check/AAAAAAAAAAAAAAAAAAAAAA?API_KEY=${key}` });
      await t.server.app.inject({ url: `/admin?secret=${secret}` });
      await t.server.app.inject({ url: `/admin?secret=${secret}x` });
      await t.server.app.inject({ url: `/nowhere?secret=${secret}&api_key=${key}` });
      await t.server.app.inject({
        method: 'POST',
        url: '/run',
        ...multipart([
          ['api_key', key],
          ['file', { name: 'bad.txt', data: PDF }],
        ]),
      });
      await t.server.app.inject({
        method: 'POST',
        url: '/delete/AAAAAAAAAAAAAAAAAAAAAA',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `api_key=${key}`,
      });
      const log = lines.join('');
      expect(lines.length).toBeGreaterThan(10);
      expect(log).not.toContain(key);
      expect(log).not.toContain(secret);
      expect(log).toContain('/list?api_key=[redacted]');
      expect(log).toContain('/admin?secret=[redacted]');
    } finally {
      await t.close();
    }
  });

  it('redact URLs by the decoded parameter name and keep the rest', () => {
    expect(redactUrl('/list?api_key=abc&limit=5')).toBe('/list?api_key=[redacted]&limit=5');
    expect(redactUrl('/a?x=1&api%5Fkey=abc#f')).toBe('/a?x=1&api%5Fkey=[redacted]#f');
    expect(redactUrl('/admin?SECRET=abc')).toBe('/admin?SECRET=[redacted]');
    expect(redactUrl('/health')).toBe('/health');
  });
});

describe('failed authentication', () => {
  let t: TestServer;
  let now = 1_800_000_000_000;
  beforeAll(async () => {
    t = await testServer({ clock: () => now, limits: { failedAuthPerMinute: 5 } });
  });
  afterAll(() => t.close());

  const check = (key: string, from: string) => t.server.app.inject({ url: '/list', headers: { 'x-api-key': key }, remoteAddress: from });

  it('is throttled per address: past the allowance even the right key waits until the minute is over; other addresses are not touched', async () => {
    const key = await t.newKey();
    for (let i = 0; i < 5; i++) expect((await check(`wrong-${i}`, '203.0.113.7')).statusCode).toBe(401);
    const refused = await check('wrong-again', '203.0.113.7');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('auth_throttled');
    expect(Number(refused.headers['retry-after'])).toBe(60);
    // The right key from that address is refused too (guessing must not go on); from elsewhere it works.
    expect((await check(key, '203.0.113.7')).statusCode).toBe(429);
    expect((await check(key, '198.51.100.2')).statusCode).toBe(200);
    now += 30_000;
    expect(Number((await check(key, '203.0.113.7')).headers['retry-after'])).toBe(30);
    now += 30_000;
    expect((await check(key, '203.0.113.7')).statusCode).toBe(200);
  });

  it('counts wrong admin secrets too; a visit with none does not count', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await t.server.app.inject({
        method: 'POST',
        url: '/admin/keys?email=x%40example.org',
        headers: { authorization: `Bearer wrong-${i}` },
        remoteAddress: '192.0.2.9',
      });
      expect(res.statusCode).toBe(401);
    }
    const res = await t.server.app.inject({
      method: 'POST',
      url: '/admin/keys?email=x%40example.org',
      headers: { authorization: `Bearer ${adminSecretOf(t)}` },
      remoteAddress: '192.0.2.9',
    });
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('auth_throttled');
    // A first visit with nothing to check is not a failure.
    for (let i = 0; i < 8; i++)
      expect((await t.server.app.inject({ url: '/admin', headers: { accept: 'text/html' }, remoteAddress: '192.0.2.10' })).statusCode).toBe(401);
    expect(
      (
        await t.server.app.inject({
          method: 'POST',
          url: '/admin/keys?email=y%40example.org',
          headers: { authorization: `Bearer ${adminSecretOf(t)}` },
          remoteAddress: '192.0.2.10',
        })
      ).statusCode,
    ).toBe(200);
  });
});
