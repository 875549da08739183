import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Field, type BridgeBody } from '../../src/plugin-api/index.js';
import { describeHosts, hostOfSetting, networkPolicy, refusalOf, serveNetworkRequest } from '../../src/plugins/network.js';
import type { NetReply } from '../../src/plugins/sandbox/protocol.js';

describe('the hosts a plugin may reach through Quire', () => {
  it('reads a host from a URL setting (with its port) or a host name setting (any port)', () => {
    expect(hostOfSetting('https://Shelf.Example.org/base/')).toEqual({ host: 'shelf.example.org', port: 443 });
    expect(hostOfSetting('http://127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(hostOfSetting('http://[::1]:9000/x')).toEqual({ host: '[::1]', port: 9000 });
    expect(hostOfSetting('smtp.gmail.com')).toEqual({ host: 'smtp.gmail.com' });
    expect(hostOfSetting('mail.example.org:2525')).toEqual({ host: 'mail.example.org', port: 2525 });
    expect(hostOfSetting('localhost')).toEqual({ host: 'localhost' });
    expect(hostOfSetting('10.0.0.7')).toEqual({ host: '10.0.0.7' });
    // Not hosts: words, mail addresses, paths, other schemes.
    for (const text of ['alice', 'Reading room', 'me@example.org', '/calibre', 'ftp://x.example.org', 'file:///etc/passwd', '', 'fast']) {
      expect(hostOfSetting(text), text).toBeUndefined();
    }
  });

  it('names only hosts of text settings the user stored, and none without network = true', () => {
    const fields = [
      Field('base_url', 'Server', 'str', 'https://default.example.org'),
      Field('smtp_host', 'SMTP', 'str', ''),
      Field('mode', 'Mode', 'choice', 'a.example.org', { choices: ['a.example.org'] }),
      Field('port', 'Port', 'int', 25),
    ];
    const policy = networkPolicy(true, fields, { base_url: 'http://127.0.0.1:8080', smtp_host: 'smtp.example.org', mode: 'a.example.org', port: 25 });
    expect(describeHosts(policy)).toEqual(['127.0.0.1:8080', 'smtp.example.org']);
    expect(refusalOf(policy, '127.0.0.1', 8080, 'Shelf')).toBeUndefined();
    expect(refusalOf(policy, 'smtp.example.org', 465, 'Shelf')).toBeUndefined();
    expect(refusalOf(policy, '127.0.0.1', 8081, 'Shelf')).toBe('Shelf tried to reach 127.0.0.1:8081, which none of its settings names');
    expect(refusalOf(policy, 'default.example.org', 443, 'Shelf')).toMatch(/which none of its settings names/); // a default is the plugin's word, not the user's
    expect(refusalOf(policy, 'a.example.org', 443, 'Shelf')).toMatch(/which none of its settings names/); // so is a choice
    const undeclared = networkPolicy(false, fields, { base_url: 'http://127.0.0.1:8080' });
    expect(refusalOf(undeclared, '127.0.0.1', 8080, 'Shelf')).toBe(
      'Shelf does not declare network access (network = true in its manifest), and it tried to reach 127.0.0.1:8080',
    );
  });
});

describe('the host making a request for a plugin', () => {
  let dir: string;
  let server: Server;
  let port: number;
  let received: string[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'quire-network-'));
    mkdirSync(join(dir, 'files'));
    writeFileSync(join(dir, 'files', 'mine.txt'), 'MINE');
    writeFileSync(join(dir, 'secret.txt'), 'NOT YOURS');
    symlinkSync(join(dir, 'secret.txt'), join(dir, 'files', 'link.txt'));
    received = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (body: BridgeBody): Promise<{ reply: NetReply; refused: string[] }> => {
    const refused: string[] = [];
    const reply = await serveNetworkRequest(
      1,
      { kind: 'http', http: { url: `http://127.0.0.1:${port}/upload`, method: 'POST', headers: {}, body } },
      {
        policy: { declared: true, hosts: [{ host: '127.0.0.1', port }] },
        files: { filesDir: join(dir, 'files') },
        display: 'Shelf',
        onRefused: (why) => refused.push(why),
      },
    );
    return { reply, refused };
  };

  it("sends a file of the plugin's own folder, and nothing of the host's, whether named or linked", async () => {
    expect((await serve({ kind: 'file', path: join(dir, 'files', 'mine.txt') })).reply).toMatchObject({ ok: true, http: { status: 200 } });
    for (const path of [join(dir, 'secret.txt'), join(dir, 'files', 'link.txt'), join(dir, 'files', '..', 'secret.txt'), '/etc/passwd']) {
      const { reply, refused } = await serve({ kind: 'file', path });
      expect(reply, path).toMatchObject({ ok: false, error: { name: 'refused', code: 'ERR_ACCESS_DENIED' } });
      expect(refused, path).toEqual([`Shelf asked to send ${path}, a file outside its own folder`]);
    }
    const multipart = await serve({ kind: 'multipart', fields: { title: 'x' }, files: [{ name: 'file', path: join(dir, 'files', 'link.txt') }] });
    expect(multipart.refused).toHaveLength(1);
    expect(received).toEqual(['MINE']);
  });
});
