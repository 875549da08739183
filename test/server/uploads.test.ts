import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTree, multipart, multipartStream, testServer, waitFor, type TestServer } from './helpers.js';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
const MAX = 1024 * 1024;

describe('POST /run', () => {
  let t: TestServer;
  let key: string;
  let other: string;

  beforeAll(async () => {
    t = await testServer({ maxUpload: MAX, runRateLimit: { max: 1000, timeWindowMs: 60_000 } });
    key = await t.newKey('a@example.org');
    other = await t.newKey('b@example.org');
  });
  afterAll(() => t.close());

  const nothingLeft = async (): Promise<void> => {
    expect(await listTree(t.dataDir)).toEqual(['.uploads/']);
    expect((await t.server.app.inject({ url: `/list?api_key=${key}` })).json()).toEqual({ jobs: [] });
  };

  it('refuses another extension with 400, the key in a field or a header, leaving no row and no file', async () => {
    for (const name of ['book.txt', 'book.jpg', 'book', 'book.pdf.exe', 'book.tar.gz']) {
      for (const [parts, extra] of [
        [
          [
            ['api_key', key],
            ['file', { name, data: PDF }],
          ],
          {},
        ],
        [[['file', { name, data: PDF }]], { 'x-api-key': key }],
        [[['file', { name, data: PDF }]], { authorization: `Bearer ${key}` }],
      ] as Array<[Parameters<typeof multipart>[0], Record<string, string>]>) {
        const { payload, headers } = multipart(parts);
        const res = await t.server.app.inject({ method: 'POST', url: '/run', payload, headers: { ...headers, ...extra } });
        expect(res.statusCode, name).toBe(400);
        expect(res.json()).toEqual({ error: { code: 'unsupported_file', message: 'The file must be a scan bundle (.aglbundle or .zip) or a PDF (.pdf).' } });
      }
    }
    await nothingLeft();
  });

  it('refuses a form without a file, with two files, or not multipart, with 400', async () => {
    const none = await t.server.app.inject({ method: 'POST', url: '/run', ...multipart([['api_key', key]]) });
    expect(none.statusCode).toBe(400);
    expect(none.json().error.code).toBe('missing_file');
    const two = multipart([
      ['api_key', key],
      ['file', { name: 'a.pdf', data: PDF }],
      ['file', { name: 'b.pdf', data: PDF }],
    ]);
    expect((await t.server.app.inject({ method: 'POST', url: '/run', ...two })).statusCode).toBe(400);
    const elsewhere = multipart([
      ['api_key', key],
      ['upload' as 'file', { name: 'a.pdf', data: PDF }],
    ]);
    expect((await t.server.app.inject({ method: 'POST', url: '/run', ...elsewhere })).statusCode).toBe(400);
    const json = await t.server.app.inject({ method: 'POST', url: '/run', payload: { api_key: key } });
    expect(json.statusCode).toBe(400);
    expect(json.json().error.code).toBe('bad_request');
    await nothingLeft();
  });

  it('refuses bad options with 400 before a job exists', async () => {
    for (const [field, value] of [
      ['dpi', 'abc'],
      ['dpi', '10'],
      ['dpi', '300.5'],
      ['email_notif', 'maybe'],
      ['ocr', 'rm -rf /'],
      ['ocr', 'x'.repeat(201)],
    ]) {
      const res = await t.server.app.inject({
        method: 'POST',
        url: '/run',
        ...multipart([
          ['api_key', key],
          [field, value],
          ['file', { name: 'a.pdf', data: PDF }],
        ]),
      });
      expect(res.statusCode, `${field}=${value}`).toBe(400);
      expect(res.json().error.message).toMatch(new RegExp(field));
    }
    await nothingLeft();
  });

  it('keeps the options of a job, takes the key in a header with the file first, and any case of extension', async () => {
    // The key after the file: refused at once, nothing of the file read or kept.
    const late = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['file', { name: 'late.pdf', data: PDF }],
        ['api_key', key],
      ]),
    });
    expect(late.statusCode).toBe(401);
    expect(late.json().error.message).toMatch(/before the file/);
    await nothingLeft();
    const form = multipart([
      ['email_notif', 'true'],
      ['ocr', 'tesseract:lang=fra+lat'],
      ['dpi', '300'],
      ['file', { name: '../../etc/Scans/BOOK.AGLBUNDLE', data: PDF }],
    ]);
    const res = await t.server.app.inject({ method: 'POST', url: '/run', payload: form.payload, headers: { ...form.headers, authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(200);
    const id = res.json<{ job_id: string }>().job_id;
    expect(await t.server.store.getJob(id)).toMatchObject({
      emailNotif: true,
      ocr: 'tesseract:lang=fra+lat',
      dpi: 300,
      uploadName: 'BOOK.AGLBUNDLE',
      inputExt: 'zip',
      status: 'pending',
    });
    expect(await listTree(t.dataDir)).toEqual(['.uploads/', `${id}/`, `${id}/input.zip`].sort());
    const plain = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      ...multipart([
        ['api_key', key],
        ['file', { name: 'x.Pdf', data: PDF }],
      ]),
    });
    const plainId = plain.json<{ job_id: string }>().job_id;
    expect(await t.server.store.getJob(plainId)).toMatchObject({ emailNotif: false, ocr: null, dpi: null, inputExt: 'pdf' });
    for (const jobId of [id, plainId]) await t.server.app.inject({ method: 'POST', url: `/delete/${jobId}`, ...multipart([['api_key', key]]) });
    await nothingLeft();
  });

  it('answers 413 to an upload over the limit, declared or streamed, and keeps nothing of it', async () => {
    // Declared: Content-Length alone is enough to refuse it before a byte is read.
    const declared = multipartStream([['api_key', key]], 'big.pdf', 3 * MAX);
    const early = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      payload: declared.stream,
      headers: { ...declared.headers, 'content-length': String(declared.length) },
    });
    expect(early.statusCode).toBe(413);
    expect(early.json()).toEqual({ error: { code: 'too_large', message: 'The file is larger than this server accepts.' } });
    // Just over the limit, under the form allowance: the stream itself is cut at the limit.
    for (const [fields, extra] of [
      [[['api_key', key]], {}],
      [[], { 'x-api-key': key }],
    ] as Array<[Array<[string, string]>, Record<string, string>]>) {
      const body = multipartStream(fields, 'big.zip', MAX + 1);
      const res = await t.server.app.inject({
        method: 'POST',
        url: '/run',
        payload: body.stream,
        headers: { ...body.headers, ...extra, 'content-length': String(body.length) },
      });
      expect(res.statusCode).toBe(413);
      expect(res.json().error.code).toBe('too_large');
    }
    await nothingLeft();
    // Exactly the limit is fine.
    const fits = multipartStream([['api_key', key]], 'fits.zip', MAX);
    const ok = await t.server.app.inject({
      method: 'POST',
      url: '/run',
      payload: fits.stream,
      headers: { ...fits.headers, 'content-length': String(fits.length) },
    });
    expect(ok.statusCode).toBe(200);
    await t.server.app.inject({ method: 'POST', url: `/delete/${ok.json().job_id}`, ...multipart([['api_key', key]]) });
  });

  it('keeps nothing of an upload whose connection drops halfway', async () => {
    const address = await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    try {
      for (const keyFirst of [true, false]) {
        const body = multipartStream(keyFirst ? [['api_key', key]] : [], 'dropped.aglbundle', 900 * 1024);
        const socket = connect(Number(port), '127.0.0.1');
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        const header = keyFirst ? '' : `X-API-Key: ${key}\r\n`;
        socket.write(
          `POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}Content-Type: ${body.headers['content-type']}\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        let sent = 0;
        for await (const chunk of body.stream) {
          socket.write(chunk as Buffer);
          sent += (chunk as Buffer).length;
          if (sent > 400 * 1024) break;
        }
        // Let the server start writing the file, then pull the plug.
        await waitFor(async () => (await listTree(`${t.dataDir}/.uploads`)).length > 0, 5_000);
        socket.destroy();
        await waitFor(async () => (await listTree(`${t.dataDir}/.uploads`)).length === 0, 5_000);
      }
      await nothingLeft();
      expect((await fetch(`${address}/health`)).status).toBe(200);
    } finally {
      await t.server.app.server.close();
    }
  });

  it('limits submissions per API key with 429, other keys unaffected', async () => {
    const limited = await testServer({ runRateLimit: { max: 2, timeWindowMs: 60_000 } });
    try {
      const a = await limited.newKey('a@example.org');
      const b = await limited.newKey('b@example.org');
      const submit = (k: string) =>
        limited.server.app.inject({
          method: 'POST',
          url: '/run',
          ...multipart([
            ['api_key', k],
            ['file', { name: 'a.pdf', data: PDF }],
          ]),
        });
      expect((await submit(a)).statusCode).toBe(200);
      expect((await submit(a)).statusCode).toBe(200);
      const third = await submit(a);
      expect(third.statusCode).toBe(429);
      expect(third.json().error.code).toBe('rate_limited');
      expect((await submit(b)).statusCode).toBe(200);
      // Only the accepted submissions left files.
      expect((await listTree(limited.dataDir)).filter((p) => p.endsWith('input.pdf'))).toHaveLength(3);
      // A wrong key is refused as unauthorised, not counted.
      expect((await submit('nope')).statusCode).toBe(401);
    } finally {
      await limited.close();
    }
  });

  it('is not rate limited by the other endpoints', async () => {
    const limited = await testServer({ runRateLimit: { max: 1, timeWindowMs: 60_000 } });
    try {
      const a = await limited.newKey();
      for (let i = 0; i < 5; i++) expect((await limited.server.app.inject({ url: `/list?api_key=${a}` })).statusCode).toBe(200);
      expect(
        (
          await limited.server.app.inject({
            method: 'POST',
            url: '/run',
            ...multipart([
              ['api_key', a],
              ['file', { name: 'a.pdf', data: PDF }],
            ]),
          })
        ).statusCode,
      ).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('does not answer for other keys’ jobs via a crafted other key', async () => {
    const res = await t.server.app.inject({ url: `/list?api_key=${other}` });
    expect(res.json()).toEqual({ jobs: [] });
  });
});
