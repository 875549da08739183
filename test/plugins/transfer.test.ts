import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportSettings, findDestination, importSettings, type UsableDestination } from '../../src/plugins/index.js';
import { applySettings, PluginSecrets, viewSettings } from '../../src/settings/index.js';
import { isQuireError } from '../../src/errors.js';
import { cleanup, hostFor, makeAppData, memoryKeychain, placeFixture } from './helpers.js';

async function echoIn(appData: string): Promise<UsableDestination> {
  placeFixture(appData, 'echo-dest');
  const found = await findDestination('echo-dest', hostFor(appData));
  if (found?.state !== 'usable') throw new Error('echo-dest should load');
  return found;
}

describe('configuration transfer', () => {
  let appData: string;
  beforeEach(() => {
    appData = makeAppData();
  });
  afterEach(() => cleanup(appData));

  it('exports settings without secrets unless asked, to a file of mode 0600 naming its plugin', async () => {
    const echo = await echoIn(appData);
    applySettings(
      echo.descriptor,
      [
        ['shelf', 'A'],
        ['port', '2525'],
        ['loud', 'yes'],
      ],
      hostFor(appData),
    );
    // The fallback row (no keychain) must never ride out as a setting.
    new PluginSecrets('echo-dest', { appData, keychain: null }).set('token', 'row-secret');
    const file = join(appData, 'echo.json');
    const report = exportSettings(echo.descriptor, file, false, hostFor(appData));
    const bundle = JSON.parse(readFileSync(file, 'utf8'));
    expect(bundle).toMatchObject({ format: 'quire-plugin-settings', version: 1, plugin: 'echo-dest', settings: { shelf: 'A', port: 2525, loud: true } });
    expect(bundle.secrets).toBeUndefined();
    expect(readFileSync(file, 'utf8')).not.toContain('row-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(report.secretsWritten).toEqual([]);
  });

  it('with secrets: writes those it could read, as text, and names one it could not', async () => {
    const echo = await echoIn(appData);
    const keychain = memoryKeychain();
    new PluginSecrets('echo-dest', { appData, keychain }).set('token', 'kc-secret');
    const file = join(appData, 'echo.json');
    writeFileSync(file, '{}', { mode: 0o644 });
    const ok = exportSettings(echo.descriptor, file, true, hostFor(appData, { keychain }));
    expect(ok.secretsWritten).toEqual(['token']);
    expect(JSON.parse(readFileSync(file, 'utf8')).secrets).toEqual({ token: 'kc-secret' });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    keychain.get = (): never => {
      throw new Error('the collection is locked');
    };
    const locked = exportSettings(echo.descriptor, file, true, hostFor(appData, { keychain }));
    expect(locked.secretsWritten).toEqual([]);
    expect(locked.secretsUnreadable.map((u) => u.id)).toEqual(['token']);
    expect(JSON.parse(readFileSync(file, 'utf8')).secrets).toEqual({});
  });

  it('imports a bundle into its own plugin, secrets included, and refuses it for another', async () => {
    const echo = await echoIn(appData);
    const file = join(appData, 'echo.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'quire-plugin-settings',
        version: 1,
        plugin: 'echo-dest',
        exported: '',
        settings: { shelf: 'B', mode: 'slow' },
        secrets: { token: 'imported' },
      }),
    );
    const report = importSettings(echo.descriptor, file, hostFor(appData, { plaintextSecrets: true }));
    expect(report).toEqual({ settings: ['shelf', 'mode'], secrets: ['token'], secretStore: 'env-file' });
    const view = Object.fromEntries(viewSettings(echo.descriptor, hostFor(appData)).map((v) => [v.id, v.secret ?? v.value]));
    expect(view).toMatchObject({ shelf: 'B', mode: 'slow', port: 587, token: { set: true, store: 'env-file' } });

    writeFileSync(
      file,
      JSON.stringify({ format: 'quire-plugin-settings', version: 1, plugin: 'send-to-corpus', exported: '', settings: { base_url: 'http://x' } }),
    );
    let message = '';
    try {
      importSettings(echo.descriptor, file, hostFor(appData));
    } catch (e) {
      message = isQuireError(e) ? e.message : String(e);
    }
    expect(message).toBe(`${file} holds the settings of send-to-corpus, not of echo-dest; import it with quire plugins config send-to-corpus --import.`);
  });

  it('checks every value before writing any', async () => {
    const echo = await echoIn(appData);
    const file = join(appData, 'echo.json');
    writeFileSync(
      file,
      JSON.stringify({ format: 'quire-plugin-settings', version: 1, plugin: 'echo-dest', exported: '', settings: { shelf: 'C', port: 'many' } }),
    );
    expect(() => importSettings(echo.descriptor, file, hostFor(appData))).toThrow('port must be a whole number.');
    expect(viewSettings(echo.descriptor, hostFor(appData)).find((v) => v.id === 'shelf')?.value).toBe('');
  });
});
