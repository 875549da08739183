import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
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
      expect(installed[2]).toEqual({ slug: 'send-to-library', version: '1.0.0', display: 'Send to library', accepts: ['pdf', 'md', 'txt'], first_party: true, state: 'usable', reason: null });
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

describe('the same input given twice', () => {
  it('is converted once, with a warning', async () => {
    await withTempDir(async (dir) => {
      const page = join(dir, 'page.png');
      await sharp({ create: { width: 400, height: 560, channels: 3, background: '#fff' } }).png().toFile(page);
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
