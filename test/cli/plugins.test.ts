import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteDatabase as Database } from '../../src/settings/index.js';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ROOT, runQuire, withTempDir } from '../helpers.js';

const ECHO = join(ROOT, 'test', 'plugins', 'fixtures', 'echo-dest');

describe('quire plugins, as a script reads it', () => {
  it('lists installed and available destinations as JSON, and removes any folder the list shows, one placed by hand too', async () => {
    await withTempDir(async (dir) => {
      const env = { QUIRE_HOME: join(dir, 'home') };
      expect((await runQuire(['plugins', 'install', 'send-to-library'], { env })).code).toBe(0);
      const destinations = join(dir, 'home', 'plugins', 'destinations');
      // Placed by hand: one under its slug, one under a name that is no slug (refused, but listed).
      cpSync(ECHO, join(destinations, 'echo-dest'), { recursive: true });
      cpSync(ECHO, join(destinations, 'Echo_Copy'), { recursive: true });

      const list = await runQuire(['plugins', 'list', '--json'], { env });
      expect(list.code).toBe(0);
      const installed = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
      expect(installed.map((d) => d.slug)).toEqual(['Echo_Copy', 'echo-dest', 'send-to-library']);
      expect(installed[2]).toEqual({
        slug: 'send-to-library',
        version: '1.0.0',
        display: 'Send to library',
        accepts: ['pdf', 'md', 'txt'],
        first_party: true,
        state: 'usable',
        reason: null,
      });
      expect(installed[0]).toMatchObject({ slug: 'Echo_Copy', state: 'refused', reason: expect.any(String) });

      const available = await runQuire(['plugins', 'available', '--json'], { env });
      expect(available.code).toBe(0);
      const offered = JSON.parse(available.stdout) as Array<{ slug: string; installed: boolean; first_party: boolean }>;
      expect(offered.find((d) => d.slug === 'send-to-library')).toMatchObject({ installed: true, first_party: true, version: '1.0.0' });
      expect(offered.find((d) => d.slug === 'send-to-ereader')).toMatchObject({ installed: false });

      for (const name of ['Echo_Copy', 'echo-dest']) {
        const removed = await runQuire(['plugins', 'remove', name], { env });
        expect({ name, code: removed.code, stderr: removed.stderr }).toEqual({ name, code: 0, stderr: '' });
      }
      expect(readdirSync(destinations)).toEqual(['send-to-library']);
      const outside = await runQuire(['plugins', 'remove', '../destinations'], { env });
      expect(outside.code).not.toBe(0);
      expect(outside.stderr).toBe('quire: No plugin called ../destinations is installed.\n');
      expect(readdirSync(destinations)).toEqual(['send-to-library']);
    });
  });
});

describe('a destination setting, checked by its declared kind when it is set', () => {
  it('refuses an address that is not one and stores nothing of that command; a saved one that does not fit shows "needs …", never "ready"', async () => {
    await withTempDir(async (dir) => {
      const home = join(dir, 'home');
      const env = { QUIRE_HOME: home };
      const quire = (...args: string[]) => runQuire(['plugins', ...args], { env });
      expect((await quire('install', 'send-to-library')).code).toBe(0);
      writeFileSync(join(home, '.env'), 'QUIRE_PLUGIN__SEND_TO_LIBRARY__PASSWORD="pw"\n', { mode: 0o600 });

      const refused = await quire('config', 'send-to-library', '--set', 'username=alice', '--set', 'base_url=notaurl');
      expect({ code: refused.code, stderr: refused.stderr, stdout: refused.stdout }).toEqual({
        code: 2,
        stderr: 'quire: base_url must be an http or https URL such as https://example.org.\n',
        stdout: '',
      });
      const shown = (await quire('config', 'send-to-library')).stdout;
      expect(shown).toMatch(/^ {2}base_url\s+\(empty\) \(default\)/m);
      expect(shown).toMatch(/^ {2}username\s+\(empty\) \(default\)/m);
      expect((await quire('list')).stdout).toMatch(/^send-to-library\s+1\.0\.0\s+Send to library \(first-party\) — needs Server address, User name$/m);

      const saved = await quire('config', 'send-to-library', '--set', 'username=alice', '--set', 'base_url=http://localhost:8080/');
      expect(saved.stdout).toBe('Saved 2 settings for send-to-library.\n');
      expect((await quire('config', 'send-to-library')).stdout).toMatch(/^ {2}base_url\s+http:\/\/localhost:8080\s+Server address \[required\]$/m);
      expect((await quire('list')).stdout).toMatch(/^send-to-library\s+1\.0\.0\s+Send to library \(first-party\) — ready$/m);

      // Saved before settings were checked, or edited by hand: the destination needs a valid one, and says which.
      const db = new Database(join(home, 'plugins', 'data', 'send-to-library', 'config.db'));
      db.prepare("UPDATE settings SET value = 'notaurl' WHERE key = 'base_url'").run();
      db.close();
      const listed = (await quire('list')).stdout;
      expect(listed).toMatch(/^send-to-library\s+1\.0\.0\s+Send to library \(first-party\) — needs a valid Server address$/m);
      expect(listed).not.toMatch(/ready/);
      const config = (await quire('config', 'send-to-library')).stdout;
      expect(config).toMatch(/^ {2}base_url\s+notaurl \(not used: base_url must be an http or https URL such as https:\/\/example\.org\)/m);
      expect(config).toContain('Not set up yet; missing: a valid Server address.');
      expect((await runQuire(['list', 'destinations'], { env })).stdout).toMatch(
        /^send-to-library\s+Send to library — accepts pdf, md, txt — missing: a valid Server address$/m,
      );
      // The plugin is never handed the value it cannot use: its check asks for the address.
      const check = await quire('check', 'send-to-library');
      expect({ code: check.code, stderr: check.stderr }).toEqual({
        code: 1,
        stderr: 'quire: send-to-library: Missing setting — Send to library is not set up yet: set Server address.\n',
      });
    });
  });

  it('refuses a port out of range with the sentence saying what is expected', async () => {
    await withTempDir(async (dir) => {
      const env = { QUIRE_HOME: join(dir, 'home') };
      expect((await runQuire(['plugins', 'install', 'send-to-ereader'], { env })).code).toBe(0);
      for (const port of ['0', '70000', '-25', 'smtp']) {
        const r = await runQuire(['plugins', 'config', 'send-to-ereader', '--set', `smtp_port=${port}`], { env });
        expect({ port, code: r.code, stderr: r.stderr }).toEqual({ port, code: 2, stderr: 'quire: smtp_port must be a port number from 1 to 65535.\n' });
      }
      expect((await runQuire(['plugins', 'config', 'send-to-ereader'], { env })).stdout).toMatch(/^ {2}smtp_port\s+587 \(default\)/m);
    });
  });
});

describe('the same input given twice', () => {
  it('is converted once, with a warning', async () => {
    await withTempDir(async (dir) => {
      const page = join(dir, 'page.png');
      await sharp({ create: { width: 400, height: 560, channels: 3, background: '#fff' } })
        .png()
        .toFile(page);
      const again = `${dir}/./page.png`;
      const r = await runQuire(['run', page, again, page, '--pipeline', 'flat', '--dpi', '75', '-o', join(dir, 'out'), '--json']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(`quire: ${again} is ${page} again; it is converted once.\nquire: ${page} is given twice; it is converted once.\n`);
      const [doc] = JSON.parse(r.stdout);
      expect(doc).toMatchObject({ input: page, status: 'done', pages: 1 });
      expect(readdirSync(join(dir, 'out'))).toEqual(['page.pdf']);
    });
  });
});
