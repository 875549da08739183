import { describe, expect, it } from 'vitest';
import {
  API_VERSION,
  CHECK_KIND_LABELS,
  CheckResult,
  contentTypeFor,
  Destination,
  extensionOf,
  Field,
  formatBinaryBytes,
  formatBytes,
  headersField,
  normalizeBookMeta,
  parseHeaderLines,
  quotePathSegment,
  registerDestination,
  SendResult,
  type BookMeta,
  type DestinationInit,
} from '../../src/plugin-api/index.js';
import { registeredDestinations } from '../../src/plugin-api/index.js';
import { formatBytes as hostFormatBytes } from '../../src/util/index.js';

class Mailbox extends Destination {
  name = 'send-to-mailbox';
  display = 'Send to mailbox';
  description = 'Mails the book.';
  accepts = ['pdf', 'epub'];
  CONFIG_FIELDS = [
    Field('smtp_host', 'SMTP server', 'str', '', { required: true }),
    Field('smtp_port', 'SMTP port', 'int', 587),
    Field('smtp_security', 'Security', 'choice', 'starttls', { choices: ['starttls', 'tls', 'none'] }),
    headersField(),
  ];
  SECRET_FIELDS = [Field('smtp_password', 'Password', 'secret', '', { required: true, help: 'an app-specific password for Gmail or iCloud' })];
  async check(): Promise<CheckResult> {
    const missing = this.missingSettings();
    return missing.length > 0 ? CheckResult.failed(CheckResult.CONFIG, `Set ${missing.join(', ')} first.`) : CheckResult.passed('ok');
  }
  async send(_path: string, meta: BookMeta): Promise<SendResult> {
    return SendResult.sent(`"${meta.title}" was accepted for delivery.`);
  }
}

const init = (over: Partial<DestinationInit> = {}): DestinationInit => ({
  slug: 'send-to-mailbox',
  dataDir: '/tmp/x',
  settings: {},
  secrets: {},
  secretStore: 'keychain',
  ...over,
});

describe('the plugin API', () => {
  it('has a version number', () => {
    expect(API_VERSION).toBe(1);
  });

  it('reads a setting, falling back to the declared default on a fresh install', () => {
    const fresh = new Mailbox(init());
    expect(fresh.conf('smtp_port')).toBe(587);
    expect(fresh.conf('smtp_security')).toBe('starttls');
    expect(new Mailbox(init({ settings: { smtp_port: 465 } })).conf('smtp_port')).toBe(465);
    expect(() => fresh.conf('smtp_prot')).toThrow(/not one of its CONFIG_FIELDS/);
  });

  it('lists the labels of required settings still empty, secrets included', async () => {
    expect(new Mailbox(init()).missingSettings()).toEqual(['SMTP server', 'Password']);
    const ready = new Mailbox(init({ settings: { smtp_host: 'smtp.example.org' }, secrets: { smtp_password: 'pw' } }));
    expect(ready.missingSettings()).toEqual([]);
    expect(ready.secret('smtp_password')).toBe('pw');
    expect(await new Mailbox(init()).check()).toEqual({ ok: false, kind: 'CONFIG', message: 'Set SMTP server, Password first.', detail: '' });
  });

  it('tells a plugin where secrets are kept', () => {
    expect(new Mailbox(init()).ctx.secrets).toEqual({ available: true, store: 'keychain' });
    expect(new Mailbox(init({ secretStore: 'config-file' })).ctx.secrets).toEqual({ available: false, store: 'config-file' });
  });

  it('parses the headers setting, refusing a line that is not a header', () => {
    expect(new Mailbox(init({ settings: { headers: 'X-Proxy-Auth: abc\n\n# note\nCF-Access-Client-Id:  id ' } })).extraHeaders()).toEqual({
      'X-Proxy-Auth': 'abc',
      'CF-Access-Client-Id': 'id',
    });
    expect(() => parseHeaderLines('X-Ok: 1\nnot a header')).toThrow('headers, line 2: expected "Name: value"');
  });

  it('refuses malformed fields when the plugin loads', () => {
    expect(() => Field('Bad Id', 'x', 'str')).toThrow(/lower case/);
    expect(() => Field('x\u001fy', 'x', 'str')).toThrow(/lower case/);
    expect(() => Field('port', 'Port', 'int', 'five' as never)).toThrow(/whole number/);
    expect(() => Field('mode', 'Mode', 'choice', 'a')).toThrow(/needs its choices/);
    expect(() => Field('mode', 'Mode', 'choice', 'c', { choices: ['a', 'b'] })).toThrow(/not one of its choices/);
    expect(() => Field('pw', 'Password', 'secret', 'hunter2')).toThrow(/cannot have a default/);
    expect(Field('flag', 'Flag', 'bool')).toMatchObject({ default: false, required: false });
  });

  it('registers a destination class, by call or as a decorator', () => {
    expect(registerDestination(Mailbox)).toBe(Mailbox);
    expect(registerDestination(Mailbox, { kind: 'class' })).toBe(Mailbox);
    expect(registeredDestinations().filter((c) => c === Mailbox)).toHaveLength(1);
    expect(() => registerDestination(class NotOne {} as never)).toThrow(/extends Destination/);
  });

  it('builds results with a kind only on failure, and labels each kind', () => {
    expect(SendResult.alreadyThere('It is already in the library.')).toEqual({
      ok: true,
      alreadyThere: true,
      message: 'It is already in the library.',
      detail: '',
      kind: null,
    });
    expect(SendResult.failed('AUTH', 'Wrong password.', 'HTTP 401')).toMatchObject({ ok: false, kind: 'AUTH', detail: 'HTTP 401' });
    expect(CHECK_KIND_LABELS).toEqual({
      NETWORK: 'Cannot connect',
      AUTH: 'Wrong credentials',
      PERMISSION: 'Not allowed',
      SERVER: 'Server problem',
      CONFIG: 'Missing setting',
      UNKNOWN: 'Failed',
    });
  });

  it('percent-quotes path segments with no safe characters, as Python quote(s, safe="")', () => {
    expect(quotePathSegment('War / Peace: vol 1?#.pdf')).toBe('War%20%2F%20Peace%3A%20vol%201%3F%23.pdf');
    expect(quotePathSegment('Œuvres complètes')).toBe('%C5%92uvres%20compl%C3%A8tes');
    expect(quotePathSegment("a-b_c.d~e!'()*")).toBe('a-b_c.d~e%21%27%28%29%2A');
  });

  it('has the small helpers a destination needs', () => {
    // One formatter for every message, in powers of 1024: the host's own messages use the same function.
    expect(formatBytes(52_428_800)).toBe('50.0 MiB');
    expect(formatBytes(57_900_000)).toBe('55.2 MiB');
    expect(formatBytes(118_000)).toBe('115.2 KiB');
    expect(formatBytes(950)).toBe('950 bytes');
    expect(formatBinaryBytes(2 * 1024 ** 3)).toBe('2.0 GiB');
    expect(formatBytes).toBe(hostFormatBytes);
    expect(contentTypeFor('My Book.pdf')).toBe('application/pdf');
    expect(contentTypeFor('epub')).toBe('application/epub+zip');
    expect(extensionOf('/tmp/x/My.Book.TEXTPACK')).toBe('textpack');
  });

  it('tidies book metadata that crossed a process boundary', () => {
    expect(normalizeBookMeta({ title: ' My Book ', authors: ['A', ''], publisher: '', year: 1850, pages: 0, extra: 'x' })).toEqual({
      title: 'My Book',
      authors: ['A'],
      year: 1850,
    });
    expect(() => normalizeBookMeta({ title: '  ' })).toThrow(/needs a title/);
  });
});

describe('parseBaseUrl', () => {
  it('keeps a path, drops the trailing slash, and names what is wrong with a bad address', async () => {
    const { parseBaseUrl } = await import('../../src/plugin-api/index.js');
    expect(parseBaseUrl(' http://localhost:8080/calibre/ ')).toEqual({ url: 'http://localhost:8080/calibre' });
    expect(parseBaseUrl('https://api.mistral.ai')).toEqual({ url: 'https://api.mistral.ai' });
    expect(parseBaseUrl('quire dot org')).toEqual({ problem: 'not_url' });
    expect(parseBaseUrl('ftp://example.org')).toEqual({ problem: 'not_http' });
    for (const extra of ['http://u:p@example.org', 'http://example.org/?q=1', 'http://example.org/#top']) {
      expect(parseBaseUrl(extra), extra).toEqual({ problem: 'extra_parts' });
    }
  });
});
