import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { CreateAppOptions } from '../../src/server/index.js';
import { FakeEngine } from './fake-engine.js';
import { adminSecretOf, multipart, testServer, waitFor, type TestServer } from './helpers.js';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
let open: Array<{ close(): Promise<unknown> }> = [];

afterEach(async () => {
  for (const o of open) await o.close().catch(() => undefined);
  open = [];
});

/** A webhook receiver on loopback answering the statuses given, in turn (the last one from then on). */
async function receiver(statuses: number[]): Promise<{ url: string; posts: Array<{ headers: IncomingHttpHeaders; body: string }> }> {
  const posts: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      posts.push({ headers: req.headers, body });
      res.writeHead(statuses[Math.min(posts.length, statuses.length) - 1]).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({ close: () => new Promise((resolve) => server.close(resolve)) });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/quire`, posts };
}

async function setup(options: CreateAppOptions = {}): Promise<{ t: TestServer; key: string; secret: string }> {
  const engine = new FakeEngine();
  engine.auto = true;
  const t = await testServer({ engine, ...options });
  open.push(t);
  const res = await t.server.app.inject({
    method: 'POST',
    url: '/admin/keys?email=hooks%40example.org',
    headers: { authorization: `Bearer ${adminSecretOf(t)}` },
  });
  const { api_key: key, webhook_secret: secret } = res.json<{ api_key: string; webhook_secret: string }>();
  return { t, key, secret };
}

const run = (t: TestServer, key: string, webhook: string) =>
  t.server.app.inject({
    method: 'POST',
    url: '/run',
    ...multipart([
      ['api_key', key],
      ['webhook_url', webhook],
      ['file', { name: 'book.pdf', data: PDF }],
    ]),
  });

async function submit(t: TestServer, key: string, webhook: string): Promise<string> {
  const res = await run(t, key, webhook);
  expect(res.statusCode).toBe(200);
  return res.json<{ job_id: string }>().job_id;
}

interface WebhookView {
  url: string;
  state: string;
  next_attempt: string | null;
  attempts: Array<{ at: string; status: number | null; error: string | null }>;
}
const get = async (t: TestServer, key: string, id: string) =>
  (await t.server.app.inject({ url: `/get/${id}?api_key=${key}` })).json<{ pdf_url: string | null; webhook?: WebhookView }>();

/** The signature as a receiver checks it: HMAC-SHA256 of "<t>.<body>" with the key's secret, and a recent time. */
function verify(secret: string, header: string | string[] | undefined, body: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${body}`).digest('hex');
  return expected === m[2] && Math.abs(Date.now() / 1000 - Number(m[1])) < 60;
}

describe('webhooks', () => {
  it('post the ended job signed with the key’s secret, again after a 503, and show every attempt on /get', async () => {
    const hook = await receiver([503, 200]);
    let now = Date.now();
    const { t, key, secret } = await setup({ allowPrivateWebhooks: true, webhookRetryDelaysMs: [100, 100], clock: () => now });
    const id = await submit(t, key, hook.url);
    expect((await get(t, key, id)).webhook).toEqual({ url: hook.url, state: 'waiting', next_attempt: null, attempts: [] });
    // Nothing is posted before the job ends.
    expect(await t.server.webhooks.deliverDue()).toBe(0);
    expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'done' });

    expect(await t.server.webhooks.deliverDue()).toBe(1);
    let view = await get(t, key, id);
    expect(view.webhook).toMatchObject({ state: 'pending', attempts: [{ status: 503, error: 'the receiver answered 503' }] });
    expect(Date.parse(view.webhook!.next_attempt!)).toBeGreaterThan(Date.parse(view.webhook!.attempts[0].at));
    // Not before its time.
    now += 99;
    expect(await t.server.webhooks.deliverDue()).toBe(0);
    now += 1;
    expect(await t.server.webhooks.deliverDue()).toBe(1);
    view = await get(t, key, id);
    expect(view.webhook).toMatchObject({ state: 'delivered', next_attempt: null, attempts: [{ status: 503 }, { status: 200, error: null }] });
    expect(await t.server.webhooks.deliverDue()).toBe(0);

    expect(hook.posts).toHaveLength(2);
    for (const [i, post] of hook.posts.entries()) {
      expect(post.headers['content-type']).toBe('application/json');
      expect(post.headers['x-quire-attempt']).toBe(String(i + 1));
      expect(verify(secret, post.headers['x-quire-signature'], post.body)).toBe(true);
      expect(JSON.parse(post.body)).toEqual({ job_id: id, status: 'done', error: null, pdf_url: view.pdf_url, md_url: null });
    }
    expect(view.pdf_url).toMatch(new RegExp(`/download/${id}/pdf$`));
    // A body changed on the way, or signed with another secret, does not verify.
    expect(verify(secret, hook.posts[1].headers['x-quire-signature'], hook.posts[1].body.replace('done', 'fail'))).toBe(false);
    expect(verify(`${secret}x`, hook.posts[1].headers['x-quire-signature'], hook.posts[1].body)).toBe(false);
  });

  it('post a cancelled job too; give up after the last retry, and at once on an answer another try would not change', async () => {
    const busy = await receiver([503]);
    const gone = await receiver([410]);
    let now = Date.now();
    const { t, key, secret } = await setup({ allowPrivateWebhooks: true, webhookRetryDelaysMs: [20, 20], clock: () => now });
    const cancelled = await submit(t, key, busy.url);
    const cancel = await t.server.app.inject({ method: 'POST', url: `/cancel/${cancelled}`, ...multipart([['api_key', key]]) });
    expect(cancel.json()).toEqual({ job_id: cancelled, status: 'cancelled' });
    const done = await submit(t, key, gone.url);
    await t.server.processor.tick();
    for (let i = 0; i < 3; i++) {
      await t.server.webhooks.deliverDue();
      now += 20;
    }
    expect((await get(t, key, cancelled)).webhook).toMatchObject({ state: 'failed', attempts: [{ status: 503 }, { status: 503 }, { status: 503 }] });
    expect(busy.posts).toHaveLength(3);
    expect(JSON.parse(busy.posts[0].body)).toEqual({ job_id: cancelled, status: 'cancelled', error: null, pdf_url: null, md_url: null });
    expect(verify(secret, busy.posts[0].headers['x-quire-signature'], busy.posts[0].body)).toBe(true);
    expect((await get(t, key, done)).webhook).toMatchObject({ state: 'failed', attempts: [{ status: 410, error: 'the receiver answered 410' }] });
    expect(gone.posts).toHaveLength(1);
  });

  it('refuse loopback and private addresses, other schemes and credentials with 400, and queue no job', async () => {
    const { t, key } = await setup();
    for (const [url, why] of [
      ['http://127.0.0.1:8080/hook', /loopback or private address/],
      ['http://localhost/hook', /loopback or private address/],
      ['http://10.1.2.3/hook', /loopback or private address/],
      ['http://192.168.1.20/hook', /loopback or private address/],
      ['http://[::1]/hook', /loopback or private address/],
      ['http://[::ffff:127.0.0.1]/hook', /loopback or private address/],
      ['http://[::ffff:a9fe:a9fe]/latest/meta-data', /loopback or private address/],
      ['http://[0:0:0:0:0:ffff:7f00:1]/hook', /loopback or private address/],
      ['http://[::127.0.0.1]/hook', /loopback or private address/],
      ['http://[::a9fe:a9fe]/latest/meta-data', /loopback or private address/],
      ['http://[::8.8.8.8]/hook', /loopback or private address/],
      ['http://169.254.169.254/latest/meta-data', /loopback or private address/],
      ['ftp://files.example.org/hook', /http:\/\/ or https:\/\//],
      ['https://user:secret@hooks.example.org/', /user name or password/],
      ['not a url', /not a URL/],
    ] as const) {
      const res = await run(t, key, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toMatchObject({ code: 'bad_webhook', message: expect.stringMatching(why) });
    }
    expect((await t.server.app.inject({ url: `/list?api_key=${key}` })).json()).toMatchObject({ jobs: [] });
  });

  it('are let to private addresses only when the operator allows them', async () => {
    const hook = await receiver([200]);
    const { t, key } = await setup({ allowPrivateWebhooks: true });
    const id = await submit(t, key, hook.url);
    await t.server.processor.tick();
    expect(await t.server.webhooks.deliverDue()).toBe(1);
    expect((await get(t, key, id)).webhook).toMatchObject({ state: 'delivered' });
  });

  it('to a receiver that never answers hold up no one else’s: another receiver’s is posted at once', async () => {
    const held: Array<import('node:net').Socket> = [];
    const silent = createServer((req) => {
      held.push(req.socket);
      req.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise((resolve) => {
          held.forEach((s) => s.destroy());
          silent.close(resolve);
        }),
    });
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hooks`;
    const good = await receiver([200]);
    const { t, key } = await setup({ allowPrivateWebhooks: true });
    // Six deliveries to the silent receiver are due before the good one: more than the sender's four lanes.
    for (let i = 0; i < 6; i++) await submit(t, key, silentUrl);
    const id = await submit(t, key, good.url);
    while (await t.server.processor.runNext());
    const started = Date.now();
    const sending = t.server.webhooks.deliverDue();
    await waitFor(async () => good.posts.length === 1, 8_000, 20);
    // Posted well within one attempt's 10 s, while the silent receiver still holds its requests.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(held.some((s) => !s.destroyed)).toBe(true);
    expect(JSON.parse(good.posts[0].body)).toMatchObject({ job_id: id, status: 'done' });
    held.forEach((s) => s.destroy());
    await sending;
  });
});
