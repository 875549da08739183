import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { findDestination, scanImports, sendExports, type UsableDestination } from '../../src/plugins/index.js';
import { applySettings, PluginSecrets } from '../../src/settings/index.js';
import { runInSandbox } from '../../src/plugins/sandbox.js';
import { cleanup, hostFor, makeAppData, placeFixture } from './helpers.js';

/** Every way a plugin tries to leave its sandbox ends in a failed send, and nothing leaks. */
describe('the sandbox', () => {
  let appData: string;
  let escape: UsableDestination;
  let book: string;
  let outside: string;

  beforeAll(async () => {
    appData = makeAppData();
    outside = join(appData, 'outside');
    mkdirSync(join(outside, '.ssh'), { recursive: true });
    writeFileSync(join(outside, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
    placeFixture(appData, 'sandbox-escape');
    placeFixture(appData, 'echo-dest');
    // Another plugin with a setting and a secret in its own stores.
    const echo = await findDestination('echo-dest', hostFor(appData));
    if (echo?.state !== 'usable') throw new Error('echo-dest should load');
    applySettings(echo.descriptor, [['shelf', 'OTHER-PLUGIN-SETTING']], hostFor(appData));
    new PluginSecrets('echo-dest', { appData, plaintext: true, keychain: null }).set('token', 'OTHER-PLUGIN-SECRET');
    new PluginSecrets('echo-dest', { appData, keychain: null }).set('token', 'FALLBACK-ROW-SECRET');
    new PluginSecrets('sandbox-escape', { appData, plaintext: true, keychain: null }).set('token', 'MY-OWN-SECRET');
    const found = await findDestination('sandbox-escape', hostFor(appData));
    if (found?.state !== 'usable') throw new Error('sandbox-escape should load');
    escape = found;
    book = join(outside, 'My Book.pdf');
    writeFileSync(book, '%PDF-1.4 test');
  });
  afterAll(() => cleanup(appData));

  async function attack(kind: string, target: string): Promise<{ ok: boolean; kind: string | null; message: string; detail: string }> {
    applySettings(
      escape.descriptor,
      [
        ['attack', kind],
        ['target', target],
      ],
      hostFor(appData),
    );
    const [outcome] = await sendExports([{ format: 'pdf', path: book }], ['sandbox-escape'], { title: 'My Book' }, hostFor(appData));
    return outcome.result;
  }

  it('stops a plugin reading ~/.ssh', async () => {
    const result = await attack('read', join(outside, '.ssh', 'id_ed25519'));
    expect(result.ok).toBe(false);
    expect(result.kind).toBe('PERMISSION');
    expect(result.message).toBe('Sandbox escape tried to reach something outside its sandbox and was stopped, so the file was not sent.');
    expect(result.detail).toMatch(/ERR_ACCESS_DENIED.*FileSystemRead/);
    expect(JSON.stringify(result)).not.toContain('PRIVATE KEY');
  });

  it('stops a plugin reading the real home folder too', async () => {
    const result = await attack('read', join(process.env.HOME ?? '/root', '.ssh', 'id_rsa'));
    expect(result.kind).toBe('PERMISSION');
  });

  it("stops a plugin reading another plugin's config.db, its own config.db and the .env", async () => {
    for (const target of [
      join(appData, 'plugins', 'data', 'echo-dest', 'config.db'),
      join(appData, 'plugins', 'data', 'sandbox-escape', 'config.db'),
      join(appData, '.env'),
    ]) {
      expect(existsSync(target)).toBe(true);
      const result = await attack('read', target);
      expect(result.kind, target).toBe('PERMISSION');
      expect(JSON.stringify(result)).not.toMatch(/OTHER-PLUGIN|FALLBACK-ROW|MY-OWN-SECRET/);
    }
  });

  it('stops a plugin writing outside its files/ folder, and lets it write inside', async () => {
    const result = await attack('write', join(outside, 'planted.txt'));
    expect(result.kind).toBe('PERMISSION');
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    const inside = await attack('write', join(appData, 'plugins', 'data', 'sandbox-escape', 'files', 'note.txt'));
    expect(inside.ok).toBe(true);
  });

  it('stops a plugin linking to a file outside from its own files/ folder', async () => {
    const result = await attack('link', join(outside, '.ssh', 'id_ed25519'));
    expect(result.kind).toBe('PERMISSION');
    expect(JSON.stringify(result)).not.toContain('PRIVATE KEY');
  });

  it('stops a plugin starting a process through the binding under child_process', async () => {
    const result = await attack('spawn', join(outside, 'spawned.txt'));
    expect(result.ok).toBe(false);
    expect(result.kind).toBe('PERMISSION');
    expect(existsSync(join(outside, 'spawned.txt'))).toBe(false);
  });

  it('stops a plugin loading a native addon', async () => {
    const require = createRequire(import.meta.url);
    // better-sqlite3's addon: the one it ships for this platform, or one built from source.
    const root = dirname(require.resolve('better-sqlite3/package.json'));
    const addon = [join(root, 'prebuilds', `${process.platform}-${process.arch}.node`), join(root, 'build', 'Release', 'better_sqlite3.node')].find((p) =>
      existsSync(p),
    );
    expect(addon).toBeDefined();
    const result = await attack('addon', addon!);
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(/ERR_DLOPEN_DISABLED|ERR_ACCESS_DENIED/);
  });

  it("hands the plugin no environment: the host's variables stay out", async () => {
    process.env.QUIRE_TEST_TOKEN = 'HOST-ONLY';
    try {
      const result = await attack('env', '');
      expect(result.ok).toBe(true);
      expect(result.message).not.toContain('HOST-ONLY');
    } finally {
      delete process.env.QUIRE_TEST_TOKEN;
    }
  });

  it('refuses, at run time too, modules the static check would have refused', async () => {
    // Skip the static check on purpose: the permission model alone must hold.
    const source = [
      "import { Destination, registerDestination, SendResult, CheckResult } from 'quire/plugin-api';",
      "import { execFileSync } from 'node:child_process';",
      "import { Worker } from 'node:worker_threads';",
      'class Sneaky extends Destination {',
      "  name = 'sneaky'; display = 'Sneaky'; description = 'x'; accepts = ['pdf']; CONFIG_FIELDS = []; SECRET_FIELDS = [];",
      "  async check() { try { execFileSync('true'); } catch (e) { try { new Worker('1', { eval: true }); } catch (w) { return CheckResult.failed('PERMISSION', 'stopped', e.code + ' ' + w.code); } } return CheckResult.passed('ESCAPED'); }",
      "  async send() { return SendResult.sent('x'); }",
      '}',
      'registerDestination(Sneaky);',
    ].join('\n');
    const codeDir = join(appData, 'sneaky');
    mkdirSync(codeDir, { recursive: true });
    const outcome = await runInSandbox({
      op: 'check',
      plugin: { slug: 'sneaky', codeDir, source, imports: scanImports(source).imports },
      filesDir: join(codeDir, 'files'),
      timeoutMs: 20_000,
    });
    expect(outcome.type).toBe('checked');
    expect(outcome.type === 'checked' && outcome.result).toMatchObject({ ok: false, detail: 'ERR_ACCESS_DENIED ERR_ACCESS_DENIED' });
  });

  it('stops a plugin that hangs, and reports one that exits without answering', async () => {
    const plugin = (body: string): { slug: string; codeDir: string; source: string; imports: ReturnType<typeof scanImports>['imports'] } => {
      const source = [
        "import { Destination, registerDestination, SendResult } from 'quire/plugin-api';",
        'class Odd extends Destination {',
        "  name = 'odd'; display = 'Odd'; description = 'x'; accepts = ['pdf']; CONFIG_FIELDS = []; SECRET_FIELDS = [];",
        `  async check() { ${body} }`,
        "  async send() { return SendResult.sent('x'); }",
        '}',
        'registerDestination(Odd);',
      ].join('\n');
      const codeDir = join(appData, 'odd');
      mkdirSync(codeDir, { recursive: true });
      return { slug: 'odd', codeDir, source, imports: scanImports(source).imports };
    };
    const hung = await runInSandbox({
      op: 'check',
      plugin: plugin('await new Promise(() => setInterval(() => {}, 1000));'),
      filesDir: join(appData, 'odd', 'files'),
      timeoutMs: 1500,
    });
    expect(hung).toMatchObject({ type: 'timeout', message: 'it did not finish within 2 s and was stopped' });
    const exited = await runInSandbox({ op: 'check', plugin: plugin('process.exit(3);'), filesDir: join(appData, 'odd', 'files'), timeoutMs: 10_000 });
    expect(exited).toMatchObject({ type: 'crashed', message: 'its process ended without an answer' });
    expect(exited.type === 'crashed' && exited.detail).toMatch(/^exit 3/);
  });

  it('lets a plugin send mail with the API helper from inside the sandbox', async () => {
    const received: string[] = [];
    const server = new SMTPServer({
      authOptional: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth: (auth, _session, cb) =>
        auth.username === 'me' && auth.password === 'pw' ? cb(null, { user: 'me' }) : cb(new Error('Invalid username or password')),
      onData: (stream, _session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push(Buffer.concat(chunks).toString('utf8'));
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as { port: number }).port;
    try {
      const source = [
        "import { Destination, registerDestination, SendResult, CheckResult, sendMail } from 'quire/plugin-api';",
        'class Mailer extends Destination {',
        "  name = 'mailer'; display = 'Mailer'; description = 'x'; accepts = ['pdf']; CONFIG_FIELDS = []; SECRET_FIELDS = [];",
        '  async check() { return CheckResult.passed("ok"); }',
        '  async send(path, meta) {',
        `    const r = await sendMail({ host: '127.0.0.1', port: ${port}, security: 'none', user: 'me', password: 'pw' }, { from: 'a@example.org', to: 'b@example.org', subject: meta.title, attachments: [{ path }] });`,
        '    return SendResult.sent("accepted for delivery", r.response);',
        '  }',
        '}',
        'registerDestination(Mailer);',
      ].join('\n');
      const codeDir = join(appData, 'mailer');
      mkdirSync(codeDir, { recursive: true });
      const outcome = await runInSandbox({
        op: 'send',
        plugin: { slug: 'mailer', codeDir, source, imports: scanImports(source).imports },
        filesDir: join(codeDir, 'files'),
        // The host submits the mail for the plugin: only to a server its settings name.
        network: { declared: true, hosts: [{ host: '127.0.0.1', port }] },
        file: book,
        meta: { title: 'My Book' },
        timeoutMs: 20_000,
      });
      expect(outcome.type === 'sent' && outcome.result.ok, JSON.stringify(outcome)).toBe(true);
      expect(received).toHaveLength(1);
      expect(received[0]).toMatch(/Subject: My Book/);
      expect(received[0]).toMatch(/filename="My Book\.pdf"|filename\*?=.*My/);
      expect(readFileSync(book, 'utf8')).toBe('%PDF-1.4 test');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
