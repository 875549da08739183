import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginHostOptions } from '../../src/plugins/index.js';
import type { Keychain } from '../../src/settings/index.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** A fresh `<APP_DATA>` in /tmp; remove it with `rmSync(dir, { recursive: true })` (see {@link cleanup}). */
export function makeAppData(): string {
  return mkdtempSync(join(tmpdir(), 'quire-plugins-'));
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Put fixture `name` in `<APP_DATA>/plugins/destinations/<as>/`, as a user copying a folder would. */
export function placeFixture(appData: string, name: string, as = name): string {
  const target = join(appData, 'plugins', 'destinations', as);
  mkdirSync(dirname(target), { recursive: true });
  cpSync(join(FIXTURES, name), target, { recursive: true });
  return target;
}

/** A keychain in memory, with a switch to make it unreachable (locked, or gone). */
export function memoryKeychain(): Keychain & { entries: Map<string, string>; reachable: boolean } {
  const entries = new Map<string, string>();
  const state = {
    entries,
    reachable: true,
    get(account: string): string | undefined {
      if (!state.reachable) throw new Error('Secret Service: the collection is locked');
      return entries.get(account);
    },
    set(account: string, value: string): void {
      if (!state.reachable) throw new Error('Secret Service: the collection is locked');
      entries.set(account, value);
    },
    delete(account: string): void {
      if (!state.reachable) throw new Error('Secret Service: the collection is locked');
      entries.delete(account);
    },
  };
  return state;
}

/** Host options for a test: its own app data, no real keychain unless given. */
export function hostFor(appData: string, extra: PluginHostOptions = {}): PluginHostOptions {
  return { appData, keychain: null, ...extra };
}
