import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSmtpConfig, setServerConfig, showServerConfig } from '../../src/server/index.js';
import { completionMessage } from '../../src/server/mailer.js';
import { FakeEngine } from './fake-engine.js';
import { multipart, testServer, waitFor, type TestServer } from './helpers.js';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

interface Received {
  from: string;
  to: string[];
  user: string | null;
  data: string;
}

/** A real SMTP server on loopback that keeps what it receives; it asks for a login, over plain TCP (no TLS in tests). */
let smtp: SMTPServer;
let port: number;
const received: Received[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'quire' && auth.password === 's3cret') callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: (session.user as string | undefined) ?? null,
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  port = (smtp.server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

let open: TestServer[] = [];
afterEach(async () => {
  for (const t of open) await t.close();
  open = [];
  received.length = 0;
});

async function setup(withSmtp: boolean, password = 's3cret'): Promise<{ t: TestServer; engine: FakeEngine; key: string }> {
  const engine = new FakeEngine();
  engine.auto = true;
  const t = await testServer({ engine: engine, publicUrl: 'https://quire.example.org' });
  open.push(t);
  if (withSmtp)
    await setServerConfig(
      t.server.settings,
      'smtp',
      JSON.stringify({ host: '127.0.0.1', port, user: 'quire', password, from: 'Quire <quire@example.org>', tls: false }),
    );
  return { t, engine, key: await t.newKey('reader@example.org') };
}

async function run(t: TestServer, key: string, fields: Array<[string, string]>): Promise<string> {
  const res = await t.server.app.inject({
    method: 'POST',
    url: '/run',
    ...multipart([['api_key', key], ...fields, ['file', { name: 'Book.pdf', data: PDF }]]),
  });
  const id = res.json<{ job_id: string }>().job_id;
  expect(await t.server.processor.tick()).toEqual({ jobId: id, status: 'done' });
  return id;
}

/** Quoted-printable text decoded (soft line breaks joined, =XX bytes as UTF-8). */
function unQuote(text: string): string {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined[i] === '=' ? /^[0-9A-F]{2}/.exec(joined.slice(i + 1, i + 3)) : null;
    if (hex) {
      bytes.push(parseInt(hex[0], 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i], 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function bodyOf(data: string): string {
  return unQuote(
    data
      .split(/\r?\n\r?\n/)
      .slice(1)
      .join('\n\n'),
  );
}

function subjectOf(data: string): string {
  const raw = /^Subject: (.*)$/m.exec(data)?.[1].trim() ?? '';
  const encoded = /^=\?UTF-8\?Q\?(.*)\?=$/i.exec(raw);
  return encoded ? unQuote(encoded[1].replace(/_/g, ' ')) : raw;
}

describe('the completion email', () => {
  it('goes to the key’s address with the PDF and Markdown links, prefixed with base_url', async () => {
    const { t, key } = await setup(true);
    const id = await run(t, key, [
      ['email_notif', 'true'],
      ['ocr', 'auto'],
    ]);
    await waitFor(async () => received.length === 1, 10_000);
    const mail = received[0];
    expect(mail.to).toEqual(['reader@example.org']);
    expect(mail.from).toBe('quire@example.org');
    expect(mail.user).toBe('quire');
    expect(subjectOf(mail.data)).toBe('Quire: "Fake book" is ready');
    const body = bodyOf(mail.data);
    expect(body).toContain(`PDF: https://quire.example.org/download/${id}/pdf`);
    expect(body).toContain(`Markdown: https://quire.example.org/download/${id}/md`);
    expect(body).toContain('— Quire');
  });

  it('has no Markdown link when there is no Markdown', async () => {
    const { t, key } = await setup(true);
    const id = await run(t, key, [['email_notif', '1']]);
    await waitFor(async () => received.length === 1, 10_000);
    const body = bodyOf(received[0].data);
    expect(body).toContain(`PDF: https://quire.example.org/download/${id}/pdf`);
    expect(body).not.toContain('Markdown:');
  });

  it('is not sent without email_notif', async () => {
    const { t, key } = await setup(true);
    await run(t, key, []);
    await run(t, key, [['email_notif', 'false']]);
    await t.server.mailsSent();
    expect(received).toEqual([]);
  });

  it('is skipped silently without an smtp setting: the job is done all the same', async () => {
    const { t, key } = await setup(false);
    const id = await run(t, key, [['email_notif', 'true']]);
    await t.server.mailsSent();
    expect(received).toEqual([]);
    expect((await t.server.app.inject({ url: `/check/${id}?api_key=${key}` })).json().status).toBe('done');
  });

  it('failing (the mail server refuses the login) leaves the job done and the server serving', async () => {
    const { t, key } = await setup(true, 'wrong');
    const id = await run(t, key, [['email_notif', 'true']]);
    await t.server.mailsSent();
    expect(received).toEqual([]);
    expect((await t.server.app.inject({ url: `/check/${id}?api_key=${key}` })).json().status).toBe('done');
    expect((await t.server.app.inject({ url: '/health' })).statusCode).toBe(200);
  });

  it('reads plainly', () => {
    expect(completionMessage({ to: 'a@b.c', docName: 'Candide', pdfUrl: 'https://x/download/1/pdf', mdUrl: null })).toEqual({
      subject: 'Quire: "Candide" is ready',
      text: 'Your document "Candide" is ready.\n\nPDF: https://x/download/1/pdf\n\nAnyone with these links can download the files; delete the job when you no longer need them.\n\n— Quire\n',
    });
  });
});

describe('the smtp and base_url settings', () => {
  it('are checked when set, and the password is never shown back', async () => {
    const t = await testServer();
    open.push(t);
    await expect(setServerConfig(t.server.settings, 'smtp', 'not json')).rejects.toThrow(/JSON object/);
    await expect(setServerConfig(t.server.settings, 'smtp', '{"port":25}')).rejects.toThrow(/host/);
    await expect(setServerConfig(t.server.settings, 'smtp', '{"host":"h","port":"25"}')).rejects.toThrow(/port/);
    await expect(setServerConfig(t.server.settings, 'smtp', '{"host":"h","pass":"x"}')).rejects.toThrow(/pass/);
    await expect(setServerConfig(t.server.settings, 'base_url', 'ftp://x')).rejects.toThrow(/http/);
    await expect(setServerConfig(t.server.settings, 'colour', 'blue')).rejects.toThrow(/not a server setting/);
    await setServerConfig(t.server.settings, 'smtp', '{"host":"mail.example.org","user":"me","password":"hunter2"}');
    expect(await showServerConfig(t.server.settings, 'smtp')).toBe('{"host":"mail.example.org","user":"me","password":"********"}');
    expect(await setServerConfig(t.server.settings, 'base_url', 'https://quire.example.org/books/')).toBe('https://quire.example.org/books');
    expect(await showServerConfig(t.server.settings, 'base_url')).toBe('https://quire.example.org/books');
    expect(parseSmtpConfig('{"host":"h","tls":true,"port":465}')).toEqual({ host: 'h', tls: true, port: 465 });
  });

  it('base_url prefixes /get links; without it they follow the listening address', async () => {
    const engine = new FakeEngine();
    engine.auto = true;
    const t = await testServer({ engine: engine });
    open.push(t);
    const key = await t.newKey();
    const id = await run(t, key, []);
    const address = await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const viaSocket = (await (await fetch(`${address}/get/${id}?api_key=${key}`)).json()) as { pdf_url: string };
    expect(viaSocket.pdf_url).toBe(`${address}/download/${id}/pdf`);
    expect(await t.server.linkBase()).toBe(address);
    await setServerConfig(t.server.settings, 'base_url', 'https://public.example.org');
    const viaPublic = (await (await fetch(`${address}/get/${id}?api_key=${key}`)).json()) as { pdf_url: string };
    expect(viaPublic.pdf_url).toBe(`https://public.example.org/download/${id}/pdf`);
  });
});
