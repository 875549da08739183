import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listDestinations, pluginsCommand } from '../../src/cli/commands/plugins.js';
import { isQuireError } from '../../src/errors.js';
import { cleanup, FIXTURES, hostFor, makeAppData } from './helpers.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/build-registry-index.mjs', import.meta.url));

describe('quire plugins', () => {
  let work: string;
  let appData: string;
  let registry: string;
  let secrets: string[];

  beforeEach(() => {
    work = makeAppData();
    appData = join(work, 'app');
    registry = join(work, 'registry');
    cpSync(join(FIXTURES, 'echo-dest'), join(registry, 'destinations', 'echo-dest'), { recursive: true });
    execFileSync(process.execPath, [SCRIPT, registry]);
    secrets = [];
  });
  afterEach(() => cleanup(work));

  /** Run `quire plugins <args>` in this process; returns what it printed, or the error's message. */
  async function quire(...args: string[]): Promise<{ out: string; error?: string }> {
    let out = '';
    const command = pluginsCommand({ host: hostFor(appData), out: (t) => (out += t), readSecret: async () => secrets.shift() ?? '' });
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
    try {
      await command.parseAsync(args, { from: 'user' });
      return { out };
    } catch (e) {
      return { out, error: isQuireError(e) ? e.message : e instanceof Error ? e.message : String(e) };
    }
  }

  it('lists what the registry offers, installs, configures and removes a destination', async () => {
    const available = await quire('available', '--registry', registry);
    expect(available.out).toMatch(/^echo-dest\s+1\.0\.0\s+first-party\s+Keeps a copy of each file in its own scratch folder\.$/m);
    expect(available.out).toMatch(/Secrets set from the command line go to .*\/\.env \(mode 0600\); no OS keychain was found/);

    const installed = await quire('install', 'echo-dest', '--registry', registry);
    expect(installed.out).toContain('Installed echo-dest 1.0.0 (Echo; accepts pdf, md).');
    expect(installed.out).toContain('missing: Shelf name, Access token');
    expect((await quire('available', '--registry', registry)).out).toMatch(/\[installed\]/);
    expect((await quire('list')).out).toMatch(/^echo-dest\s+1\.0\.0\s+Echo \(first-party\) — needs Shelf name, Access token$/m);

    const before = await quire('config', 'echo-dest');
    expect(before.out).toMatch(/^ {2}port\s+587 \(default\)\s+Port$/m);
    expect(before.out).toMatch(/^ {2}token\s+not set\s+Access token \[required\]$/m);
    expect(before.out).toContain('Not set up yet; missing: Shelf name, Access token.');

    secrets = ['t0p-s3cret'];
    const set = await quire('config', 'echo-dest', '--set', 'shelf=Reading room', '--set', 'port=2525', '--set-secret', 'token');
    expect(set.error).toBeUndefined();
    expect(set.out).toContain('Saved 2 settings for echo-dest.');
    expect(set.out).toContain(`Stored token for echo-dest in ${appData}/.env.`);
    expect(statSync(join(appData, '.env')).mode & 0o777).toBe(0o600);
    // Every file holding a setting or a secret is 0600 in a 0700 folder.
    const data = join(appData, 'plugins', 'data', 'echo-dest');
    const mode = (path: string): number => statSync(path).mode & 0o777;
    expect([mode(join(data, 'config.db')), mode(join(data, 'install.json')), mode(data), mode(appData)]).toEqual([0o600, 0o600, 0o700, 0o700]);
    // One left readable by an older Quire (or copied by hand) is put right on the next write.
    chmodSync(join(data, 'config.db'), 0o644);
    chmodSync(data, 0o755);
    await quire('config', 'echo-dest', '--set', 'loud=yes');
    expect([mode(join(data, 'config.db')), mode(data)]).toEqual([0o600, 0o700]);

    const after = await quire('config', 'echo-dest');
    expect(after.out).toMatch(/^ {2}shelf\s+Reading room\s+Shelf name \[required\]$/m);
    expect(after.out).toMatch(/^ {2}token\s+set \(in \S+\/\.env\)\s+Access token \[required\]$/m);
    expect(after.out).toContain('Ready.');
    expect(after.out).toContain('Network: none (its manifest declares no network use).');
    expect(after.out).not.toContain('t0p-s3cret');

    let listing = '';
    await listDestinations({ host: hostFor(appData), out: (t) => (listing += t) });
    expect(listing).toMatch(/^echo-dest\s+Echo — accepts pdf, md — ready$/m);

    const check = await quire('check', 'echo-dest');
    expect(check.out).toBe('echo-dest: OK — Shelf Reading room is ready.\n');

    expect((await quire('remove', 'echo-dest')).out).toBe('Removed echo-dest, its settings and its secrets.\n');
    expect(readFileSync(join(appData, '.env'), 'utf8')).not.toContain('t0p-s3cret');
    expect((await quire('config', 'echo-dest')).error).toBe('The destination echo-dest is not installed; install it with: quire plugins install echo-dest');
  });

  it('refuses settings that do not fit, naming what would', async () => {
    await quire('install', 'echo-dest', '--registry', registry);
    expect((await quire('config', 'echo-dest', '--set', 'port=lots')).error).toBe('port must be a whole number.');
    expect((await quire('config', 'echo-dest', '--set', 'mode=medium')).error).toBe('mode must be one of: fast, slow.');
    expect((await quire('config', 'echo-dest', '--set', 'colour=red')).error).toBe(
      'echo-dest has no setting "colour"; it has: shelf, port, mode, loud, headers.',
    );
    expect((await quire('config', 'echo-dest', '--set', 'token=abc')).error).toBe(
      'token is a secret: set it with --set-secret token, which reads it from standard input.',
    );
    expect((await quire('config', 'echo-dest', '--set-secret', 'token')).error).toBe('No value was given for token; nothing was stored.');
    expect((await quire('config', 'echo-dest', '--with-secrets')).error).toBe('--with-secrets goes with --export.');
    expect((await quire('config', 'echo-dest', '--set', 'shelf')).error).toBe(
      '--set takes key=value (e.g. --set base_url=http://localhost:8080), not "shelf".',
    );
  });

  it('exports with secrets behind a warning that counts them, and imports', async () => {
    await quire('install', 'echo-dest', '--registry', registry);
    secrets = ['abc'];
    await quire('config', 'echo-dest', '--set', 'shelf=A', '--set-secret', 'token');
    const file = join(work, 'echo.json');
    const plain = await quire('config', 'echo-dest', '--export', file);
    expect(plain.out).toBe(`Wrote 1 setting of echo-dest to ${file} (mode 0600).\n`);
    const exported = await quire('config', 'echo-dest', '--export', file, '--with-secrets');
    expect(exported.out).toContain('Warning: 1 secret is in that file as readable text (token); keep it private and delete it once imported.');
    await quire('remove', 'echo-dest');
    await quire('install', 'echo-dest', '--registry', registry);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const imported = await quire('config', 'echo-dest', '--import', file);
    expect(imported.out).toBe(`Imported 1 setting and 1 secret (token, into ${appData}/.env) for echo-dest.\n`);
    const data = join(appData, 'plugins', 'data', 'echo-dest');
    expect([statSync(join(data, 'config.db')).mode & 0o777, statSync(data).mode & 0o777, statSync(join(appData, '.env')).mode & 0o777]).toEqual([
      0o600, 0o700, 0o600,
    ]);
    expect((await quire('config', 'echo-dest')).out).toContain('Ready.');
  });
});
