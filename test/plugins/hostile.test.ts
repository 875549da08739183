/**
 * Hostile plugins, written to the public plugin docs and installed or placed by hand as a user
 * would: each is stopped, the listener hears nothing, the other process lives, and Quire keeps
 * running and removes the plugin. Every attack runs twice: inside bubblewrap (CI installs it), and
 * with bubblewrap pretended missing, where the permission model and the lockdown hold alone.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';
import { join } from 'node:path';
import {
  checkDestination,
  discoverDestinations,
  findDestination,
  installPluginDirectory,
  pluginIsolation,
  reachableHosts,
  removePlugin,
  scanImports,
  sendExports,
  type PluginHostOptions,
  type UsableDestination,
} from '../../src/plugins/index.js';
import { runInSandbox } from '../../src/plugins/sandbox.js';
import { detectIsolation, findBwrap } from '../../src/plugins/isolation.js';
import { applySettings } from '../../src/settings/index.js';
import { runQuire } from '../helpers.js';
import { cleanup, FIXTURES, hostFor, makeAppData, placeFixture } from './helpers.js';

const bwrap = findBwrap();

describe('bubblewrap on this machine', () => {
  it('is installed and makes sandboxes (on CI it must)', async () => {
    if (process.env.CI === 'true') expect(bwrap, "install Debian's bubblewrap (apt-get install bubblewrap)").not.toBeNull();
    if (bwrap === null) return;
    const isolation = await detectIsolation(bwrap);
    expect(isolation).toMatchObject({ level: 'full', bwrap });
  });
});

/** A loopback TCP listener that counts connections and keeps what it is sent. */
async function listener(): Promise<{ port: number; connections: () => number; received: () => string; close: () => Promise<void> }> {
  let connections = 0;
  let received = '';
  const server: NetServer = createNetServer((socket) => {
    connections += 1;
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A loopback UDP socket that counts datagrams. */
async function datagrams(port: number): Promise<{ count: () => number; close: () => void }> {
  let count = 0;
  const socket: Socket = createSocket('udp4');
  socket.on('message', () => (count += 1));
  await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', resolve));
  return { count: () => count, close: () => socket.close() };
}

const modes: Array<[string, PluginHostOptions]> = [
  ['inside bubblewrap', {}],
  ['with bubblewrap missing', { bwrap: null, allowUnisolated: true }],
];

describe.each(modes)('hostile plugins %s', (_mode, isolation) => {
  let appData: string;
  let book: string;
  const host = (): PluginHostOptions => hostFor(appData, isolation);

  beforeEach(() => {
    appData = makeAppData();
    book = join(appData, 'My Book.pdf');
    writeFileSync(book, '%PDF-1.4 a book');
  });
  afterEach(() => cleanup(appData));

  async function installed(fixture: string): Promise<UsableDestination> {
    placeFixture(appData, fixture, `${fixture}`);
    const found = await findDestination(fixture, host());
    if (found?.state !== 'usable') throw new Error(`${fixture} should load: ${found?.state === 'refused' ? found.reason : 'missing'}`);
    return found;
  }

  async function sendBook(slug: string): Promise<{ ok: boolean; kind: string | null; message: string; detail: string }> {
    const [outcome] = await sendExports([{ format: 'pdf', path: book }], [slug], { title: 'My Book' }, host());
    return outcome.result;
  }

  it('refuses a plugin that signals its parent at load, and keeps running', async () => {
    placeFixture(appData, 'kills-parent');
    const [found] = await discoverDestinations(host());
    expect(found).toMatchObject({ state: 'refused', slug: 'kills-parent', reason: 'it tried to reach something outside its sandbox while loading' });
    if (found.state === 'refused') expect(found.detail).toMatch(/process\.kill/);
    expect((await removePlugin('kills-parent', host())).code).toBe(true);
  });

  it('stops a plugin that signals another process when it sends, though the plugin says "Sent"', async () => {
    const victim: ChildProcess = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const d = await installed('kills-other');
      applySettings(d.descriptor, [['victim', String(victim.pid)]], host());
      const result = await sendBook('kills-other');
      expect(result).toMatchObject({
        ok: false,
        kind: 'PERMISSION',
        message: 'Kills another process tried to use process.kill, which a plugin may not, and was stopped, so the file was not sent.',
      });
      // A sleep, as the fact tested is that nothing happens: a signal sent before the plugin process ended would have
      // ended the victim within 200 ms; there is no event to wait on for a signal that never came.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(victim.exitCode).toBeNull();
      expect(victim.signalCode).toBeNull();
      expect(() => process.kill(victim.pid ?? 0, 0)).not.toThrow();
      if (isolation.bwrap !== null) {
        // In its own PID namespace it sees itself as one of the first processes: no other is in view.
        expect((await checkDestination(d, host())).message).toMatch(/^I am process [1-9]$/);
      }
    } finally {
      victim.kill();
    }
  });

  it('does not let a plugin that declares no network reach anything, not even through the host', async () => {
    const own = await listener();
    const elsewhere = await listener();
    try {
      const dir = placeFixture(appData, 'network-probe');
      writeFileSync(join(dir, 'quire-plugin.toml'), readFileSync(join(dir, 'quire-plugin.toml'), 'utf8').replace('network = true', 'network = false'));
      const d = await findDestination('network-probe', host());
      if (d?.state !== 'usable') throw new Error('network-probe should load');
      // Not even its own server (the other ways are refused below, for a plugin that declares the network).
      for (const how of ['own-server', 'fetch']) {
        applySettings(
          d.descriptor,
          [
            ['base_url', `http://127.0.0.1:${own.port}`],
            ['how', how],
            ['port', String(elsewhere.port)],
          ],
          host(),
        );
        const result = await sendBook('network-probe');
        expect(result, how).toMatchObject({ ok: false, kind: 'PERMISSION' });
        expect(result.message, how).toMatch(
          /^Network probe (does not declare network access \(network = true in its manifest\), and it tried to reach 127\.0\.0\.1:\d+|tried to use fetch, which a plugin may not), and was stopped, so the file was not sent\.$/,
        );
      }
      expect(own.connections()).toBe(0);
      expect(elsewhere.connections()).toBe(0);
    } finally {
      await own.close();
      await elsewhere.close();
    }
  });

  it('lets a plugin that declares the network reach only the server its settings name', async () => {
    const requests: string[] = [];
    const own: HttpServer = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        requests.push(`${req.method} ${req.url} ${body}`);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    const ownPort = (own.address() as { port: number }).port;
    const elsewhere = await listener();
    try {
      const d = await installed('network-probe');
      const configure = (how: string): void =>
        applySettings(
          d.descriptor,
          [
            ['base_url', `http://127.0.0.1:${ownPort}`],
            ['how', how],
            ['port', String(elsewhere.port)],
          ],
          host(),
        );
      configure('own-server');
      expect(reachableHosts(d, host())).toEqual([`127.0.0.1:${ownPort}`]);
      expect(await sendBook('network-probe')).toMatchObject({ ok: true, message: 'own server answered 200' });
      expect(requests).toEqual(['POST /upload %PDF-1.4 a book']);
      expect(await checkDestination(d, host())).toMatchObject({ ok: true, message: 'own server answered 200' });

      for (const how of ['http', 'fetch', 'mail']) {
        configure(how);
        const result = await sendBook('network-probe');
        expect(result, how).toMatchObject({ ok: false, kind: 'PERMISSION' });
        expect(result.message, how).toMatch(
          new RegExp(
            `^Network probe (tried to reach 127\\.0\\.0\\.1:${elsewhere.port}, which none of its settings names|tried to use fetch, which a plugin may not), and was stopped, so the file was not sent\\.$`,
          ),
        );
      }
      expect(elsewhere.connections()).toBe(0);
      expect(requests).toHaveLength(2);
    } finally {
      await new Promise<void>((resolve) => own.close(() => resolve()));
      await elsewhere.close();
    }
  });

  it('refuses hidden modules at discovery, and the sandbox holds when the check is skipped', async () => {
    placeFixture(appData, 'hidden-modules');
    const [found] = await discoverDestinations(host());
    expect(found).toMatchObject({ state: 'refused', reason: 'it reaches into process by a computed name, which hides what it uses' });

    const tcp = await listener();
    const udp = await datagrams(tcp.port);
    try {
      const codeDir = join(FIXTURES, 'hidden-modules');
      const source = readFileSync(join(codeDir, 'plugin.mjs'), 'utf8');
      const resolved = await pluginIsolation(host());
      // getBuiltinModule is closed before any module it could hand out; two of them show it.
      for (const module of ['net', 'child_process']) {
        const outcome = await runInSandbox({
          op: 'send',
          plugin: { slug: 'hidden-modules', codeDir, source, imports: scanImports(source).imports },
          filesDir: join(appData, 'files'),
          isolation: resolved,
          settings: { module, port: tcp.port },
          file: book,
          meta: { title: 'My Book' },
          timeoutMs: 20_000,
        });
        expect(outcome.refused, module).toEqual(['hidden-modules tried to use process.getBuiltinModule, which a plugin may not']);
        expect(outcome.type, module).toBe('failed');
        expect(JSON.stringify(outcome), module).not.toContain('ESCAPED');
      }
      // A sleep, as the fact tested is that nothing happens: a connection or datagram sent before the sandbox ended
      // would have reached the listeners within 200 ms; there is no event to wait on for one that never came.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(tcp.connections()).toBe(0);
      expect(udp.count()).toBe(0);
    } finally {
      udp.close();
      await tcp.close();
    }
  });

  it('closes the network and system modules at run time, imported plainly with the check skipped', async () => {
    const tcp = await listener();
    try {
      const source = [
        "import { Destination, registerDestination, SendResult, CheckResult } from 'quire/plugin-api';",
        "import net from 'node:net';",
        "import os from 'node:os';",
        "import { runInNewContext } from 'node:vm';",
        'class Plain extends Destination {',
        "  name = 'plain'; display = 'Plain'; description = 'x'; accepts = ['pdf']; CONFIG_FIELDS = []; SECRET_FIELDS = [];",
        '  async check() { return CheckResult.passed("x"); }',
        '  async send() {',
        '    const tried = [];',
        `    for (const attempt of [() => net.connect(${tcp.port}, '127.0.0.1'), () => os.userInfo(), () => runInNewContext('1'), () => process.kill(process.pid, 0)]) {`,
        '      try { tried.push(String(attempt())); } catch (e) { tried.push(e.code); }',
        '    }',
        '    return SendResult.sent(tried.join(" "));',
        '  }',
        '}',
        'registerDestination(Plain);',
      ].join('\n');
      const codeDir = join(appData, 'plain');
      mkdirSync(codeDir);
      const outcome = await runInSandbox({
        op: 'send',
        plugin: { slug: 'plain', codeDir, source, imports: scanImports(source).imports },
        filesDir: join(codeDir, 'files'),
        isolation: await pluginIsolation(host()),
        file: book,
        meta: { title: 'My Book' },
        timeoutMs: 20_000,
      });
      expect(outcome).toMatchObject({ type: 'sent', result: { message: 'ERR_ACCESS_DENIED ERR_ACCESS_DENIED ERR_ACCESS_DENIED ERR_ACCESS_DENIED' } });
      expect(outcome.refused).toEqual([
        'plain tried to use net.connect, which a plugin may not',
        'plain tried to use os.userInfo, which a plugin may not',
        'plain tried to use vm.runInNewContext, which a plugin may not',
        'plain tried to use process.kill, which a plugin may not',
      ]);
      // A sleep, as the fact tested is that nothing happens (see above): no connection reached the listener.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(tcp.connections()).toBe(0);
    } finally {
      await tcp.close();
    }
  });

  it('refuses a symbolic link in a plugin folder placed by hand, as install does', async () => {
    const outside = join(appData, 'outside.txt');
    writeFileSync(outside, 'PRIVATE');
    const dir = placeFixture(appData, 'echo-dest');
    symlinkSync(outside, join(dir, 'notes.txt'));
    const [found] = await discoverDestinations(host());
    expect(found).toMatchObject({ state: 'refused', reason: 'it holds a symbolic link (notes.txt); a plugin is plain files' });
    const installed = installPluginDirectory(dir, host());
    await expect(installed).rejects.toThrow('The plugin holds a symbolic link (notes.txt); a plugin is plain files.');

    // A plugin folder that is itself a link to a folder elsewhere.
    const elsewhere = join(appData, 'elsewhere', 'linked-dest');
    mkdirSync(join(appData, 'elsewhere'));
    symlinkSync(join(FIXTURES, 'echo-dest'), elsewhere);
    symlinkSync(elsewhere, join(appData, 'plugins', 'destinations', 'linked-dest'));
    const all = await discoverDestinations(host());
    expect(all.find((d) => d.slug === 'linked-dest')).toMatchObject({
      state: 'refused',
      reason: 'its folder is a symbolic link to somewhere else; a plugin is plain files in its own folder',
    });
    await removePlugin('linked-dest', host());
    expect(existsSync(join(appData, 'plugins', 'destinations', 'linked-dest'))).toBe(false);
    expect(existsSync(join(FIXTURES, 'echo-dest', 'plugin.mjs'))).toBe(true);
  });

  it('lists a plugin that hangs while loading as refused, after its load timeout', async () => {
    placeFixture(appData, 'hangs-on-load');
    const [found] = await discoverDestinations({ ...host(), timeouts: { describe: 2000 } });
    expect(found).toMatchObject({ state: 'refused', reason: 'it did not finish within 2 s and was stopped' });
    expect((await removePlugin('hangs-on-load', host())).code).toBe(true);
  });
});

describe('where plugins cannot be isolated (bubblewrap pretended missing)', () => {
  let appData: string;
  beforeAll(() => {
    appData = makeAppData();
  });
  afterAll(() => cleanup(appData));
  const partial = (extra: PluginHostOptions = {}): PluginHostOptions => hostFor(appData, { bwrap: null, ...extra });

  it('says so, runs first-party plugins, and refuses others unless the user allows them', async () => {
    expect(await pluginIsolation(partial())).toMatchObject({ level: 'partial', summary: expect.stringMatching(/^bubblewrap \(bwrap\) is not installed/) });
    // The first-party plugin shipped with Quire, byte for byte, placed by hand.
    placeFixture(appData, join('..', '..', '..', 'registry', 'destinations', 'send-to-library'), 'send-to-library');
    placeFixture(appData, 'echo-dest');
    const found = Object.fromEntries((await discoverDestinations(partial())).map((d) => [d.slug, d.state === 'refused' ? d.reason : d.state]));
    expect(found['send-to-library']).toBe('usable');
    expect(found['echo-dest']).toBe(
      'it cannot be isolated on this system, and only first-party plugins run without isolation; to run it anyway, install it with --allow-unisolated',
    );
    expect(existsSync(join(appData, 'plugins', 'data', 'echo-dest'))).toBe(false); // never ran

    await expect(installPluginDirectory(join(FIXTURES, 'echo-dest'), partial())).rejects.toThrow(
      /^The plugin echo-dest was not installed: it cannot be isolated on this system/,
    );
    const allowed = await installPluginDirectory(join(FIXTURES, 'echo-dest'), partial({ allowUnisolated: true }));
    expect(allowed.isolation.level).toBe('partial');
    // Remembered: later runs load it without the flag.
    expect((await findDestination('echo-dest', partial()))?.state).toBe('usable');
  });
});

describe('quire itself, facing a plugin that signals it at load', () => {
  let appData: string;
  beforeEach(() => {
    appData = makeAppData();
    placeFixture(appData, 'kills-parent');
  });
  afterEach(() => cleanup(appData));

  for (const [mode, env] of [
    ['inside bubblewrap', {}],
    ['with bubblewrap missing', { QUIRE_BWRAP: 'none' }],
  ] as const) {
    it(`lists it as refused, exits 0, and removes it (${mode})`, async () => {
      const run = (...args: string[]): ReturnType<typeof runQuire> =>
        runQuire(args, { env: { QUIRE_HOME: appData, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent', ...env } });
      const list = await run('plugins', 'list');
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(/^kills-parent\s+refused: /m);
      expect(list.stdout).toContain(mode === 'inside bubblewrap' ? 'isolation: full' : 'isolation: partial');
      if (mode === 'inside bubblewrap') {
        const destinations = await run('list', 'destinations');
        expect(destinations.code, destinations.stderr).toBe(0);
        expect(destinations.stdout).toMatch(/^kills-parent\s+refused: it tried to reach something outside its sandbox while loading$/m);
      } else {
        // Where it cannot be isolated, the user may allow it: its load is then stopped by the lockdown.
        const install = await run('plugins', 'install', join(appData, 'plugins', 'destinations', 'kills-parent'), '--allow-unisolated');
        expect(install.code).toBe(2);
        expect(install.stderr).toContain('quire: The plugin kills-parent was not installed: it tried to reach something outside its sandbox while loading.');
      }
      const remove = await run('plugins', 'remove', 'kills-parent');
      expect(remove.code, remove.stderr).toBe(0);
      expect(remove.stdout).toBe('Removed kills-parent, its settings and its secrets.\n');
      expect(existsSync(join(appData, 'plugins', 'destinations', 'kills-parent'))).toBe(false);
    }, 60_000);
  }
});
