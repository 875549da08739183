// Processor plugins from the registry: installed with their sha256 checked, accepted as installed, a change not run
// until accepted again, and the first-party despeckle step removing isolated specks and nothing else.
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
      "The plugin despeckle was not installed: its file plugin.mjs does not match the registry's checksum.",
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

describe('the pixels a processor returns', () => {
  it('reach the page exactly, whether it changed a few spots, every pixel, or returned a new buffer, page after page', async () => {
    const host = hostFor(appData);
    const dir = join(appData, 'plugins', 'processors', 'painter');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'quire-plugin.toml'),
      'slug = "painter"\nname = "Painter"\nversion = "1.0.0"\nkind = "processor"\nentry = "plugin.mjs"\n\n[requires]\napi = 1\n',
    );
    // What it does is chosen by the page's dpi: 1 a few spots, 2 every pixel, 3 a new buffer, 4 nothing.
    writeFileSync(
      join(dir, 'plugin.mjs'),
      `import { Processor, registerProcessor } from 'quire/plugin-api';
class Painter extends Processor {
  name = 'painter'; display = 'Painter'; summary = 'paints';
  process(page) {
    const { width, height, pixels } = page;
    if (page.dpi === 1) for (let s = 0; s < 30; s++) pixels[(s * 7919) % pixels.length] = 17;
    if (page.dpi === 2) for (let i = 0; i < pixels.length; i++) pixels[i] = (pixels[i] + 1) % 256;
    if (page.dpi === 3) return { image: { width, height, pixels: new Uint8Array(width * height).fill(99) }, facts: {} };
    return { image: page, facts: {} };
  }
}
registerProcessor(Painter);
`,
    );
    recordAcceptance('painter', dir, appData);
    const entry = await findPagePlugin('processor', 'painter', host);
    expect(entry?.state).toBe('usable');
    const session = await openPagePlugin(entry!, {}, host);
    try {
      const width = 700;
      const height = 900;
      for (const [round, dpi] of [1, 2, 2, 1, 4, 3, 1, 2, 4].entries()) {
        const pixels = new Uint8Array(width * height);
        for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 31 + round * 7) % 251;
        const expected = pixels.slice();
        if (dpi === 1) for (let s = 0; s < 30; s++) expected[(s * 7919) % expected.length] = 17;
        if (dpi === 2) for (let i = 0; i < expected.length; i++) expected[i] = (expected[i] + 1) % 256;
        if (dpi === 3) expected.fill(99);
        const out = await session.process({ width, height, dpi, pixels }, { kind: 'gray', plugins: {} });
        expect(out.ok).toBe(true);
        if (!out.ok) return;
        expect(Buffer.compare(Buffer.from(out.image.pixels), Buffer.from(expected)), `page ${round + 1} (mode ${dpi})`).toBe(0);
      }
    } finally {
      await session.close();
    }
  });
});
