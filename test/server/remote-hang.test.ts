/**
 * A remote OCR service that accepts connections and never answers. The queue must not wait on it: a parked job's
 * poll hangs beside the worker while a plain job is converted and done, and `/check` on the parked job answers
 * from the database at once. The client's response timeout comes from the remoteocr settings. Vitest gives this
 * file a process of its own: `QUIRE_HOME` and the key are set in its environment, as on a server.
 */
import { createServer, type Server } from 'node:http';
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteOcrClient } from '../../src/ocr/remote/client.js';
import { readRemoteOcrTimeouts, setRemoteOcrSetting } from '../../src/ocr/index.js';
import { FakeRemoteOcr } from '../ocr/remote/fake-remote-ocr.js';
import { textPdf } from '../ocr/remote/helpers.js';
import { adminSecretOf, multipart, testServer, waitFor, type TestServer } from './helpers.js';
import { setEnv } from '../helpers.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
let restoreEnv = (): void => undefined;
let fake: FakeRemoteOcr;
let hang: Server;
let hangUrl: string;
/** Requests the hanging service took and never answered, and their paths. */
const held: Socket[] = [];
const paths: string[] = [];
/** Each request the hanging service took, and whether the client has given up on it (its connection closed). */
const requests: Array<{ path: string; closed: boolean }> = [];
let home: string;
let appData: string;

beforeAll(async () => {
  fake = await new FakeRemoteOcr().start();
  home = await mkdtemp(join(tmpdir(), 'quire-remote-hang-'));
  appData = join(home, 'app');
  restoreEnv = setEnv({ QUIRE_HOME: appData, QUIRE_REMOTEOCR_API_KEY: fake.apiKey });
  hang = createServer((request) => {
    // Reads the request, then says nothing, ever.
    held.push(request.socket);
    paths.push(request.url ?? '');
    const seen = { path: request.url ?? '', closed: false };
    requests.push(seen);
    request.socket.once('close', () => (seen.closed = true));
    request.resume();
  });
  await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', () => resolve()));
  hangUrl = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of held) s.destroy();
  hang.close();
  await fake.stop();
  await rm(home, { recursive: true, force: true });
  restoreEnv();
});

describe('a remote OCR service that never answers', () => {
  it('holds up neither the queue nor /check: a plain job is done while the parked job’s poll still hangs', async () => {
    setRemoteOcrSetting('base_url', fake.url, { appData, keychain: null });
    let now = T0;
    const t: TestServer = await testServer({ clock: () => now, workers: 1, tickMs: 50, shutdownGraceMs: 500 });
    try {
      const key = await t.newKey();
      const run = async (ocr: string | null, name: string): Promise<string> => {
        const fields: Array<[string, string]> = ocr ? [['ocr', ocr]] : [];
        const res = await t.server.app.inject({
          method: 'POST',
          url: '/run',
          ...multipart([['api_key', key], ...fields, ['file', { name, data: Buffer.from(await textPdf([300])) }]]),
        });
        expect(res.statusCode).toBe(200);
        return res.json<{ job_id: string }>().job_id;
      };
      // Parked on the working service, then the service stops answering, and its poll is due.
      const parked = await run('remoteocr', 'Parked.pdf');
      expect(await t.server.processor.tick()).toEqual({ jobId: parked, status: 'ocr_pending' });
      setRemoteOcrSetting('base_url', hangUrl, { appData, keychain: null });
      now = T0 + 2 * 60_000;
      t.server.startWorker();
      await waitFor(async () => held.length > 0, 10_000, 20);

      // The client's look is answered from the database while the poll hangs.
      const look = await t.server.app.inject({ url: `/check/${parked}?api_key=${key}` });
      expect(look.json()).toMatchObject({ job_id: parked, status: 'ocr_pending', error: null });

      const plain = await run(null, 'Plain.pdf');
      await waitFor(async () => (await t.server.store.getJob(plain))?.status === 'done', 60_000, 50);
      // Done while the service still holds the poll's request unanswered.
      expect(held.some((s) => !s.destroyed)).toBe(true);
      expect((await t.server.store.getJob(parked))!.status).toBe('ocr_pending');
    } finally {
      for (const s of held) s.destroy();
      await t.close();
    }
  });

  it('gives up on a request after the response timeout of the remoteocr settings', async () => {
    setRemoteOcrSetting('response_timeout', '1', { appData, keychain: null });
    setRemoteOcrSetting('connect_timeout', '3', { appData, keychain: null });
    const timeouts = readRemoteOcrTimeouts({ appData, keychain: null });
    expect(timeouts).toEqual({ connectMs: 3_000, otherMs: 1_000 });
    const client = createRemoteOcrClient({ baseUrl: hangUrl, apiKey: 'k', timeouts, retry: { attempts: 2, baseDelayMs: 10 } });
    await expect(client.getBatch('b1')).rejects.toThrow(
      `The remote OCR service at ${new URL(hangUrl).host} did not answer in time (tried 2 times); try again later.`,
    );
    expect(paths.filter((p) => p === '/v1/batch/jobs/b1')).toHaveLength(2);
  });

  it('answers /delete, /cancel and a key’s revocation at once; the batches are cancelled in the background, by a deadline', async () => {
    // The batches are made through a relay that later sends every connection to the silent service instead: a
    // batch keeps the address it was made at.
    let silent = false;
    const piped = new Set<Socket>();
    const relay = createNetServer((client) => {
      const target = new URL(silent ? hangUrl : fake.url);
      const upstream = netConnect(Number(target.port), target.hostname);
      for (const s of [client, upstream]) {
        piped.add(s);
        s.on('error', () => undefined);
        s.on('close', () => piped.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', () => resolve()));
    setRemoteOcrSetting('base_url', `http://127.0.0.1:${(relay.address() as AddressInfo).port}`, { appData, keychain: null });
    setRemoteOcrSetting('response_timeout', '1', { appData, keychain: null });
    const t: TestServer = await testServer({ workers: 1, shutdownGraceMs: 500 });
    try {
      const key = await t.newKey('a@example.org');
      const other = await t.newKey('b@example.org');
      const otherId = (await t.server.store.findActiveKey((await import('../../src/server/secrets.js')).hashKey(other)))!.keyId;
      const park = async (k: string, name: string): Promise<string> => {
        const res = await t.server.app.inject({
          method: 'POST',
          url: '/run',
          ...multipart([
            ['api_key', k],
            ['ocr', 'remoteocr'],
            ['file', { name, data: Buffer.from(await textPdf([300])) }],
          ]),
        });
        const id = res.json<{ job_id: string }>().job_id;
        expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'ocr_pending' });
        return id;
      };
      const deleted = await park(key, 'A.pdf');
      const cancelled = await park(key, 'B.pdf');
      const revoked = await park(other, 'C.pdf');
      // The service now takes every request and answers none.
      silent = true;
      for (const socket of piped) socket.destroy();
      const before = requests.length;
      const givenUp = (): boolean => requests.slice(before).some((r) => r.closed);

      const del = await t.server.app.inject({ method: 'POST', url: `/delete/${deleted}`, headers: { 'x-api-key': key } });
      expect(del.json()).toEqual({ deleted: true });
      const cancel = await t.server.app.inject({ method: 'POST', url: `/cancel/${cancelled}`, headers: { 'x-api-key': key } });
      expect(cancel.json()).toEqual({ job_id: cancelled, status: 'cancelled' });
      const revoke = await t.server.app.inject({
        method: 'POST',
        url: `/admin/keys/${otherId}/revoke`,
        headers: { authorization: `Bearer ${adminSecretOf(t)}` },
      });
      expect(revoke.json()).toMatchObject({ revoked: true, cancelled_jobs: 1 });
      // All three answered before the OCR service's client gave up on a single request of theirs.
      expect(givenUp()).toBe(false);
      expect((await t.server.app.inject({ url: `/check/${deleted}`, headers: { 'x-api-key': key } })).statusCode).toBe(404);
      expect((await t.server.store.getJob(revoked))!.status).toBe('cancelled');

      // Meanwhile the cancels went out to the service, were given up by their deadline, and the files went.
      await waitFor(async () => new Set(requests.slice(before).map((r) => r.path)).size >= 3, 20_000, 20);
      for (const id of [deleted, cancelled, revoked]) await waitFor(async () => !existsSync(join(t.dataDir, id)), 20_000, 50);
      expect(givenUp()).toBe(true);
    } finally {
      await t.close();
      relay.close();
      for (const socket of piped) socket.destroy();
    }
  });
});
