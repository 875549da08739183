/**
 * Requests that are not well-formed, over real sockets on loopback: every refusal answers
 * `{"error":{"code","message"}}` with a fitting status, and none of them raises an error-level log line.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorAnswer } from '../../src/http/index.js';
import { testServer, waitFor, type TestServer } from './helpers.js';
import { exchange as rawExchange, type RawAnswer } from './raw-http.js';

let t: TestServer;
let port: number;
let key: string;
const lines: string[] = [];

beforeAll(async () => {
  t = await testServer({ logger: { level: 'info', stream: { write: (l) => void lines.push(l) } } });
  key = await t.newKey();
  port = Number(new URL(await t.server.app.listen({ host: '127.0.0.1', port: 0 })).port);
});
afterAll(() => t.close());

type Answer = RawAnswer;

/** Send `text` as is and read the one answer. */
const exchange = (text: string, socketPort = port): Promise<Answer> => rawExchange(socketPort, text);

const errorOf = (a: Answer): { code: string; message: string } => (JSON.parse(a.body) as { error: { code: string; message: string } }).error;
const errorLines = (): string[] => lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);

function post(path: string, headers: Record<string, string>, body: string): string {
  const head = Object.entries({ Host: '127.0.0.1', 'Content-Length': String(Buffer.byteLength(body)), ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `POST ${path} HTTP/1.1\r\n${head}\r\n${body}`;
}

describe('a malformed multipart form', () => {
  const B = '----quireshape';
  const cases: Array<[string, string, Record<string, string>, string]> = [
    ['no boundary, no key', '/run', { 'Content-Type': 'multipart/form-data' }, 'hello'],
    ['no boundary, a key in a header', '/run', { 'Content-Type': 'multipart/form-data', 'X-API-Key': 'k' }, 'hello'],
    [
      'a body that ends inside its first part',
      '/run',
      { 'Content-Type': `multipart/form-data; boundary=${B}`, 'X-API-Key': 'k' },
      `--${B}\r\nContent-Disposition: form-data; name="ocr"\r\n\r\nauto`,
    ],
    [
      'a file part cut short',
      '/run',
      { 'Content-Type': `multipart/form-data; boundary=${B}`, 'X-API-Key': 'k' },
      `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 and then nothing`,
    ],
    ['/cancel with no boundary', '/cancel/abc', { 'Content-Type': 'multipart/form-data' }, 'hello'],
  ];
  it.each(cases)('%s: 400 bad_request in the error shape, logged below error level', async (_name, path, headers, body) => {
    lines.length = 0;
    const withKey = headers['X-API-Key'] ? { ...headers, 'X-API-Key': key } : headers;
    const answer = await exchange(post(path, withKey, body));
    expect(answer.status, answer.body).toBe(400);
    expect(errorOf(answer)).toEqual({ code: 'bad_request', message: expect.stringMatching(/multipart form/) });
    expect(errorLines()).toEqual([]);
  });
});

describe('requests refused before any route', () => {
  const get = (path: string, extra = ''): string => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;
  const cases: Array<[string, string, number, string]> = [
    ['an address with a bad percent-encoding', get(`/check/%E0%A4%A?api_key=${'x'}`), 400, 'bad_url'],
    ['an address with a byte that is not UTF-8', get('/check/%ff'), 400, 'bad_url'],
    ['a path segment longer than the router takes', get(`/check/${'a'.repeat(300)}`), 414, 'uri_too_long'],
    ['headers larger than Node takes', get('/health', `X-Long: ${'a'.repeat(20_000)}\r\n`), 431, 'headers_too_large'],
    ['an address longer than Node takes', get(`/check/x?${'a'.repeat(20_000)}`), 431, 'headers_too_large'],
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n', 400, 'bad_request'],
  ];
  it.each(cases)('%s: the error shape, logged below error level', async (_name, text, status, code) => {
    lines.length = 0;
    const answer = await exchange(text);
    expect(answer.status, answer.body).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(errorOf(answer)).toEqual({ code, message: expect.stringMatching(/^[A-Z].*\.$/) });
    expect(errorLines()).toEqual([]);
  });

  it('answers Node’s own request timeout as a 408 in the same shape', () => {
    const text = clientErrorAnswer({ code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    expect(Number(/Content-Length: (\d+)/.exec(text)![1])).toBe(Buffer.byteLength(body));
    expect(JSON.parse(body)).toEqual({ error: { code: 'request_timeout', message: 'The request did not arrive in time.' } });
  });

  it('documents 405 for every operation in the OpenAPI document', async () => {
    const doc = (await t.server.app.inject({ url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    }>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) expect(op.responses['405']?.description, `${method} ${path}`).toMatch(/method_not_allowed/);
    }
  });
});

describe('a request that comes while the server shuts down', () => {
  it('gets 503 shutting_down with Retry-After, in the error shape', async () => {
    const s = await testServer({ shutdownGraceMs: 3_000 });
    const sPort = Number(new URL(await s.server.app.listen({ host: '127.0.0.1', port: 0 })).port);
    // A request begun before the shutdown (its connection is not idle, so it stays open), finished after it began.
    const socket = connect(sPort, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    let raw = '';
    socket.on('data', (d: Buffer) => void (raw += d.toString('utf8')));
    const closing = s.close();
    try {
      await waitFor(async () => !s.server.app.server.listening, 5_000, 10);
      socket.write('\r\n');
      await waitFor(async () => /\r\n\r\n\{.*\}$/s.test(raw), 5_000, 10);
      expect(raw).toMatch(/^HTTP\/1\.1 503 /);
      expect(raw.toLowerCase()).toMatch(/\r\nretry-after: \d+\r\n/);
      expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ error: { code: 'shutting_down', message: expect.stringMatching(/shutting down/) } });
    } finally {
      socket.destroy();
      await closing;
    }
  });
});

describe('connections past the cap', () => {
  it('are closed at once, before they cost anything; room comes back as others close', async () => {
    const s = await testServer({ limits: { maxConnections: 3 } });
    const sPort = Number(new URL(await s.server.app.listen({ host: '127.0.0.1', port: 0 })).port);
    const opened: Array<import('node:net').Socket> = [];
    try {
      for (let i = 0; i < 3; i++) {
        const c = connect(sPort, '127.0.0.1');
        c.on('error', () => undefined);
        await new Promise<void>((resolve) => c.once('connect', () => resolve()));
        opened.push(c);
      }
      await waitFor(async () => (await new Promise<number>((r) => s.server.app.server.getConnections((_e, n) => r(n)))) === 3, 5_000, 10);
      // A fourth is closed by the server without an answer.
      const fourth = connect(sPort, '127.0.0.1');
      fourth.on('error', () => undefined);
      let answered = '';
      fourth.on('data', (d: Buffer) => void (answered += d.toString()));
      fourth.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await new Promise<void>((resolve) => fourth.once('close', () => resolve()));
      expect(answered).toBe('');
      // One goes; the next is served.
      opened.shift()!.destroy();
      await waitFor(async () => (await new Promise<number>((r) => s.server.app.server.getConnections((_e, n) => r(n)))) === 2, 5_000, 10);
      const answer = await exchange('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', sPort);
      expect(answer.status).toBe(200);
    } finally {
      opened.forEach((c) => c.destroy());
      await s.close();
    }
  });
});
