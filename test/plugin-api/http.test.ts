import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient, HttpNetworkError, httpRequest, multipartBody, quotePathSegment } from '../../src/plugin-api/index.js';
import { parseChallenges } from '../../src/plugin-api/digest.js';

const md5 = (s: string): string => createHash('md5').update(s).digest('hex');

/** A server that behaves like calibre's: Digest (MD5, qop=auth) or Basic, 400 for the wrong scheme. */
function authServer(mode: 'digest' | 'basic'): { server: Server; uploads: string[]; bodies: Buffer[] } {
  const uploads: string[] = [];
  const bodies: Buffer[] = [];
  const nonce = randomBytes(8).toString('hex');
  const users: Record<string, string> = { reader: 's3cret pass' };
  const challenge = (res: ServerResponse): void => {
    res.writeHead(401, {
      'WWW-Authenticate': mode === 'digest' ? `Digest realm="calibre", nonce="${nonce}", qop="auth", algorithm="MD5", opaque="op"` : 'Basic realm="calibre"',
    });
    res.end('Unauthorized');
  };
  const authorised = (req: IncomingMessage, res: ServerResponse): boolean => {
    const header = req.headers.authorization ?? '';
    if (!header) return (challenge(res), false);
    const [scheme] = header.split(' ');
    if (scheme.toLowerCase() !== mode) {
      res.writeHead(400).end('Unsupported authentication method');
      return false;
    }
    if (mode === 'basic') {
      const [user, pass] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(/:(.*)/s);
      return users[user] === pass || (challenge(res), false);
    }
    const p = parseChallenges([header])[0].params;
    if (p.uri !== req.url) {
      res.writeHead(400).end('uri mismatch');
      return false;
    }
    const ha1 = md5(`${p.username}:calibre:${users[p.username] ?? ''}`);
    const expected = md5(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:auth:${md5(`${req.method}:${p.uri}`)}`);
    return (users[p.username] !== undefined && p.response === expected && p.opaque === 'op') || (challenge(res), false);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (chunks.length > 0) uploads.push(req.url ?? '');
      if (!authorised(req, res)) return;
      bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          url: req.url,
          bytes: Buffer.concat(chunks).length,
          type: req.headers['content-type'] ?? null,
          proxy: req.headers['x-proxy-auth'] ?? null,
        }),
      );
    });
  });
  return { server, uploads, bodies };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('the HTTP helper', () => {
  const digest = authServer('digest');
  const basic = authServer('basic');
  let digestUrl: string;
  let basicUrl: string;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    digestUrl = await listen(digest.server);
    basicUrl = await listen(basic.server);
    dir = mkdtempSync(join(tmpdir(), 'quire-http-'));
    file = join(dir, 'My Book.pdf');
    writeFileSync(file, Buffer.alloc(300_000, 7));
  });
  afterAll(async () => {
    await Promise.all([digest.server, basic.server].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    rmSync(dir, { recursive: true, force: true });
  });

  it('signs in with Digest, on an exact route of quoted segments, uploading the file once', async () => {
    const route = `/cdb/add-book/1/n/${quotePathSegment('War / Peace.pdf')}/`;
    const client = new HttpClient({ auth: { username: 'reader', password: 's3cret pass', mode: 'digest' }, headers: { 'X-Proxy-Auth': 'abc' } });
    const reply = await client.request({ url: `${digestUrl}${route}`, method: 'POST', body: { file } });
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ url: '/cdb/add-book/1/n/War%20%2F%20Peace.pdf/', bytes: 300_000, type: 'application/octet-stream', proxy: 'abc' });
    expect(digest.uploads.filter((u) => u === route)).toHaveLength(1);
    // The client remembers the challenge: the next request signs in at once.
    const again = await client.request({ url: `${digestUrl}/ajax/library-info` });
    expect(again.status).toBe(200);
  });

  it('answers 401 for a wrong password, and shows the 400 Basic gets from a Digest server', async () => {
    const wrong = await httpRequest({ url: `${digestUrl}/ajax/library-info`, auth: { username: 'reader', password: 'nope', mode: 'digest' } });
    expect(wrong.status).toBe(401);
    expect(wrong.challenges[0]).toMatchObject({ scheme: 'digest', params: { realm: 'calibre', qop: 'auth' } });
    const basicToDigest = await httpRequest({ url: `${digestUrl}/ajax/library-info`, auth: { username: 'reader', password: 's3cret pass', mode: 'basic' } });
    expect(basicToDigest.status).toBe(400);
    expect(basicToDigest.text()).toBe('Unsupported authentication method');
  });

  it('signs in with Basic, and in auto mode with whichever the server asks for', async () => {
    expect((await httpRequest({ url: `${basicUrl}/x`, auth: { username: 'reader', password: 's3cret pass', mode: 'basic' } })).status).toBe(200);
    expect((await httpRequest({ url: `${basicUrl}/x`, auth: { username: 'reader', password: 's3cret pass' } })).status).toBe(200);
    expect((await httpRequest({ url: `${digestUrl}/x`, auth: { username: 'reader', password: 's3cret pass' } })).status).toBe(200);
  });

  it('sends a multipart form with the file streamed and only the fields given', async () => {
    const body = multipartBody({ title: 'My Book', author: 'A. Writer' }, [{ name: 'file', path: file }]);
    const reply = await httpRequest({ url: `${basicUrl}/book/upload`, body, auth: { username: 'reader', password: 's3cret pass', mode: 'basic' } });
    expect(reply.status).toBe(200);
    const sent = basic.bodies[basic.bodies.length - 1].toString('latin1');
    expect(sent.length).toBe(body.length);
    expect(sent).toContain('Content-Disposition: form-data; name="title"\r\n\r\nMy Book\r\n');
    expect(sent).toContain('name="file"; filename="My Book.pdf"\r\nContent-Type: application/pdf');
    expect(sent).not.toContain('name="publisher"');
    expect((reply.json() as { type: string }).type).toBe(body.contentType);
  });

  it('rejects with a network error when nothing listens', async () => {
    const closed = createServer();
    const url = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await httpRequest({ url }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpNetworkError);
    expect((error as HttpNetworkError).code).toBe('ECONNREFUSED');
  });

  it('reads several challenges in one header', () => {
    expect(parseChallenges(['Basic realm="a, b", Digest realm="c", nonce="n\\"q", qop="auth,auth-int"', 'Negotiate abc=='])).toEqual([
      { scheme: 'basic', params: { realm: 'a, b' } },
      { scheme: 'digest', params: { realm: 'c', nonce: 'n"q', qop: 'auth,auth-int' } },
      { scheme: 'negotiate', params: { token68: 'abc==' } },
    ]);
  });
});
