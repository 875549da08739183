import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envName, keychainAnswers, osKeychain, PluginSecrets } from '../../src/settings/index.js';
import { PluginSettings } from '../../src/settings/settings.js';
import { cleanup, makeAppData, memoryKeychain } from '../plugins/helpers.js';
import { missingSecretServicePrograms, startSecretService, type SecretServiceSession } from './secret-service.js';

describe('secrets', () => {
  let appData: string;
  beforeEach(() => {
    appData = makeAppData();
  });
  afterEach(() => cleanup(appData));

  it("writes to <APP_DATA>/.env with mode 0600 in plaintext mode, keeping the file's other lines", () => {
    writeFileSync(join(appData, '.env'), '# mine\nQUIRE_SERVER_PORT=4674\n');
    const secrets = new PluginSecrets('send-to-library', { appData, plaintext: true, keychain: memoryKeychain() });
    expect(secrets.set('password', 'p"a ss#\nword')).toBe('env-file');
    const env = readFileSync(join(appData, '.env'), 'utf8');
    expect(env).toContain('# mine\nQUIRE_SERVER_PORT=4674\n');
    expect(env).toContain('QUIRE_PLUGIN__SEND_TO_LIBRARY__PASSWORD=');
    expect(statSync(join(appData, '.env')).mode & 0o777).toBe(0o600);
    expect(secrets.read('password')).toEqual({ value: 'p"a ss#\nword', from: 'env-file' });
  });

  it('goes to the keychain when one answers, under service quire.plugin and <slug>U+001F<key>', () => {
    const keychain = memoryKeychain();
    const secrets = new PluginSecrets('send-to-library', { appData, keychain });
    expect(secrets.keychainAvailable).toBe(true);
    expect(secrets.set('password', 'pw')).toBe('keychain');
    expect([...keychain.entries]).toEqual([['send-to-library\u001fpassword', 'pw']]);
    expect(secrets.read('password')).toEqual({ value: 'pw', from: 'keychain' });
  });

  it("falls back to the plugin's own config file without a keychain, in a row a settings form never sees", () => {
    const secrets = new PluginSecrets('send-to-library', { appData, keychain: null });
    expect(secrets.keychainAvailable).toBe(false);
    expect(secrets.store).toBe('config-file');
    secrets.set('password', 'pw');
    expect(secrets.read('password')).toEqual({ value: 'pw', from: 'config-file' });
    const settings = PluginSettings.open(join(appData, 'plugins', 'data', 'send-to-library', 'config.db'));
    try {
      expect(settings.all()).toEqual({});
    } finally {
      settings.close();
    }
  });

  it('reads .env first, then the keychain, then the config row, in every mode', () => {
    const keychain = memoryKeychain();
    keychain.entries.set('send-to-library\u001fpassword', 'from-keychain');
    const settings = PluginSettings.open(join(appData, 'plugins', 'data', 'send-to-library', 'config.db'));
    settings.set('__secret__.password', 'from-row');
    settings.close();
    for (const plaintext of [false, true]) {
      const secrets = new PluginSecrets('send-to-library', { appData, plaintext, keychain });
      expect(secrets.read('password').from).toBe('keychain');
    }
    writeFileSync(join(appData, '.env'), `${envName('send-to-library', 'password')}=from-env\n`);
    expect(new PluginSecrets('send-to-library', { appData, keychain }).get('password')).toBe('from-env');
    keychain.entries.clear();
    writeFileSync(join(appData, '.env'), '');
    expect(new PluginSecrets('send-to-library', { appData, keychain }).read('password')).toEqual({ value: 'from-row', from: 'config-file' });
  });

  it('says a locked keychain is unreachable instead of pretending the secret is unset', () => {
    const keychain = memoryKeychain();
    const secrets = new PluginSecrets('send-to-library', { appData, keychain });
    secrets.set('password', 'pw');
    const later = new PluginSecrets('send-to-library', { appData, keychain });
    expect(later.keychainAvailable).toBe(true);
    keychain.get = (): never => {
      throw new Error('the collection is locked');
    };
    expect(later.read('password').unreachable).toMatch(/^the keychain could not be opened: .*locked/);
  });

  it('a newer value wins: setting it removes the older copies elsewhere', () => {
    const keychain = memoryKeychain();
    new PluginSecrets('send-to-library', { appData, plaintext: true, keychain }).set('password', 'old-env');
    new PluginSecrets('send-to-library', { appData, keychain }).set('password', 'new-keychain');
    expect(new PluginSecrets('send-to-library', { appData, plaintext: true, keychain }).read('password')).toEqual({ value: 'new-keychain', from: 'keychain' });
  });

  it("refuses keys holding U+001F, so no plugin can name another's keychain entries", () => {
    const secrets = new PluginSecrets('evil', { appData, keychain: memoryKeychain() });
    expect(() => secrets.set('x\u001fpassword', 'pw')).toThrow(/cannot name a secret/);
    expect(() => secrets.get('../send-to-library')).toThrow(/cannot name a secret/);
    expect(() => new PluginSecrets('send-to-library\u001fpassword', { appData, keychain: null })).toThrow(/not a plugin slug/);
  });
});

/** The OS keychain for real: gnome-keyring-daemon on a private D-Bus session. */
describe('secrets in a real Secret Service', () => {
  const missing = missingSecretServicePrograms();
  // In CI a missing peer is a failure, not a skip.
  const run = missing.length === 0 || process.env.CI === 'true' ? describe : describe.skip;
  run('gnome-keyring-daemon', () => {
    let session: SecretServiceSession | undefined;
    let appData: string;
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    beforeAll(async () => {
      expect(missing, 'install gnome-keyring and dbus (apt-get install gnome-keyring dbus)').toEqual([]);
      session = await startSecretService();
      process.env.DBUS_SESSION_BUS_ADDRESS = session.address;
      appData = makeAppData();
    });
    afterAll(() => {
      session?.stop();
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
      if (appData) cleanup(appData);
    });

    it('stores, reads and deletes a plugin secret in the keychain', () => {
      expect(keychainAnswers(osKeychain())).toBe(true);
      const secrets = new PluginSecrets('send-to-library', { appData });
      expect(secrets.store).toBe('keychain');
      expect(secrets.set('password', 's3cret')).toBe('keychain');
      expect(new PluginSecrets('send-to-library', { appData }).read('password')).toEqual({ value: 's3cret', from: 'keychain' });
      // Another tool sees it under the documented names.
      const lookup = spawnSync('secret-tool', ['lookup', 'service', 'quire.plugin', 'username', 'send-to-library\u001fpassword'], { encoding: 'utf8' });
      if (!lookup.error) expect(lookup.stdout).toBe('s3cret');
      secrets.delete('password');
      expect(new PluginSecrets('send-to-library', { appData }).read('password')).toEqual({});
    });
  });

  it('falls back to the config file when no Secret Service answers', () => {
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/quire-test-bus';
    const appData = makeAppData();
    try {
      expect(keychainAnswers(osKeychain())).toBe(false);
      const secrets = new PluginSecrets('send-to-library', { appData });
      expect(secrets.set('password', 'pw')).toBe('config-file');
      expect(secrets.read('password')).toEqual({ value: 'pw', from: 'config-file' });
    } finally {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
      cleanup(appData);
    }
  });
});
