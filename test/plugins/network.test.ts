import { describe, expect, it } from 'vitest';
import { Field } from '../../src/plugin-api/index.js';
import { describeHosts, hostOfSetting, networkPolicy, refusalOf } from '../../src/plugins/network.js';

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
    const fields = [Field('base_url', 'Server', 'str', 'https://default.example.org'), Field('smtp_host', 'SMTP', 'str', ''), Field('mode', 'Mode', 'choice', 'a.example.org', { choices: ['a.example.org'] }), Field('port', 'Port', 'int', 25)];
    const policy = networkPolicy(true, fields, { base_url: 'http://127.0.0.1:8080', smtp_host: 'smtp.example.org', mode: 'a.example.org', port: 25 });
    expect(describeHosts(policy)).toEqual(['127.0.0.1:8080', 'smtp.example.org']);
    expect(refusalOf(policy, '127.0.0.1', 8080, 'Shelf')).toBeUndefined();
    expect(refusalOf(policy, 'smtp.example.org', 465, 'Shelf')).toBeUndefined();
    expect(refusalOf(policy, '127.0.0.1', 8081, 'Shelf')).toBe('Shelf tried to reach 127.0.0.1:8081, which none of its settings names');
    expect(refusalOf(policy, 'default.example.org', 443, 'Shelf')).toMatch(/which none of its settings names/); // a default is the plugin's word, not the user's
    expect(refusalOf(policy, 'a.example.org', 443, 'Shelf')).toMatch(/which none of its settings names/); // so is a choice
    const undeclared = networkPolicy(false, fields, { base_url: 'http://127.0.0.1:8080' });
    expect(refusalOf(undeclared, '127.0.0.1', 8080, 'Shelf')).toBe('Shelf does not declare network access (network = true in its manifest), and it tried to reach 127.0.0.1:8080');
  });
});
