import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listDestinations } from '../../src/cli/commands/plugins.js';
import { API_VERSION, discoverDestinations, findDestination } from '../../src/plugins/index.js';
import { cleanup, hostFor, makeAppData, placeFixture } from './helpers.js';

describe('discovery', () => {
  let appData: string;
  beforeEach(() => {
    appData = makeAppData();
  });
  afterEach(() => cleanup(appData));

  it('finds a well-made destination and reads what it says about itself', async () => {
    placeFixture(appData, 'echo-dest');
    const [found] = await discoverDestinations(hostFor(appData));
    expect(found.state).toBe('usable');
    if (found.state !== 'usable') return;
    expect(found.descriptor.display).toBe('Echo');
    expect(found.descriptor.accepts).toEqual(['pdf', 'md']);
    expect(found.descriptor.configFields.map((f) => f.id)).toEqual(['shelf', 'port', 'mode', 'loud', 'headers']);
    expect(found.descriptor.secretFields.map((f) => [f.id, f.kind])).toEqual([['token', 'secret']]);
  });

  it('lists every broken plugin with its reason, skips it, and keeps the good one', async () => {
    placeFixture(appData, 'echo-dest');
    placeFixture(appData, 'bad-manifest');
    placeFixture(appData, 'slug-mismatch');
    placeFixture(appData, 'api-mismatch');
    placeFixture(appData, 'forbidden-import');
    placeFixture(appData, 'throws-on-load');
    const found = await discoverDestinations(hostFor(appData));
    const reasons = Object.fromEntries(found.map((d) => [d.slug, d.state === 'refused' ? d.reason : 'usable']));
    expect(reasons['echo-dest']).toBe('usable');
    expect(reasons['bad-manifest']).toMatch(/quire-plugin\.toml is not valid TOML \(line 3\)/);
    expect(reasons['slug-mismatch']).toMatch(/names the slug "send-to-library" but it sits in the directory "slug-mismatch"/);
    expect(reasons['api-mismatch']).toBe(`it needs plugin API 99, and this Quire provides plugin API ${API_VERSION}`);
    expect(reasons['forbidden-import']).toMatch(/imports "node:child_process"/);
    expect(reasons['throws-on-load']).toBe('it throws when it loads');
    const thrown = found.find((d) => d.slug === 'throws-on-load');
    expect(thrown?.state === 'refused' && thrown.detail).toMatch(/TypeError/);
  });

  it('refuses a plugin before running any of its code', async () => {
    // The forbidden-import fixture would copy files with cp if it ran; its data folder is never even made.
    placeFixture(appData, 'forbidden-import');
    placeFixture(appData, 'api-mismatch');
    await discoverDestinations(hostFor(appData));
    expect(existsSync(join(appData, 'plugins', 'data', 'forbidden-import'))).toBe(false);
    expect(existsSync(join(appData, 'plugins', 'data', 'api-mismatch'))).toBe(false);
  });

  it('shows refusals in quire list destinations, with what each destination accepts and needs', async () => {
    placeFixture(appData, 'echo-dest');
    placeFixture(appData, 'api-mismatch');
    let text = '';
    await listDestinations({ host: hostFor(appData), out: (t) => (text += t) });
    expect(text).toMatch(/^api-mismatch\s+refused: it needs plugin API 99, and this Quire provides plugin API 1$/m);
    expect(text).toMatch(/^echo-dest\s+Echo — accepts pdf, md — missing: Shelf name, Access token$/m);
  });

  it('loads the example plugin of docs/plugins.md as written', async () => {
    const doc = readFileSync(new URL('../../docs/plugins.md', import.meta.url), 'utf8');
    const toml = /```toml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const js = /```js\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const dir = join(appData, 'plugins', 'destinations', 'send-to-shelf');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'quire-plugin.toml'), toml);
    writeFileSync(join(dir, 'plugin.mjs'), js);
    const found = await findDestination('send-to-shelf', hostFor(appData));
    expect(found?.state === 'refused' ? found.reason : found?.state).toBe('usable');
  });

  it('says so when nothing is installed, and finds nothing by a slug that is not there', async () => {
    let text = '';
    await listDestinations({ host: hostFor(appData), out: (t) => (text += t) });
    expect(text).toMatch(/No destination is installed/);
    expect(await findDestination('send-to-library', hostFor(appData))).toBeUndefined();
  });
});
