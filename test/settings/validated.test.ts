// A setting is checked by its field's kind when it is set, the same way for Quire's own (`quire config set`) and a
// destination's (`quire plugins config --set`, the web app's settings): a value that does not fit is refused with
// the sentence saying what is expected, and nothing is stored.
import { join } from 'node:path';
import { SqliteDatabase as Database } from '../../src/settings/index.js';
import { describe, expect, it } from 'vitest';
import { Field, parseFieldValue } from '../../src/plugin-api/index.js';
import { runQuire, withTempDir } from '../helpers.js';

describe('quire config set', () => {
  it('refuses a timeout that is negative, zero or past its bound, keeps the one before, and takes a fitting one', async () => {
    await withTempDir(async (dir) => {
      const env = { QUIRE_HOME: join(dir, 'home') };
      const timeout = async (): Promise<string | undefined> =>
        /^remoteocr\.connect_timeout\s+(.*)$/m.exec((await runQuire(['config', 'show'], { env })).stdout)?.[1];
      for (const value of ['-5', '0', '99999999999', '2.5', 'ten']) {
        const r = await runQuire(['config', 'set', 'remoteocr.connect_timeout', value], { env });
        expect({ value, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
          value,
          code: 2,
          stdout: '',
          stderr: 'quire: remoteocr.connect_timeout must be a whole number of seconds from 1 to 300.\n',
        });
      }
      expect(await timeout()).toBe('10 (default)');
      expect((await runQuire(['config', 'set', 'remoteocr.connect_timeout', '20'], { env })).stdout).toBe('remoteocr.connect_timeout set.\n');
      expect((await runQuire(['config', 'set', 'remoteocr.connect_timeout', '301'], { env })).code).toBe(2);
      expect(await timeout()).toBe('20');
      const url = await runQuire(['config', 'set', 'remoteocr.base_url', 'notaurl'], { env });
      expect(url.stderr).toBe('quire: remoteocr.base_url must be an http or https URL such as https://example.org.\n');
    });
  });

  it('shows a value saved before it was checked (or edited by hand) as not used, and runs on the default', async () => {
    await withTempDir(async (dir) => {
      const env = { QUIRE_HOME: join(dir, 'home') };
      expect((await runQuire(['config', 'set', 'remoteocr.response_timeout', '60'], { env })).code).toBe(0);
      const db = new Database(join(dir, 'home', 'plugins', 'data', 'remoteocr', 'config.db'));
      db.prepare("UPDATE settings SET value = '-5' WHERE key = 'response_timeout'").run();
      db.close();
      expect((await runQuire(['config', 'show'], { env })).stdout).toMatch(
        /^remoteocr\.response_timeout 30 \(default\) — the saved "-5" is not used: remoteocr\.response_timeout must be a whole number of seconds from 1 to 900$/m,
      );
    });
  });
});

describe('the kinds a field declares', () => {
  it('reads each value as its kind, or says what is expected', () => {
    const port = Field('smtp_port', 'SMTP port', 'port', 587);
    expect(parseFieldValue(port, ' 465 ')).toBe(465);
    expect(() => parseFieldValue(port, '65536')).toThrow('smtp_port must be a port number from 1 to 65535');
    const url = Field('base_url', 'Server address', 'url', '', { required: true });
    expect(parseFieldValue(url, 'http://127.0.0.1:8080/calibre/')).toBe('http://127.0.0.1:8080/calibre');
    expect(() => parseFieldValue(url, 'ftp://files.example.org')).toThrow('base_url must be an http or https URL such as https://example.org');
    expect(() => parseFieldValue(url, 'https://alice:pw@example.org')).toThrow(
      'base_url must be an http or https URL such as https://example.org, without a user name, query or #part',
    );
    const mail = Field('to_address', "E-reader's address", 'email', '');
    expect(parseFieldValue(mail, ' reader@kindle.com ')).toBe('reader@kindle.com');
    for (const bad of ['reader', 'reader@kindle', 'a b@kindle.com', 'reader@kindle.com, other@kindle.com', 're\u0007ader@kindle.com']) {
      expect(() => parseFieldValue(mail, bad), bad).toThrow('to_address must be an e-mail address such as name@example.org');
    }
    const wait = Field('wait', 'Wait (seconds)', 'duration', 30, { max: 600 });
    expect(parseFieldValue(wait, '600')).toBe(600);
    expect(() => parseFieldValue(wait, '0')).toThrow('wait must be a whole number of seconds from 1 to 600');
    expect(() => parseFieldValue(wait, '601')).toThrow('wait must be a whole number of seconds from 1 to 600');
    expect(Field('day', 'Day', 'duration', 60).max).toBe(86_400);
  });

  it('refuses a declaration whose default does not fit, so a broken plugin fails when it loads', () => {
    expect(() => Field('base_url', 'Address', 'url', 'localhost')).toThrow(
      'field "base_url": its default does not fit: base_url must be an http or https URL such as https://example.org',
    );
    expect(() => Field('port', 'Port', 'port', 0)).toThrow('field "port": its default does not fit: port must be a port number from 1 to 65535');
    expect(() => Field('wait', 'Wait', 'duration', 30, { min: 60, max: 10 })).toThrow('field "wait": its min 60 is above its max 10');
  });
});
