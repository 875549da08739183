/**
 * Requests that are not well-formed, over real sockets on loopback: every refusal answers
 * `{"error":{"code","message"}}` with a fitting status, and none of them raises an error-level log line.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from './helpers.js';

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

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Send `text` as is and read the one answer (the server closes or sends the whole body). */
function exchange(text: string, socketPort = port): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPort, '127.0.0.1');
    let raw = '';
    socket.on('error', reject);
    const done = (): void => {
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...headerLines] = raw.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = raw.slice(end + 4);
      if (Buffer.byteLength(body) < Number(headers['content-length'] ?? Infinity)) return;
      socket.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    };
    socket.on('data', (d: Buffer) => {
      raw += d.toString('utf8');
      done();
    });
    socket.on('end', done);
    socket.write(text);
  });
}

const errorOf = (a: Answer): { code: string; message: string } => (JSON.parse(a.body) as { error: { code: string; message: string } }).error;
const errorLines = (): string[] => lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);

function post(path: string, headers: Record<string, string>, body: string): string {
  const head = Object.entries({ Host: '127.0.0.1', 'Content-Length': String(Buffer.byteLength(body)), ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `POST ${path} HTTP/1.1\r\n${head}\r\n${body}`;
}

describe('a malformed multipart form', () => {
  const B = '----quireshape';
  const cases: Array<[string, string, Record<string, string>, string]> = [
    ['no boundary, no key', '/run', { 'Content-Type': 'multipart/form-data' }, 'hello'],
    ['no boundary, a key in a header', '/run', { 'Content-Type': 'multipart/form-data', 'X-API-Key': 'k' }, 'hello'],
    ['a body that ends inside its first part', '/run', { 'Content-Type': `multipart/form-data; boundary=${B}`, 'X-API-Key': 'k' }, `--${B}\r\nContent-Disposition: form-data; name="ocr"\r\n\r\nauto`],
    ['a file part cut short', '/run', { 'Content-Type': `multipart/form-data; boundary=${B}`, 'X-API-Key': 'k' }, `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 and then nothing`],
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
