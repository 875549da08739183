// Processor plugins from the registry: installed with their sha256 checked, accepted as installed, a change not run
// until accepted again, and the first-party despeckle step removing isolated specks and nothing else.
import { appendFileSync, cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultRegistry, findPagePlugin, installPlugin, openPagePlugin, recordAcceptance } from '../../src/plugins/index.js';
import { cleanup, hostFor, makeAppData } from './helpers.js';
import { fill, inkCount, textPage } from './page-plugins.js';

let appData: string;
beforeEach(() => {
  appData = makeAppData();
});
afterEach(() => cleanup(appData));

describe('the despeckle processor from the registry', () => {
  it('installs with its files checked, is accepted as installed, and removes only isolated specks', async () => {
    const host = hostFor(appData);
    const installed = await installPlugin('despeckle', { ...host, fromFolder: false, registry: defaultRegistry() });
    expect(installed.kind).toBe('processor');
    expect(existsSync(join(appData, 'plugins', 'processors', 'despeckle', 'plugin.mjs'))).toBe(true);
    const accepted = JSON.parse(readFileSync(join(appData, 'plugins', 'data', 'despeckle', 'accepted.json'), 'utf8')) as { sha256: string };
    expect(accepted.sha256).toMatch(/^[0-9a-f]{64}$/);

    const entry = await findPagePlugin('processor', 'despeckle', host);
    expect(entry?.state).toBe('usable');
    expect(entry?.descriptor?.after).toBe('binarize');
    expect(entry?.descriptor?.options.map((f) => [f.id, f.default, f.min, f.max])).toEqual([
      ['max_speck_pct', 25, 1, 100],
      ['min_gap_pct', 60, 0, 300],
    ]);

    const width = 1400;
    const height = 1200;
    const pixels = textPage(width, height);
    const letters = inkCount(pixels);
    // Twelve specks of dust in the margins, and a dot just above a letter (an i's), which must stay.
    for (let i = 0; i < 12; i++) fill(pixels, width, 60 + i * 90, 1050, 3, 3, 0);
    fill(pixels, width, 205, 290, 4, 4, 0);
    const session = await openPagePlugin(entry!, {}, host);
    try {
      const out = await session.process({ width, height, dpi: 300, pixels }, { kind: 'bitonal', textScale: { xHeightPx: 25, linePitchPx: 60 }, plugins: {} });
      expect(out.ok).toBe(true);
      if (!out.ok) return;
      expect(out.facts).toEqual({ removed: 12, maxSpeckPx: 6 });
      expect(inkCount(out.image.pixels)).toBe(letters + 16);
    } finally {
      await session.close();
    }
  });

  it('refuses a registry whose file does not match its sha256, installing nothing', async () => {
    const registry = join(appData, 'registry');
    cpSync(defaultRegistry(), registry, { recursive: true });
    appendFileSync(join(registry, 'processors', 'despeckle', 'plugin.mjs'), '\n// changed\n');
    await expect(installPlugin('despeckle', { ...hostFor(appData), fromFolder: false, registry })).rejects.toThrow(
      'The plugin despeckle was not installed: its file plugin.mjs does not match the registry\'s checksum.',
    );
    expect(existsSync(join(appData, 'plugins', 'processors', 'despeckle'))).toBe(false);
  });

  it('does not run a plugin whose files changed since it was accepted, until it is accepted again', async () => {
    const host = hostFor(appData);
    await installPlugin('despeckle', { ...host, fromFolder: false, registry: defaultRegistry() });
    const file = join(appData, 'plugins', 'processors', 'despeckle', 'plugin.mjs');
    writeFileSync(file, readFileSync(file, 'utf8').replace("'Despeckle'", "'Despeckle (edited)'"));
    const changed = await findPagePlugin('processor', 'despeckle', host);
    expect(changed?.state).toBe('unaccepted');
    expect(changed?.trust).toBe('changed');
    expect(changed?.descriptor).toBeUndefined();
    recordAcceptance('despeckle', changed!.dir, appData);
    const again = await findPagePlugin('processor', 'despeckle', host);
    expect(again?.state).toBe('usable');
    expect(again?.descriptor?.display).toBe('Despeckle (edited)');
  });
});
