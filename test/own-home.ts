/**
 * Run before every test file (`setupFiles` in vitest.config.ts). Files run side by side, so each gets a home folder
 * of its own: the app data folder (`~/.local/share/quire`: settings, plugins, the unpacked OCR models), `~/.config`
 * (calibre's, Chromium's) and the caches of one file are never another's, nor the real user's. No session bus
 * either, so nothing reaches the user's keyring: the keyring tests start a Secret Service of their own. A test that
 * needs a particular `QUIRE_HOME` or `HOME` still sets its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const home = mkdtempSync(join(tmpdir(), 'quire-test-home-'));
Object.assign(process.env, {
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent',
});
delete process.env.QUIRE_HOME;

afterAll(() => rmSync(home, { recursive: true, force: true }));
