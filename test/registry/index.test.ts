/**
 * The repository's registry: its index is current, our three destinations are first-party, and
 * each installs through `quire plugins install` (the third-party path) with the settings
 * contract the spec fixes (field ids, kinds, defaults, required) and the formats of the spec.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listDestinations, pluginsCommand } from '../../src/cli/commands/plugins.js';
import { isQuireError } from '../../src/errors.js';
import { discoverDestinations, installRecord, readRegistry, type PluginHostOptions } from '../../src/plugins/index.js';
import { tempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SLUGS = ['send-to-corpus', 'send-to-ereader', 'send-to-library'];

/** [id, kind, default, required, choices] of every setting, as the spec fixes them. */
const CONTRACT: Record<string, { accepts: string[]; config: Array<[string, string, unknown, boolean, string[]]>; secrets: Array<[string, boolean]> }> = {
  'send-to-library': {
    accepts: ['pdf', 'md', 'txt'],
    config: [
      ['base_url', 'url', '', true, []],
      ['url_prefix', 'str', '', false, []],
      ['library_id', 'str', '', false, []],
      ['username', 'str', '', true, []],
      ['auth_mode', 'choice', 'digest', false, ['digest', 'basic']],
      ['headers', 'str', '', false, []],
    ],
    secrets: [['password', true]],
  },
  'send-to-ereader': {
    accepts: ['pdf', 'epub', 'txt', 'md', 'docx'],
    config: [
      ['smtp_host', 'str', '', true, []],
      ['smtp_port', 'port', 587, false, []],
      ['smtp_security', 'choice', 'starttls', false, ['starttls', 'tls', 'none']],
      ['smtp_user', 'str', '', true, []],
      ['from_address', 'str', '', true, []],
      ['to_address', 'str', '', true, []],
      ['headers', 'str', '', false, []],
    ],
    secrets: [['smtp_password', true]],
  },
  'send-to-corpus': {
    accepts: ['pdf', 'md', 'txt', 'epub', 'html', 'textpack'],
    config: [
      ['base_url', 'url', '', true, []],
      ['headers', 'str', '', false, []],
    ],
    secrets: [['api_key', true]],
  },
};

describe('the first-party destinations in registry/', () => {
  let appData: string;
  let host: PluginHostOptions;
  let secrets: string[];
  beforeEach(() => {
    appData = tempDir('quire-registry-');
    host = { appData, keychain: null };
    secrets = [];
  });
  afterEach(() => rmSync(appData, { recursive: true, force: true }));

  async function quire(...args: string[]): Promise<{ out: string; error?: string }> {
    let out = '';
    const command = pluginsCommand({ host, out: (t) => (out += t), readSecret: async () => secrets.shift() ?? '' });
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
    try {
      await command.parseAsync(args, { from: 'user' });
      return { out };
    } catch (e) {
      return { out, error: isQuireError(e) ? e.message : e instanceof Error ? e.message : String(e) };
    }
  }

  it('has a current index listing all three as first-party, each a manifest and one module', async () => {
    const stale = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-registry-index.mjs'), '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(stale.stderr).toBe('');
    expect(stale.status).toBe(0);
    const index = await readRegistry();
    expect(index.destinations.map((d) => [d.slug, d.first_party, d.api, d.files.map((f) => f.path)])).toEqual(
      SLUGS.map((slug) => [slug, true, 1, ['plugin.mjs', 'quire-plugin.toml']]),
    );
    const available = await quire('available');
    for (const slug of SLUGS) expect(available.out).toMatch(new RegExp(`^${slug}\\s+1\\.0\\.0\\s+first-party `, 'm'));
  });

  it('activates none until installed; each installs like a third-party plugin, with the settings contract', async () => {
    expect(await discoverDestinations(host)).toEqual([]);
    for (const slug of SLUGS) {
      const installed = await quire('install', slug);
      expect(installed.error).toBeUndefined();
      expect(installRecord(slug, appData)).toMatchObject({ slug, first_party: true, version: '1.0.0' });
    }
    const found = await discoverDestinations(host);
    expect(found.map((d) => [d.slug, d.state])).toEqual(SLUGS.map((s) => [s, 'usable']));
    for (const d of found) {
      if (d.state !== 'usable') continue;
      const contract = CONTRACT[d.slug];
      expect(d.descriptor.name).toBe(d.slug);
      expect(d.descriptor.accepts).toEqual(contract.accepts);
      expect(d.descriptor.configFields.map((f) => [f.id, f.kind, f.default, f.required, [...f.choices]])).toEqual(contract.config);
      expect(d.descriptor.secretFields.map((f) => [f.id, f.kind, f.required])).toEqual(contract.secrets.map(([id, required]) => [id, 'secret', required]));
      expect(d.descriptor.configFields.find((f) => f.id === 'headers')?.multiline).toBe(true);
    }
    const ereader = found.find((d) => d.slug === 'send-to-ereader');
    expect(ereader?.state === 'usable' && ereader.descriptor.secretFields[0].help).toMatch(/app-specific password/);
  });

  it('is configured from the command line as the README shows, secrets kept out of sight', async () => {
    await quire('install', 'send-to-library');
    let listing = '';
    await listDestinations({ host, out: (t) => (listing += t) });
    expect(listing).toMatch(/^send-to-library\s+Send to library — accepts pdf, md, txt — missing: Server address, User name, Password$/m);

    secrets = ['orchard-7'];
    const set = await quire('config', 'send-to-library', '--set', 'base_url=http://localhost:8080', '--set', 'username=alice', '--set-secret', 'password');
    expect(set.error).toBeUndefined();
    const shown = await quire('config', 'send-to-library');
    expect(shown.out).toMatch(/^ {2}auth_mode\s+digest \(default\)\s+Sign-in method$/m);
    expect(shown.out).toMatch(/^ {2}password\s+set \(in .*\)\s+Password \[required\]$/m);
    expect(shown.out).not.toContain('orchard-7');
    expect(statSync(join(appData, '.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(appData, '.env'), 'utf8')).toContain('orchard-7');
    listing = '';
    await listDestinations({ host, out: (t) => (listing += t) });
    expect(listing).toMatch(/^send-to-library\s+Send to library — accepts pdf, md, txt — ready$/m);
  });
});
