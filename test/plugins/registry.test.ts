import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { discoverDestinations, installFromRegistry, installPluginDirectory, installRecord, readRegistry, removePlugin } from '../../src/plugins/index.js';
import { applySettings, envName, PluginSecrets } from '../../src/settings/index.js';
import { isQuireError } from '../../src/errors.js';
import { cleanup, FIXTURES, hostFor, makeAppData, memoryKeychain } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'build-registry-index.mjs');

/** A registry folder holding the given fixtures, with its index built by the real script. */
function makeRegistry(dir: string, fixtures: string[]): string {
  const registry = join(dir, 'registry');
  for (const name of fixtures) cpSync(join(FIXTURES, name), join(registry, 'destinations', name), { recursive: true });
  execFileSync(process.execPath, [SCRIPT, registry], { encoding: 'utf8' });
  return registry;
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isQuireError(e)) return e.message;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('the registry', () => {
  let work: string;
  let appData: string;
  let registry: string;
  beforeEach(() => {
    work = makeAppData();
    appData = join(work, 'app');
    registry = makeRegistry(work, ['echo-dest', 'api-mismatch']);
  });
  afterEach(() => cleanup(work));

  it('indexes every file with its sha256 and marks our entries first-party', async () => {
    const index = await readRegistry(registry);
    const echo = index.destinations.find((d) => d.slug === 'echo-dest');
    expect(echo).toMatchObject({ slug: 'echo-dest', name: 'Echo destination', version: '1.0.0', api: 1, first_party: true, path: 'destinations/echo-dest' });
    expect(echo?.files.map((f) => f.path)).toEqual(['plugin.mjs', 'quire-plugin.toml']);
    expect(echo?.files[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(spawnSync(process.execPath, [SCRIPT, '--check', registry]).status).toBe(0);
  });

  it('installs a destination only after every file matched its hash; nothing is active before', async () => {
    expect(await discoverDestinations(hostFor(appData))).toEqual([]);
    const installed = await installFromRegistry('echo-dest', { ...hostFor(appData), registry });
    expect(installed.descriptor.display).toBe('Echo');
    expect(readdirSync(join(appData, 'plugins', 'destinations'))).toEqual(['echo-dest']);
    expect(installRecord('echo-dest', appData)).toMatchObject({ first_party: true, version: '1.0.0' });
    const found = await discoverDestinations(hostFor(appData));
    expect(found.map((d) => [d.slug, d.state])).toEqual([['echo-dest', 'usable']]);
  });

  it('refuses a plugin whose file differs from the index, and installs nothing', async () => {
    appendFileSync(join(registry, 'destinations', 'echo-dest', 'plugin.mjs'), '\n// tampered\n');
    expect(await failure(installFromRegistry('echo-dest', { ...hostFor(appData), registry }))).toBe(
      "The plugin echo-dest was not installed: its file plugin.mjs does not match the registry's checksum.",
    );
    expect(existsSync(join(appData, 'plugins', 'destinations', 'echo-dest'))).toBe(false);
    expect(readdirSync(join(appData, 'plugins')).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('refuses, at install, a registry plugin that discovery would refuse', async () => {
    expect(await failure(installFromRegistry('api-mismatch', { ...hostFor(appData), registry }))).toBe(
      'The plugin api-mismatch was not installed: it needs plugin API 99, and this Quire provides plugin API 1.',
    );
    expect(await failure(installFromRegistry('no-such-thing', { ...hostFor(appData), registry }))).toMatch(/has no destination called no-such-thing/);
  });

  it('installs a third-party plugin folder through the same path, not marked first-party', async () => {
    const folder = join(work, 'mine', 'echo-dest');
    cpSync(join(FIXTURES, 'echo-dest'), folder, { recursive: true });
    await installPluginDirectory(folder, hostFor(appData));
    expect(installRecord('echo-dest', appData)).toMatchObject({ first_party: false });
    const wrongName = join(work, 'mine', 'slug-mismatch');
    cpSync(join(FIXTURES, 'slug-mismatch'), wrongName, { recursive: true });
    expect(await failure(installPluginDirectory(wrongName, hostFor(appData)))).toMatch(
      /names the slug "send-to-library" but it sits in the directory "slug-mismatch"/,
    );
  });

  it('removes code, data and secrets in every store', async () => {
    const keychain = memoryKeychain();
    const host = hostFor(appData, { keychain });
    const installed = await installFromRegistry('echo-dest', { ...host, registry });
    applySettings(installed.descriptor, [['shelf', 'A']], host);
    new PluginSecrets('echo-dest', { appData, keychain }).set('token', 'in-keychain');
    keychain.entries.set('echo-dest\u001fold_key', 'left by an older version');
    new PluginSecrets('echo-dest', { appData, keychain }).set('old_key', 'recorded');
    new PluginSecrets('echo-dest', { appData, plaintext: true, keychain: null }).set('token', 'in-env');
    await removePlugin('echo-dest', host);
    expect(existsSync(join(appData, 'plugins', 'destinations', 'echo-dest'))).toBe(false);
    expect(existsSync(join(appData, 'plugins', 'data', 'echo-dest'))).toBe(false);
    expect([...keychain.entries.keys()]).toEqual([]);
    expect(readFileSync(join(appData, '.env'), 'utf8')).not.toContain(envName('echo-dest', 'token'));
    expect(await failure(removePlugin('echo-dest', host))).toBe('No plugin called echo-dest is installed.');
  });
});

describe('a registry over HTTP', () => {
  let work: string;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    work = makeAppData();
    const registry = makeRegistry(work, ['echo-dest']);
    server = createServer((req, res) => {
      const path = join(
        registry,
        ...decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
          .split('/')
          .filter((s) => s && s !== '..'),
      );
      if (!existsSync(path)) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200).end(readFileSync(path));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    cleanup(work);
  });

  it('lists and installs from a URL with the same checks', async () => {
    const index = await readRegistry(url);
    expect(index.destinations.map((d) => d.slug)).toEqual(['echo-dest']);
    const appData = join(work, 'app');
    mkdirSync(appData);
    const installed = await installFromRegistry('echo-dest', { ...hostFor(appData), registry: url });
    expect(installed.slug).toBe('echo-dest');
  });
});

describe("this repository's registry", () => {
  const registry = join(ROOT, 'registry');
  const hasDestinations = existsSync(join(registry, 'destinations')) && readdirSync(join(registry, 'destinations')).length > 0;
  it.runIf(hasDestinations)('has an index.json that matches its files (run scripts/build-registry-index.mjs)', () => {
    const check = spawnSync(process.execPath, [SCRIPT, '--check', registry], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
